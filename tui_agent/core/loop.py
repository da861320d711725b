"""The tool-calling loop: ask the model, run the tools it asks for, send the results, until it stops.

Invariants (DESIGN §1):
- the model is stateless: every request carries the whole history; the assistant message is stored
  whole, in order (text, thinking and tool_use blocks, tool input exactly as received);
- the only signal to continue is "this response contained a tool_use block";
- every tool_use gets exactly one tool_result, all in ONE user message, in tool_use order, also after
  denials, errors and aborts;
- a response that fails midway is never half-applied: its attempt is discarded and retried;
- the loop always ends with an explicit reason (LoopEnded), never silently.
"""

from __future__ import annotations

import asyncio
import platform
import time
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Callable

from ..tools.base import ToolContext, Workspace, FileReadState
from ..tools.registry import ToolRegistry
from .abort import AbortSignal
from .events import (
    AssistantMessageFinished,
    EndReason,
    Event,
    LoopEnded,
    Retrying,
    RunStarted,
    TextDelta,
    ThinkingDelta,
    ToolResultsSent,
    TurnStarted,
    UsageUpdated,
)
from .executor import DEFAULT_MAX_CONCURRENCY, StreamingToolExecutor
from .model import MessageAssembler, ModelClient, ModelError, final_error, retry_plan
from .permission_types import AskHandler, PermissionPolicy
from .pricing import cost_usd
from .results import DEFAULT_MESSAGE_BUDGET, ResultStore
from .session import Session

INTERRUPT_NOTE = "[Request interrupted by user]"
DEFAULT_MAX_TURNS = 50


def default_system_prompt(workspace: Workspace) -> str:
    return (
        "You are tui-agent, a coding agent running in the user's terminal. You help with software "
        "engineering tasks by reading, searching and changing files and running shell commands with "
        "the tools you are given. Prefer several independent read-only tool calls in one response: "
        "they run in parallel. Read a file before editing it. Be concise; use Markdown.\n\n"
        f"Working directory: {workspace.root}\n"
        f"Platform: {platform.system().lower()}\n"
        f"Today's date: {date.today().isoformat()}"
    )


@dataclass(slots=True)
class LoopOptions:
    max_turns: int = DEFAULT_MAX_TURNS
    max_budget_usd: float | None = None
    system_prompt: str | None = None
    append_system_prompt: str | None = None
    max_concurrency: int = DEFAULT_MAX_CONCURRENCY
    message_budget: int = DEFAULT_MESSAGE_BUDGET


@dataclass(slots=True)
class Totals:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cost_usd: float | None = 0.0
    cost_by_model: dict[str, float | None] = field(default_factory=dict)

    def as_usage(self) -> dict[str, int]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_read_input_tokens": self.cache_read_input_tokens,
            "cache_creation_input_tokens": self.cache_creation_input_tokens,
        }


def normalize_for_api(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Merge consecutive messages of one role (an interrupt note followed by the next prompt) and put
    a cache breakpoint on the last block. The history itself is never changed."""
    out: list[dict[str, Any]] = []
    for msg in history:
        content = msg["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
        if out and out[-1]["role"] == msg["role"]:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": msg["role"], "content": blocks})
    if out and out[-1]["content"]:
        last = out[-1]["content"]
        last[-1] = {**last[-1], "cache_control": {"type": "ephemeral"}}
    return out


def last_text(message: dict[str, Any] | None) -> str:
    if not message:
        return ""
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content or [] if b.get("type") == "text")


class Agent:
    """One conversation: its history, its session folder, its totals. `run` a prompt at a time."""

    def __init__(
        self,
        *,
        model: ModelClient,
        registry: ToolRegistry,
        policy: PermissionPolicy,
        session: Session,
        workspace: Workspace,
        options: LoopOptions | None = None,
        ask: AskHandler | None = None,
        emit: Callable[[Event], None] = lambda e: None,
        demo: bool = False,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.model = model
        self.registry = registry
        self.policy = policy
        self.session = session
        self.workspace = workspace
        self.options = options or LoopOptions()
        self.ask = ask
        self.emit = emit
        self.demo = demo
        self.clock = clock
        self.history: list[dict[str, Any]] = []
        self.totals = Totals()
        self.num_requests = 0
        self.denials: list[dict[str, Any]] = []
        self.results = ResultStore(session.dir, self.options.message_budget)
        self.context = ToolContext(workspace, session.dir, FileReadState())
        self._system: list[dict[str, Any]] | None = None
        self._signal: AbortSignal | None = None
        self._executor: StreamingToolExecutor | None = None

    # ----- commands from the UI / headless driver --------------------------------------------
    def abort(self, reason: str = "interrupted by user") -> None:
        if self._signal is not None:
            self._signal.abort(reason)

    @property
    def running(self) -> bool:
        return self._signal is not None and not self._signal.aborted

    async def close(self) -> None:
        """End the session: background shells die with it, the client and transcript close."""
        shells = self.context.services.get("background_shells")
        if shells is not None:
            await shells.close_all()
        watcher = self.context.services.get("file_watch")
        if watcher is not None:
            watcher.close()
        stop_watching = getattr(self.policy, "stop_watching", None)
        if stop_watching is not None:
            await stop_watching()
        await self.model.close()
        self.session.close()

    def cancel_tool(self, tool_use_id: str) -> bool:
        return self._executor.cancel_tool(tool_use_id) if self._executor else False

    # ----- history -----------------------------------------------------------------------------
    def _append(self, message: dict[str, Any]) -> None:
        self.history.append(message)
        self.session.append(message["role"], message=message)

    def system_blocks(self) -> list[dict[str, Any]]:
        # Built once per session: a system prompt that changed (the date at midnight) would break the
        # prompt cache on every later request.
        if self._system is None:
            text = self.options.system_prompt or default_system_prompt(self.workspace)
            if self.options.append_system_prompt:
                text += "\n\n" + self.options.append_system_prompt
            self._system = [{"type": "text", "text": text, "cache_control": {"type": "ephemeral"}}]
        return self._system

    def build_request(self) -> dict[str, Any]:
        request: dict[str, Any] = {
            "model": self.model.config.model,
            "max_tokens": self.model.config.max_tokens,
            "system": self.system_blocks(),
            "messages": normalize_for_api(self.history),
        }
        tools = self.registry.api_definitions()
        if tools:
            request["tools"] = tools
        return request

    def _repair_history(self, why: str) -> None:
        """Give every tool_use of the last assistant message a result (after an unexpected failure)."""
        if not self.history or self.history[-1]["role"] != "assistant":
            return
        ids = [b["id"] for b in self.history[-1]["content"] if b.get("type") == "tool_use"]
        if ids:
            self._append({
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": i, "content": f"<tool_use_error>{why}</tool_use_error>", "is_error": True}
                    for i in ids
                ],
            })

    # ----- the loop --------------------------------------------------------------------------
    async def run(self, prompt: str | list[dict[str, Any]]) -> LoopEnded:
        signal = AbortSignal()
        self._signal = signal
        started = self.clock()
        api_seconds = 0.0
        turns = 0
        self.emit(RunStarted(self.session.id, self.model.config.model, prompt if isinstance(prompt, str) else "", self.registry.names, str(self.workspace.root), self.demo))
        self._append({"role": "user", "content": prompt})

        def end(reason: EndReason, detail: str = "", result: str = "") -> LoopEnded:
            ended = LoopEnded(
                reason=reason,
                detail=detail,
                result=result,
                num_turns=turns,
                duration_ms=int((self.clock() - started) * 1000),
                duration_api_ms=int(api_seconds * 1000),
                total_cost_usd=self.totals.cost_usd,
                usage=self.totals.as_usage(),
                permission_denials=tuple(self.denials),
            )
            self.session.append("result", data={"reason": reason, "detail": detail, "num_turns": turns, "total_cost_usd": self.totals.cost_usd})
            self._signal = None
            self._executor = None
            self.emit(ended)
            return ended

        try:
            while True:
                if turns >= self.options.max_turns:
                    return end("max_turns", f"Reached the maximum number of turns ({self.options.max_turns}).")
                turns += 1
                self.num_requests += 1
                self.emit(TurnStarted(turns))
                request = self.build_request()
                t_api = self.clock()
                outcome = await self._stream_turn(request, signal)
                api_seconds += self.clock() - t_api
                if isinstance(outcome, ModelError):
                    return end("prompt_too_long" if outcome.kind == "prompt_too_long" else "model_error", str(outcome))
                assembler, executor = outcome
                aborted = signal.aborted
                content = assembler.content(complete_only=aborted)
                message = {"role": "assistant", "content": content}
                if content:
                    self._append(message)
                    self.emit(AssistantMessageFinished(message, assembler.stop_reason))
                self._account(assembler)

                if executor.has_tools:
                    results = await executor.get_remaining_results()
                    blocks = [r.to_api() for r in results]
                    if signal.aborted:
                        blocks.append({"type": "text", "text": INTERRUPT_NOTE})
                    user = {"role": "user", "content": blocks}
                    self._append(user)
                    self.emit(ToolResultsSent(user))
                elif signal.aborted:
                    self._append({"role": "user", "content": [{"type": "text", "text": INTERRUPT_NOTE}]})
                self._executor = None

                if signal.aborted:
                    reason = (signal.reason or "interrupted by user").capitalize()
                    return end("aborted", f"{reason}.", last_text(message))
                if not executor.has_tools:
                    return end("completed", "", last_text(message))
                budget = self.options.max_budget_usd
                if budget is not None and self.totals.cost_usd is not None and self.totals.cost_usd >= budget:
                    return end("max_budget_usd", f"Reached the maximum budget (${budget:.2f}); spent ${self.totals.cost_usd:.4f}.")
        except asyncio.CancelledError:
            # The driver itself was cancelled (app quitting): leave the history valid, then go.
            signal.abort("interrupted by user")
            self._repair_history("Interrupted by user")
            raise
        except Exception as exc:
            self._repair_history(f"The run failed: {type(exc).__name__}: {exc}")
            return end("model_error", f"Internal error: {type(exc).__name__}: {exc}")

    async def _stream_turn(self, request: dict[str, Any], signal: AbortSignal) -> tuple[MessageAssembler, StreamingToolExecutor] | ModelError:
        """One model response, retried until it arrives whole, fails for good, or is aborted."""
        attempt = 0
        while True:
            attempt += 1
            executor = StreamingToolExecutor(
                registry=self.registry,
                policy=self.policy,
                ask=self.ask,
                context=self.context,
                results=self.results,
                emit=self.emit,
                signal=signal,
                denials=self.denials,
                max_concurrency=self.options.max_concurrency,
                clock=self.clock,
            )
            self._executor = executor
            emit = self.emit
            assembler = MessageAssembler(
                on_text=lambda text, index: emit(TextDelta(text, index)),
                on_thinking=lambda text, index: emit(ThinkingDelta(text, index)),
                on_tool_use=executor.add_tool,
            )
            task = asyncio.get_running_loop().create_task(self.model.stream(request, assembler.feed))
            remove = signal.on_abort(lambda _r: task.cancel())
            try:
                await task
                return assembler, executor
            except asyncio.CancelledError:
                if not signal.aborted:
                    task.cancel()
                    raise
                return assembler, executor
            except Exception as exc:
                await executor.discard("The response failed midway and is being retried; this call was discarded.")
                plan = retry_plan(exc, attempt, self.model.config)
                if plan is None:
                    return final_error(exc)
                self.emit(Retrying(attempt, plan.delay, plan.why))
                if await self._sleep_or_abort(plan.delay, signal):
                    return assembler_aborted(executor)
            finally:
                remove()

    async def _sleep_or_abort(self, delay: float, signal: AbortSignal) -> bool:
        """Sleep `delay` seconds; True when the run was aborted meanwhile."""
        if signal.aborted:
            return True
        waiter = asyncio.get_running_loop().create_future()
        remove = signal.on_abort(lambda _r: waiter.done() or waiter.set_result(None))
        try:
            await asyncio.wait_for(waiter, delay)
        except asyncio.TimeoutError:
            pass
        finally:
            remove()
        return signal.aborted

    def _account(self, assembler: MessageAssembler) -> None:
        usage = assembler.usage
        if not usage:
            return
        model = assembler.model or self.model.config.model
        inp = usage.get("input_tokens", 0)
        out = usage.get("output_tokens", 0)
        c_read = usage.get("cache_read_input_tokens", 0)
        c_write = usage.get("cache_creation_input_tokens", 0)
        cost = cost_usd(model, inp, out, c_read, c_write)
        t = self.totals
        t.input_tokens += inp
        t.output_tokens += out
        t.cache_read_input_tokens += c_read
        t.cache_creation_input_tokens += c_write
        if cost is None:
            t.cost_usd = None
        elif t.cost_usd is not None:
            t.cost_usd += cost
        prev = t.cost_by_model.get(model, 0.0)
        t.cost_by_model[model] = None if cost is None or prev is None else prev + cost
        self.emit(UsageUpdated(model, inp, out, c_read, c_write, t.input_tokens + t.cache_read_input_tokens + t.cache_creation_input_tokens, t.output_tokens, cost, t.cost_usd))


def assembler_aborted(executor: StreamingToolExecutor) -> tuple[MessageAssembler, StreamingToolExecutor]:
    """An empty response for a run aborted between attempts (nothing of it is stored)."""
    noop = lambda *a: None  # noqa: E731
    return MessageAssembler(noop, noop, noop), executor
