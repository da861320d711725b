"""The tool-calling loop: ask the model, run the tools it asks for, send the results, until it stops.

Invariants (DESIGN §1):
- the model is stateless: every request carries the whole history; the assistant message is stored
  whole, in order (text, thinking and tool_use blocks, tool input exactly as received);
- the only signal to continue is "this response contained a tool_use block" (stop reasons only say
  what to do with a cut or paused response: `stop_reasons.py`);
- every tool_use gets exactly one tool_result, all in ONE user message, in tool_use order, also after
  denials, errors and aborts (`history.results_message`);
- a response that fails midway is never half-applied: `attempt.py` discards and retries it, or keeps
  its complete blocks when tools with effects already ran;
- the loop always ends with an explicit reason (LoopEnded), never silently.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any, Callable

from ..tools.base import ToolContext, Workspace, FileReadState
from ..tools.file_watch import close_file_watcher
from ..tools.plan_mode import POLICY_SERVICE
from ..tools.registry import ToolRegistry
from ..tools.validation import tool_use_error
from .abort import AbortSignal
from .accounting import Totals
from .attempt import CUT_NOTE, Response, ResponseStreamer
from .context.manager import ContextManager
from .events import (
    AssistantMessageFinished,
    CompactionFinished,
    ContextUpdated,
    EndReason,
    Event,
    LoopEnded,
    Notice,
    RunStarted,
    ToolResultsSent,
    TurnStarted,
)
from .executor import DEFAULT_MAX_CONCURRENCY, StreamingToolExecutor, TrackedTool, summarize
from .hook_points import prompt_submitted, session_end, session_start, stop_requested_continuation, take_stop
from .history import INTERRUPT_NOTE, last_text, normalize_for_api, repair_message, results_message
from .model import MessageAssembler, ModelClient
from .permission_types import AskHandler, PermissionPolicy
from .results import DEFAULT_MESSAGE_BUDGET, ResultStore
from .session import Session
from .session.memory_context import ProjectMemory
from .access import SERVICE_KEY as ACCESS_KEY, ReadGate
from .model_usage import agent_model_usage
from .structured_output import structured_step, take_structured_output
from .system_prompt import prepare as prepare_system_prompt, system_blocks_for
from .stop_reasons import RESUME_PROMPT, SPLIT_THE_WORK, StopReasons, Verdict
from .thinking import ThinkingState, apply_thinking

__all__ = ["Agent", "LoopOptions", "Totals", "INTERRUPT_NOTE", "normalize_for_api", "last_text"]

DEFAULT_MAX_TURNS = 50


@dataclass(slots=True)
class LoopOptions:
    max_turns: int = DEFAULT_MAX_TURNS
    max_budget_usd: float | None = None
    system_prompt: str | None = None
    append_system_prompt: str | None = None
    max_concurrency: int = DEFAULT_MAX_CONCURRENCY
    message_budget: int = DEFAULT_MESSAGE_BUDGET


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
        memory: ProjectMemory | None = None,
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
        self.memory = memory
        """Project memory (CLAUDE.md...): a reminder in each request's first message, subdirectories' after tools."""
        self.history: list[dict[str, Any]] = []
        self.totals = Totals()
        self.num_requests = 0
        self.denials: list[dict[str, Any]] = []
        self.results = ResultStore(session.dir, self.options.message_budget)
        self.context = ToolContext(workspace, session.dir, FileReadState())
        # THE gate (core/access.py): every read for the model outside the tools asks it.
        self.context.services[ACCESS_KEY] = ReadGate(lambda: self.context.workspace, policy)  # type: ignore[arg-type]
        self.context.services[POLICY_SERVICE] = policy  # EnterPlanMode / ExitPlanMode switch its mode (tools/plan_mode.py)
        self._system: list[dict[str, Any]] | None = None
        self._signal: AbortSignal | None = None
        self._executor: StreamingToolExecutor | None = None
        self._transcript_error = False
        self.thinking = ThinkingState()
        """Extended thinking: the flags' choice, switched by the app's toggle for the next run."""
        self.context_manager = ContextManager(self)
        """Token accounting against the model's window; compaction and pruning (core/context)."""

    # ----- commands from the UI / headless driver --------------------------------------------
    def abort(self, reason: str = "interrupted by user") -> None:
        if self._signal is not None:
            self._signal.abort(reason)

    @property
    def running(self) -> bool:
        return self._signal is not None and not self._signal.aborted

    async def close(self, reason: str = "other") -> None:
        """End the session: background shells die with it, the client and transcript close. `reason` is
        SessionEnd's (Claude Code's: "clear", "logout", "prompt_input_exit", "other")."""
        await session_end(self, reason)
        shells = self.context.services.get("background_shells")
        if shells is not None:
            await shells.close_all()
        close_file_watcher(self.context)
        mcp = self.context.services.get("mcp")
        if mcp is not None:  # MCP servers stop with the session, with everything they started
            await mcp.close()
        sandbox = self.context.services.get("sandbox")
        if sandbox is not None:  # its network proxy, if it started one
            await sandbox.close()
        stop_watching = getattr(self.policy, "stop_watching", None)
        if stop_watching is not None:
            await stop_watching()
        await self.model.close()
        self.session.close()

    def context_size(self) -> ContextUpdated:
        """How full the context is now (tokens), without a request."""
        return self.context_manager.size()

    async def compact(self, instructions: str = "") -> CompactionFinished:
        """/compact [instructions]: summarise the conversation now (abort() stops it; nothing changes then)."""
        return await self.context_manager.compact_now(instructions)

    def cancel_tool(self, tool_use_id: str, reason: str = "Cancelled by user") -> bool:
        return self._executor.cancel_tool(tool_use_id, reason) if self._executor else False

    # ----- history -----------------------------------------------------------------------------
    def _append(self, message: dict[str, Any], meta: dict[str, Any] | None = None) -> None:
        self.history.append(message)
        self.session.append(message["role"], message=message, meta=meta)

    def record(self, message: dict[str, Any]) -> None:
        """Add a message to the history without a run (a `!` command the model should not answer)."""
        self._append(message)

    def system_blocks(self) -> list[dict[str, Any]]:
        # Built once per session: a system prompt that changed (the date at midnight) would break the
        # prompt cache on every later request.
        if self._system is None:
            # core/system_prompt.py: ours, an output style, --system-prompt / --append-system-prompt ("" = none).
            self._system = system_blocks_for(self)
        return self._system

    def build_request(self, history: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        """The request for `history` (the agent's own by default; a compaction sends its own)."""
        request: dict[str, Any] = {
            "model": self.model.config.model,
            "max_tokens": self.model.config.max_tokens,
            "messages": normalize_for_api(self.history if history is None else history),
        }
        if self.system_blocks():
            request["system"] = self.system_blocks()
        if self.memory is not None:
            self.memory.prepend(request["messages"])
        tools = self.registry.api_definitions()
        if tools:
            request["tools"] = tools
        ceiling = self.model.limits.ceiling(request["model"])  # thinking sized within the model's maximum
        return self.registry.decorate_request(apply_thinking(request, self.thinking.active, ceiling))

    def _repair_history(self, why: str) -> None:
        """Give every tool_use of the last assistant message a result (after an unexpected failure);
        a result already on disk (the tool ended) is the one kept."""
        message = repair_message(self.history, why, self.session.result_written)
        if message is not None:
            self._append(message)

    def _new_executor(self) -> StreamingToolExecutor:
        assert self._signal is not None
        return StreamingToolExecutor(
            registry=self.registry,
            policy=self.policy,
            ask=self.ask,
            context=self.context,
            results=self.results,
            emit=self.emit,
            signal=self._signal,
            denials=self.denials,
            max_concurrency=self.options.max_concurrency,
            clock=self.clock,
            on_result=self._result_written,
        )

    def _write_ahead(self, assembler: MessageAssembler, block: dict[str, Any]) -> None:
        """A complete block, on disk before anything acts on it (DESIGN §7: write-ahead)."""
        try:
            self.session.assistant_block(block, {"id": assembler.message_id, "model": assembler.model, "usage": dict(assembler.usage)})
        except OSError as exc:
            self._transcript_failed(exc)

    def _result_written(self, tracked: TrackedTool) -> None:
        """A tool's result, on disk the moment the tool ends (with what the screen showed of it)."""
        assert tracked.result is not None
        info: dict[str, Any] = {"status": tracked.status, "durationMs": int(max(0.0, tracked.t_end - tracked.t_start) * 1000), "ran": tracked.ran}
        summary = summarize(tracked)
        if summary:
            info["summary"] = summary
        if tracked.data is not None:
            info["data"] = tracked.data
        try:
            self.session.tool_result(tracked.result.to_api(), info)
        except OSError as exc:
            self._transcript_failed(exc)

    def _transcript_failed(self, exc: OSError) -> None:
        """The disk refused a line (full, gone): say so once; the run goes on, the history stays whole."""
        if not self._transcript_error:
            self._transcript_error = True
            self.emit(Notice("error", f"The transcript could not be written ({exc.strerror or exc}); this session may not resume completely."))

    def _set_executor(self, executor: StreamingToolExecutor | None) -> None:
        self._executor = executor

    # ----- the loop --------------------------------------------------------------------------
    async def run(self, prompt: str | list[dict[str, Any]], signal: AbortSignal | None = None) -> LoopEnded:
        """`signal`: a child of another run's signal (a subagent), so that run's ESC stops this one."""
        signal = signal if signal is not None else AbortSignal()
        self._signal = signal
        self.thinking.begin_run()
        started = self.clock()
        api_seconds = 0.0
        turns = 0
        streamer = ResponseStreamer(self.model, self._new_executor, self.emit, self._set_executor, self._write_ahead, self.session.drop_response)
        stops = StopReasons(self.model.config.model, self.model.config.max_tokens, self.model.limits.ceiling(self.model.config.model))
        self.emit(RunStarted(self.session.id, self.model.config.model, prompt if isinstance(prompt, str) else "", self.registry.names, str(self.workspace.root), self.demo))

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
                structured_output=take_structured_output(self),
                model_usage=agent_model_usage(self),
            )
            self.session.append("result", data={"reason": reason, "detail": detail, "num_turns": turns, "total_cost_usd": self.totals.cost_usd})
            self._signal = None
            self._executor = None
            self.emit(ended)
            return ended

        await prepare_system_prompt(self)  # the environment's git facts, gathered once, off the first frame's path
        prompt = await session_start(self, prompt, signal=signal)  # SessionStart hooks (once per session): their context joins the prompt
        prompt, refused = await prompt_submitted(self, prompt, signal)  # UserPromptSubmit may block it or add context
        if refused is not None:
            return end("aborted", refused)
        self._append({"role": "user", "content": prompt})
        stop_rounds = 0
        try:
            while True:
                if turns >= self.options.max_turns:
                    return end("max_turns", f"Reached the maximum number of turns ({self.options.max_turns}).")
                stop = await self.context_manager.before_request(signal)
                if stop is not None:
                    return end(*stop)
                turns += 1
                self.num_requests += 1
                self.emit(TurnStarted(turns))
                request = self.build_request()
                raised = stops.max_tokens_override()
                if raised is not None:
                    request["max_tokens"] = raised
                t_api = self.clock()
                response = await streamer.respond(request, signal)
                api_seconds += self.clock() - t_api
                if response.error is not None:
                    self.session.drop_response()
                    stop = await self.context_manager.after_error(response.error, request, signal)
                    if stop is None:
                        continue  # recovered (the oldest part compacted): the request goes again
                    return end(*stop)
                verdict = self._judge(stops, response, signal)
                if verdict.action == "retry_raised":
                    # The cut response is not kept: nothing of it ran with effects (judged above).
                    assert response.executor is not None
                    self._account(response)
                    await response.executor.discard("The response was cut off at the output token limit and is being retried.")
                    self.session.drop_response()
                    self._executor = None
                    if not signal.aborted:
                        continue
                    self._append({"role": "user", "content": [{"type": "text", "text": INTERRUPT_NOTE}]})
                    return end("aborted", f"{(signal.reason or 'interrupted by user').capitalize()}.")
                message = {"role": "assistant", "content": response.content()}
                if message["content"]:
                    self._append(message, response.meta())
                    a = response.assembler
                    self.emit(AssistantMessageFinished(message, a.stop_reason, a.message_id, a.model, dict(a.usage)))
                else:
                    self.session.drop_response()  # nothing of it stands (thinking alone, cut before a block)
                self._account(response)
                has_tools = await self._answer(message, response, verdict, signal)
                self._executor = None

                if signal.aborted:
                    reason = (signal.reason or "interrupted by user").capitalize()
                    return end("aborted", f"{reason}.", last_text(message))
                if (hook_stop := take_stop(self.context.services)) is not None:  # a hook's `continue: false`
                    return end("completed", hook_stop, stops.joined(last_text(message)))
                if verdict.action == "end":
                    return end(verdict.reason, verdict.detail, stops.joined(last_text(message)))  # type: ignore[arg-type]
                if verdict.action in ("resume_text", "pause"):
                    continue
                if (structured := structured_step(self, has_tools)) is not None:  # --json-schema (core/structured_output.py)
                    if structured == "continue":
                        continue
                    return end(*structured)  # type: ignore[arg-type]
                if not has_tools:
                    more = await stop_requested_continuation(self, last_text(message), stop_rounds, signal)  # Stop hooks
                    if signal.aborted:
                        return end("aborted", f"{(signal.reason or 'interrupted by user').capitalize()}.", last_text(message))
                    if more is None:
                        return end("completed", "", stops.joined(last_text(message)))
                    stop_rounds += 1  # a Stop hook blocked: the conversation goes on with its reason
                    self._append({"role": "user", "content": [{"type": "text", "text": more}]})
                    continue
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

    def _judge(self, stops: StopReasons, response: Response, signal: AbortSignal) -> Verdict:
        """What the response's stop reason asks for (nothing, once the run is aborted); recorded."""
        if response.cut_by:
            self.session.append("system", data={"subtype": "response_cut", "detail": response.cut_by, "kept": True})
        if signal.aborted or response.cut_by:
            return Verdict("go_on")
        executor = response.executor
        verdict = stops.judge(
            response.assembler.stop_reason,
            response.content(),
            response.assembler.cut_tool_use(),
            discardable=executor is None or not executor.started_effects(),
        )
        if verdict.action != "go_on":
            self.session.append("system", data={**verdict.record, "stop_reason": response.assembler.stop_reason})
            if verdict.detail and verdict.action != "end":
                self.emit(Notice("warning", verdict.detail))
        return verdict

    async def _answer(self, message: dict[str, Any], response: Response, verdict: Verdict, signal: AbortSignal) -> bool:
        """Append the user message that answers `message`: its tools' results (each tool_use exactly
        once), then notes. True when the message had tool calls."""
        executor = response.executor
        stored = bool(message["content"])
        has_tools = stored and any(b.get("type") == "tool_use" for b in message["content"])
        results: list[dict[str, Any]] = []
        if executor is not None and executor.has_tools:
            results = [r.to_api() for r in await executor.get_remaining_results()]
        # A subdirectory's memory, loaded by this turn's file tools, comes right after the results.
        notes: list[str] = self.memory.after_tools(message, results) if self.memory is not None and has_tools else []
        if verdict.action == "answer_cut_tool":
            if verdict.cut_tool_id is not None:
                results = [r for r in results if r.get("tool_use_id") != verdict.cut_tool_id]
                results.append({"type": "tool_result", "tool_use_id": verdict.cut_tool_id, "content": tool_use_error(SPLIT_THE_WORK), "is_error": True})
            else:
                notes.append(SPLIT_THE_WORK)
        if response.cut_by and has_tools:
            notes.append(CUT_NOTE)
        if signal.aborted:
            notes.append(INTERRUPT_NOTE)
        elif verdict.action == "resume_text" and not has_tools:
            notes.append(RESUME_PROMPT)
        if not has_tools and not notes:
            return False
        user = results_message(message if stored else None, results, notes)
        if not user["content"]:
            return has_tools
        self._append(user)
        if has_tools:
            self.emit(ToolResultsSent(user))
        return has_tools

    def _account(self, response: Response) -> None:
        assembler = response.assembler
        update = self.totals.add(assembler.model or self.model.config.model, assembler.usage)
        if update is not None:
            self.emit(update)
        self.context_manager.after_response(assembler.usage)
