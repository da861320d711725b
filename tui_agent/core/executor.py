"""The streaming tool executor: tools start the moment their block is complete, in lanes, in order.

Rules (DESIGN §1.5-1.9, §2):
- `add_tool` is called at `content_block_stop`, while the model still streams. Unknown tools and
  invalid input get their error result at once; otherwise the business check and the permission
  decision run in a small task, so a tool waiting for the user holds up neither the stream nor the
  safe tools beside it.
- A tool may start when nothing runs, or when it and everything running are concurrency-safe. Queue
  order is kept: a ready unsafe tool that cannot start is a barrier for every tool behind it; an unsafe
  tool still waiting for its answer is a barrier for the unsafe tools behind it. At most
  `max_concurrency` run at once; each holds a lane (the smallest free slot).
- Results come back in tool_use order; progress is emitted as it happens.
- A failing shell command cancels its running shell siblings; other failures stay alone.
- Abort (the run's signal, or one tool's own child signal) cancels what runs, starts nothing more, and
  every tool without a real result gets an is_error "interrupted" result, with partial output.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable

from pydantic import ValidationError

from ..tools.base import Tool, ToolContext, ToolError, ToolOutput
from ..tools.registry import ToolRegistry
from ..tools.validation import format_validation_error, tool_use_error
from .abort import AbortSignal
from .events import (
    Event,
    PermissionAnswered,
    PermissionAsked,
    ToolFinished,
    ToolProgress,
    ToolQueued,
    ToolStarted,
    ToolStatus,
)
from .permission_types import (
    AskHandler,
    PermissionAnswer,
    PermissionCheck,
    PermissionDecision,
    PermissionPolicy,
    PermissionRequest,
)
from .results import ResultStore, ToolResultBlock

DEFAULT_MAX_CONCURRENCY = 10
PARTIAL_OUTPUT_KEEP = 4_000
SHELL_TOOLS = frozenset({"Bash"})

INTERRUPTED = "Interrupted by user"
REJECTED = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected "
    "(eg. if it was a file edit, the new_string was NOT written to the file)."
)

# States a tracked tool moves through.
PREPARING, QUEUED, RUNNING, DONE = "preparing", "queued", "running", "done"


@dataclass(slots=True, eq=False)
class TrackedTool:
    index: int
    block: dict[str, Any]
    tool: Tool[Any] | None
    input: Any
    safe: bool
    signal: AbortSignal
    state: str = PREPARING
    lane: int = -1
    t_queued: float = 0.0
    t_start: float = 0.0
    t_end: float = 0.0
    task: asyncio.Task[None] | None = None
    result: ToolResultBlock | None = None
    status: ToolStatus = "ok"
    data: Any = None
    partial: list[str] = field(default_factory=list)
    partial_len: int = 0

    @property
    def id(self) -> str:
        return str(self.block.get("id", ""))

    @property
    def name(self) -> str:
        return str(self.block.get("name", ""))


class StreamingToolExecutor:
    def __init__(
        self,
        *,
        registry: ToolRegistry,
        policy: PermissionPolicy,
        ask: AskHandler | None,
        context: ToolContext,
        results: ResultStore,
        emit: Callable[[Event], None],
        signal: AbortSignal,
        denials: list[dict[str, Any]],
        max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._registry = registry
        self._policy = policy
        self._ask = ask
        self._ctx = context
        self._results = results
        self._emit = emit
        self._signal = signal
        self._denials = denials
        self._max = max(1, max_concurrency)
        self._clock = clock
        self._tools: list[TrackedTool] = []
        self._by_id: dict[str, TrackedTool] = {}
        self._lanes: set[int] = set()
        self._running = 0
        self._running_unsafe = 0
        self._done = 0
        # Tools before this index are all done: the queue scan starts here (keeps 1,000 calls linear).
        self._scan_from = 0
        self._changed = asyncio.Event()
        self._remove_abort = signal.on_abort(self._on_run_abort)

    # ----- intake ---------------------------------------------------------------------------
    def add_tool(self, block: dict[str, Any], parse_error: str | None = None) -> None:
        """Take one complete tool_use block (called from the stream, at content_block_stop)."""
        name = str(block.get("name", ""))
        raw = block.get("input") or {}
        tool = self._registry.find(name)
        tracked = TrackedTool(len(self._tools), block, tool, None, False, self._signal.child())
        tracked.t_queued = self._clock()
        self._tools.append(tracked)
        self._by_id[tracked.id] = tracked

        error: str | None = None
        if tool is None:
            error = f"Error: No such tool available: {name}"
        elif parse_error:
            error = parse_error
        else:
            try:
                tracked.input = tool.Input.model_validate(raw)
            except ValidationError as exc:
                error = format_validation_error(name, exc)
        if tool is not None and tracked.input is not None:
            try:
                tracked.safe = bool(tool.is_concurrency_safe(tracked.input))
            except Exception:
                tracked.safe = False  # a check that fails means unsafe
        summary = self._summary(tracked)
        self._emit(ToolQueued(tracked.id, name, raw, summary, tracked.safe, tracked.t_queued))

        if error is not None:
            self._finish(tracked, tool_use_error(error), is_error=True, status="error")
            return
        if self._signal.aborted:
            self._finish_interrupted(tracked)
            return
        tracked.task = asyncio.get_running_loop().create_task(self._prepare(tracked))
        tracked.signal.on_abort(lambda _reason, t=tracked: t.task.cancel() if t.task else None)

    def _summary(self, tracked: TrackedTool) -> str:
        if tracked.tool is None or tracked.input is None:
            return ""
        try:
            return tracked.tool.summarize(tracked.input)
        except Exception:
            return ""

    # ----- validation + permission ----------------------------------------------------------
    async def _prepare(self, tracked: TrackedTool) -> None:
        tool, inp = tracked.tool, tracked.input
        assert tool is not None
        try:
            problem = await tool.validate_input(inp, self._ctx)
            if problem:
                self._finish(tracked, tool_use_error(problem), is_error=True, status="error")
                return
            try:
                read_only = bool(tool.is_read_only(inp))
            except Exception:
                read_only = False
            check = PermissionCheck(tool, inp, tracked.block.get("input") or {}, tracked.id, self._ctx.workspace, read_only)
            decision = await self._policy.decide(check)
            if decision.behavior == "deny":
                self._deny(tracked, decision.message or f"Permission to use {tool.name} has been denied.")
                return
            if decision.behavior == "ask":
                allowed = await self._ask_user(tracked, read_only, decision)
                if not allowed:
                    return
        except asyncio.CancelledError:
            self._finish_interrupted(tracked)
            return
        except Exception as exc:  # a broken check must not crash the loop
            self._finish(tracked, tool_use_error(f"Error: {type(exc).__name__}: {exc}"), is_error=True, status="error")
            return
        tracked.task = None
        tracked.state = QUEUED
        self._process_queue()

    async def _ask_user(self, tracked: TrackedTool, read_only: bool, decision: PermissionDecision) -> bool:
        tool = tracked.tool
        assert tool is not None
        try:
            diff = await tool.describe_change(tracked.input, self._ctx)
        except Exception:
            diff = None
        request = PermissionRequest(
            id=uuid.uuid4().hex[:12],
            tool_use_id=tracked.id,
            tool_name=tool.name,
            input=tracked.block.get("input") or {},
            summary=self._summary(tracked),
            read_only=read_only,
            reason=decision.message,
            diff=diff,
            suggestions=decision.suggestions,
            grants=decision.grants,
        )
        self._emit(PermissionAsked(request.id, tracked.id, tool.name, request.summary, self._clock()))
        if self._ask is None:
            answer = PermissionAnswer("deny")
            message = (
                f"Permission to use {tool.name} was not granted: no one can be asked in this mode. "
                "Allow it with --allowedTools or --permission-mode."
            )
        else:
            answer = await self._ask(request)
            message = REJECTED + (f"\nThe user said:\n{answer.words}" if answer.words else "")
        remember = getattr(self._policy, "remember", None)
        if remember is not None:
            try:
                remember(request, answer)
            except Exception as exc:  # e.g. settings file not writable: still honour this answer
                from .events import Notice

                self._emit(Notice("error", f"Could not save the permission rule: {exc}"))
        self._emit(PermissionAnswered(request.id, tracked.id, answer.allowed, answer.words))
        if not answer.allowed:
            self._deny(tracked, message, words=answer.words)
            return False
        return True

    def _deny(self, tracked: TrackedTool, message: str, words: str = "") -> None:
        self._denials.append({"tool_name": tracked.name, "tool_use_id": tracked.id, "tool_input": tracked.block.get("input") or {}})
        tracked.data = {"type": "denied", "words": words}
        self._finish(tracked, message, is_error=True, status="denied")

    # ----- scheduling -----------------------------------------------------------------------
    def _process_queue(self) -> None:
        if self._signal.aborted:
            return
        unsafe_pending = False  # an unsafe tool still waiting for its answer
        tools = self._tools
        while self._scan_from < len(tools) and tools[self._scan_from].state == DONE:
            self._scan_from += 1
        for i in range(self._scan_from, len(tools)):
            if self._running >= self._max:
                break  # nothing more can start until a lane frees
            tracked = tools[i]
            state = tracked.state
            if state in (DONE, RUNNING):
                continue
            if state == PREPARING:
                if not tracked.safe:
                    unsafe_pending = True
                continue
            # QUEUED
            if not tracked.safe and unsafe_pending:
                break
            if self._can_start(tracked.safe):
                self._start(tracked)
            elif not tracked.safe:
                break  # an unsafe tool is a barrier: everything behind it waits for it

    def _can_start(self, safe: bool) -> bool:
        if self._running >= self._max:
            return False
        if self._running == 0:
            return True
        return safe and self._running_unsafe == 0

    def _start(self, tracked: TrackedTool) -> None:
        lane = 0
        while lane in self._lanes:
            lane += 1
        self._lanes.add(lane)
        self._running += 1
        self._running_unsafe += not tracked.safe
        tracked.lane = lane
        tracked.state = RUNNING
        tracked.t_start = self._clock()
        self._emit(ToolStarted(tracked.id, tracked.name, lane, tracked.t_start))
        tracked.task = asyncio.get_running_loop().create_task(self._run(tracked))

    async def _run(self, tracked: TrackedTool) -> None:
        tool = tracked.tool
        assert tool is not None

        def progress(text: str, t: TrackedTool = tracked) -> None:
            if t.partial_len < PARTIAL_OUTPUT_KEEP * 4:
                t.partial.append(text)
                t.partial_len += len(text)
            self._emit(ToolProgress(t.id, text))

        ctx = self._ctx.for_call(tracked.id, progress)
        try:
            output = await tool.call(tracked.input, ctx)
        except asyncio.CancelledError:
            self._finish_interrupted(tracked)
            return
        except ToolError as exc:
            output = ToolOutput(str(exc), is_error=True)
        except Exception as exc:
            output = ToolOutput(f"Error: {type(exc).__name__}: {exc}", is_error=True)
        if tracked.signal.aborted and tracked.state != DONE:
            self._finish_interrupted(tracked)
            return
        tracked.data = output.data
        self._finish(
            tracked,
            output.content,
            is_error=output.is_error,
            status="error" if output.is_error else "ok",
            max_size=tool.max_result_size_chars,
            full_output_path=output.full_output_path,
        )
        if output.is_error and tracked.name in SHELL_TOOLS:
            self._cancel_shell_siblings(tracked, output.content)

    def _cancel_shell_siblings(self, failed: TrackedTool, content: Any) -> None:
        first = str(content).strip().splitlines()
        why = first[-1] if first else "it failed"
        reason = f"Cancelled: parallel shell command `{self._summary(failed)}` failed ({why[:200]})"
        for other in self._tools:
            if other is not failed and other.state == RUNNING and other.name in SHELL_TOOLS:
                other.signal.abort(reason)

    # ----- results --------------------------------------------------------------------------
    def _finish(
        self,
        tracked: TrackedTool,
        content: Any,
        *,
        is_error: bool,
        status: ToolStatus,
        max_size: int | None = None,
        full_output_path: Any = None,
    ) -> None:
        if tracked.state == DONE:
            return
        was_running = tracked.state == RUNNING
        tracked.state = DONE
        tracked.status = status
        tracked.t_end = self._clock()
        if not was_running:
            tracked.t_start = tracked.t_start or tracked.t_end
        tracked.result = self._results.shape(
            tracked.name,
            tracked.id,
            content,
            is_error,
            max_size if max_size is not None else (tracked.tool.max_result_size_chars if tracked.tool else 100_000),
            full_output_path,
        )
        tracked.signal.detach()
        self._done += 1
        if was_running:
            self._lanes.discard(tracked.lane)
            self._running -= 1
            self._running_unsafe -= not tracked.safe
        preview = tracked.result.content if isinstance(tracked.result.content, str) else "[non-text result]"
        self._emit(
            ToolFinished(
                tracked.id,
                tracked.name,
                status,
                tracked.lane if was_running else -1,
                tracked.t_start,
                tracked.t_end,
                preview[:2000],
                is_error,
                tracked.data,
            )
        )
        self._changed.set()
        if was_running:
            self._process_queue()

    def _finish_interrupted(self, tracked: TrackedTool) -> None:
        reason = tracked.signal.reason or self._signal.reason or INTERRUPTED
        if reason == "interrupted by user":
            reason = INTERRUPTED
        if tracked.state == RUNNING:
            elapsed = self._clock() - tracked.t_start
            text = f"{reason} after {elapsed:.1f}s"
            # A tool may leave its own record of what it printed (Bash keeps its whole captured output).
            kept = self._ctx.services.get("partial_output", {}).pop(tracked.id, None)
            partial = kept if kept is not None else "".join(tracked.partial)
            if partial.strip():
                text += "\nPartial output before it was stopped:\n" + partial[-PARTIAL_OUTPUT_KEEP:]
        else:
            text = f"{reason} (the tool did not run)"
        self._finish(tracked, text, is_error=True, status="cancelled")

    def _on_run_abort(self, reason: str) -> None:
        # Children have their own callbacks (cancel their task); here: queued tools never start.
        for tracked in self._tools:
            if tracked.state == QUEUED:
                self._finish_interrupted(tracked)

    def cancel_tool(self, tool_use_id: str, reason: str = "Cancelled by user") -> bool:
        """Stop one tool alone (a lane picked in the UI). False when it is not running or waiting."""
        tracked = self._by_id.get(tool_use_id)
        if tracked is None or tracked.state == DONE:
            return False
        if tracked.state == QUEUED:
            tracked.signal.abort(reason)
            self._finish_interrupted(tracked)
            self._process_queue()
        else:
            tracked.signal.abort(reason)
        return True

    @property
    def has_tools(self) -> bool:
        return bool(self._tools)

    def running_ids(self) -> list[str]:
        return [t.id for t in self._tools if t.state == RUNNING]

    async def get_remaining_results(self) -> list[ToolResultBlock]:
        """Wait for every tool to have its result; then the results in tool_use order, budget applied."""
        while self._done < len(self._tools):
            self._changed.clear()
            await self._changed.wait()
        self._remove_abort()
        return self._results.apply_budget([t.result for t in self._tools if t.result is not None])

    async def discard(self, reason: str) -> None:
        """The stream this executor served failed and will be retried: stop its tools, drop results."""
        for tracked in self._tools:
            if tracked.state != DONE:
                tracked.signal.abort(reason)
                if tracked.state == QUEUED:
                    self._finish_interrupted(tracked)
        tasks = [t.task for t in self._tools if t.task is not None and not t.task.done()]
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        self._remove_abort()
