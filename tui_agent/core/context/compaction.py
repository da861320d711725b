"""Compaction is a turn (DESIGN §6): requested, streamed, shown, abortable and recorded like any other.

The summary request is the conversation so far (or only its oldest part, for a recovery) with the
summary instruction appended as a text block to its last user message, with the same system prompt
and tools as every request (as Claude Code sends it, so the prompt cache still serves it; the
instruction forbids tool calls and any that come anyway are ignored, never run).

Nothing changes until the summary has arrived whole: ESC at any await point (the PreCompact hook, the
stream, a retry's wait) leaves the history exactly as it was. Then, in one synchronous step, the
history becomes one user message — Claude Code's "This session is being continued..." with the summary
and the transcript's path, and what it carries (`carryover.py`) — followed by the messages kept verbatim
(a recovery keeps the newest part), and the transcript gets a `compact_boundary`.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Awaitable, Callable, TypeVar

from ..abort import AbortSignal
from ..attempt import sleep_or_abort
from ..events import CompactionFinished, CompactionProgress, CompactionStarted, CompactionTrigger, Notice, Retrying
from ..history import last_text
from ..model import MessageAssembler, ModelClient, ModelError, final_error, retry_plan
from ..model_limits import fit_output
from .carryover import carryover, read_state_for
from ..access import gate_of
from .precompact import run_pre_compact_hooks
from ..hook_points import session_start
from .summary import continuation_text, extract_summary, instruction
from .window import OUTPUT_RESERVE_CAP

if TYPE_CHECKING:
    from ..loop import Agent

T = TypeVar("T")


async def until_aborted(coro: Awaitable[T], signal: AbortSignal) -> T | None:
    """`coro`'s result, or None when the signal aborted it first (it is cancelled: a hook's process dies)."""
    task = asyncio.ensure_future(coro)
    remove = signal.on_abort(lambda _r: task.cancel())
    try:
        return await task
    except asyncio.CancelledError:
        if not signal.aborted:
            task.cancel()
            raise
        return None
    finally:
        remove()


@dataclass(slots=True)
class StreamedText:
    text: str = ""
    aborted: bool = False
    error: ModelError | None = None


async def stream_summary(model: ModelClient, request: dict[str, Any], signal: AbortSignal, emit: Any,
                         count: Callable[[str, dict[str, int]], None] | None = None) -> StreamedText:
    """Stream one text answer, retried like any response; tool calls in it are dropped, never run.
    `count(model, usage)` is told what the answer cost (a summary is paid for like any response)."""
    attempt = 0
    first = time.monotonic()
    while True:
        attempt += 1
        chars = [0]

        def on_text(text: str, _index: int) -> None:
            chars[0] += len(text)
            emit(CompactionProgress(text, chars[0]))

        assembler = MessageAssembler(on_text=on_text, on_thinking=lambda _t, _i: None, on_tool_use=lambda _b, _e: None)
        task = asyncio.get_running_loop().create_task(model.stream(request, assembler.feed))
        remove = signal.on_abort(lambda _r: task.cancel())
        try:
            await task
            if count is not None:
                count(assembler.model or request.get("model", model.config.model), assembler.usage)
            return StreamedText(text=last_text({"content": assembler.content()}))
        except asyncio.CancelledError:
            if not signal.aborted:
                task.cancel()
                raise
            return StreamedText(aborted=True)
        except Exception as exc:
            if signal.aborted:
                return StreamedText(aborted=True)
            plan = retry_plan(exc, attempt, model.config, time.monotonic() - first)
            if plan is None:
                return StreamedText(error=final_error(exc))
            emit(Retrying(attempt, plan.delay, plan.why))
            if await sleep_or_abort(plan.delay, signal):
                return StreamedText(aborted=True)
        finally:
            remove()


@dataclass(slots=True)
class Compaction:
    """One compaction turn of `agent`: `head` is summarised, `kept` follows the summary verbatim."""

    agent: "Agent"
    trigger: CompactionTrigger
    pre_tokens: int
    instructions: str = ""
    head: list[dict[str, Any]] | None = None
    """The messages to summarise (all of the history by default)."""
    kept: int = 0
    """How many of the newest messages stay verbatim after the summary (a recovery's tail)."""

    def summary_request(self, head: list[dict[str, Any]]) -> dict[str, Any]:
        agent = self.agent
        ask = {"role": "user", "content": [{"type": "text", "text": instruction(self.instructions)}]}
        request = agent.build_request([*head, ask])
        # Room for the summary (Claude Code's 20 k) above any thinking budget, all within the model's
        # maximum: the budget shrinks first (an opus-4-1 summary asks 32,000 with a 12,000 budget).
        thinking = request.get("thinking") or {}
        budget = thinking.get("budget_tokens") if thinking.get("type") == "enabled" else None
        budget = budget if isinstance(budget, int) else None
        wanted = min(agent.model.config.max_tokens, OUTPUT_RESERVE_CAP) if budget is None else budget + OUTPUT_RESERVE_CAP
        ceiling = agent.model.limits.ceiling(request["model"])
        request["max_tokens"], fitted = fit_output(ceiling, wanted, budget, OUTPUT_RESERVE_CAP)
        if fitted is not None:
            request["thinking"] = {**thinking, "budget_tokens": fitted}
        elif budget is not None:  # no room for any thinking under this ceiling
            request.pop("thinking")
        return request

    async def run(self, signal: AbortSignal) -> CompactionFinished:
        agent = self.agent
        started = agent.clock()
        agent.emit(CompactionStarted(self.trigger, self.pre_tokens, started, self.instructions))

        def finish(outcome: Any, detail: str = "", summary: str = "", post: int | None = None) -> CompactionFinished:
            event = CompactionFinished(self.trigger, outcome, self.pre_tokens, self.pre_tokens if post is None else post,
                                       started, agent.clock(), summary, detail)
            agent.emit(event)
            return event

        session = agent.session
        verdict = await until_aborted(run_pre_compact_hooks(
            agent.policy, trigger="manual" if self.trigger == "manual" else "auto", custom_instructions=self.instructions,
            session_id=session.id, transcript_path=session.transcript_path, cwd=agent.workspace.root,
            on_notice=lambda level, text: agent.emit(Notice.of(level, text)),
        ), signal)
        if verdict is None or signal.aborted:
            return finish("aborted", "Compaction interrupted by user: the conversation is as it was.")
        if verdict.blocked:
            return finish("blocked", f"A PreCompact hook blocked the compaction: {verdict.reason}")
        history = agent.history
        head = list(history if self.head is None else self.head)
        streamed = await stream_summary(agent.model, self.summary_request(head), signal, agent.emit, self._count)
        if streamed.aborted or signal.aborted:
            return finish("aborted", "Compaction interrupted by user: the conversation is as it was.")
        if streamed.error is not None:
            return finish("failed", f"The summary request failed: {streamed.error}")
        summary = extract_summary(streamed.text)
        if not summary:
            return finish("failed", "The model's answer held no summary; the conversation is as it was.")
        post = self.apply(summary, started)
        await session_start(agent, None, "compact", signal)  # SessionStart(source "compact"): context for the next prompt
        return finish("compacted", summary=summary, post=post)

    def _count(self, model: str, usage: dict[str, int]) -> None:
        """The summary's tokens and cost join the session's (the status line, /cost, the result)."""
        update = self.agent.totals.add(model, usage)
        if update is not None:
            self.agent.emit(update)

    def apply(self, summary: str, started: float) -> int:
        """Replace the history (synchronously: nothing can interrupt it half-done); the new size."""
        agent = self.agent
        history = agent.history
        kept = history[len(history) - self.kept :] if self.kept else []
        metas: list[dict[str, Any] | None] = [None] * len(kept)
        text = continuation_text(summary, agent.session.transcript_path, resume_directly=self.trigger != "manual")
        carried = carryover(history, agent.context.services.get("todos"), whole=not kept,
                            gate=gate_of(agent.context.services, agent.context.workspace))
        # As a resume reads it back: the summary line's string, joined by the carried blocks' line.
        first = {"role": "user", "content": [{"type": "text", "text": text}, *carried.blocks] if carried.blocks else text}
        history[:] = [first, *kept]
        agent.context.read_state = read_state_for(carried.files)
        agent.results.keep_only({b.get("tool_use_id") for m in kept if not isinstance(m["content"], str) for b in m["content"] if b.get("type") == "tool_result"})
        if agent.memory is not None:
            agent.memory.reload()
        manager = agent.context_manager
        manager.meter.reset()
        post = manager.used()
        agent.session.compact_boundary(
            trigger=self.trigger if self.trigger != "recovery" else "auto", pre_tokens=self.pre_tokens, post_tokens=post,
            duration_ms=int((agent.clock() - started) * 1000), summary=text, carried=carried.blocks, kept=kept, kept_metas=metas,
        )
        return post
