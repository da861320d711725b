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
  every tool without a real result gets an is_error "interrupted" result, with partial output. Every
  tracked call ends with exactly one result whatever state the abort finds it in (preparing, waiting
  for an answer, queued, a task not yet started, running); once the run is aborted, waiting for the
  results takes at most the process-kill grace and a little more.

One call's preparation and run live in `tool_call.py`; here: intake, the queue, lanes and results.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Callable

from pydantic import ValidationError

from ..tools import processes
from ..tools.registry import ToolRegistry
from ..tools.validation import format_validation_error, tool_use_error
from .abort import AbortSignal
from .events import Event, ToolFinished, ToolQueued, ToolStarted, ToolStatus
from .permission_types import AskHandler, PermissionPolicy
from .results import ResultStore, ToolResultBlock
from .tool_call import (  # noqa: F401  (INTERRUPTED, REJECTED, SHELL_TOOLS: re-exported)
    DONE,
    INTERRUPTED,
    PREPARING,
    QUEUED,
    REJECTED,
    RUNNING,
    SHELL_TOOLS,
    ToolCallRunner,
    TrackedTool,
    output_so_far,
    summarize,
)
from ..tools.base import ToolContext

DEFAULT_MAX_CONCURRENCY = 10
# After an abort, a tool that has not reported within the kill grace plus this is ended for it.
ABORT_SLACK_S = 0.1


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
        on_result: Callable[[TrackedTool], None] | None = None,
    ) -> None:
        self._registry = registry
        self._on_result = on_result
        """Each call's result the moment it is final (the transcript writes it ahead of everything)."""
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
        self._aborted_at: float | None = None
        self._remove_abort = signal.on_abort(self._on_run_abort)
        self._calls = ToolCallRunner(
            policy=policy, ask=ask, context=context, emit=emit, denials=denials, clock=clock,
            finish=self._finish, ready=self._ready, interrupted=self._finish_interrupted,
            on_failed_shell=self._cancel_shell_siblings,
        )

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
            try:
                tracked.read_only = bool(tool.is_read_only(tracked.input))
            except Exception:
                tracked.read_only = False
        summary = summarize(tracked)
        self._emit(ToolQueued(tracked.id, name, raw, summary, tracked.safe, tracked.t_queued))

        if error is not None:
            self._finish(tracked, tool_use_error(error), is_error=True, status="error")
            return
        if self._signal.aborted:
            self._finish_interrupted(tracked)
            return
        self._track_task(tracked, self._calls.prepare(tracked))
        tracked.signal.on_abort(lambda _reason, t=tracked: self._stop(t))

    def _track_task(self, tracked: TrackedTool, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        tracked.task = task
        task.add_done_callback(lambda _t, t=tracked, task=task: self._task_ended(t, task))

    def _task_ended(self, tracked: TrackedTool, task: asyncio.Task[None]) -> None:
        """A task cancelled before its first step never ran its own handler: end its call here."""
        if tracked.task is task and tracked.state in (PREPARING, RUNNING):
            self._finish_interrupted(tracked)

    def _ready(self, tracked: TrackedTool) -> None:
        """Allowed and checked: the call waits for a lane (or ends at once if the run was aborted)."""
        if tracked.state == DONE:  # given up on while its check ignored the cancel
            return
        tracked.task = None
        tracked.state = QUEUED
        if self._signal.aborted or tracked.signal.aborted:
            self._finish_interrupted(tracked)
            return
        self._process_queue()

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
        tracked.ran = True
        tracked.t_start = self._clock()
        self._emit(ToolStarted(tracked.id, tracked.name, lane, tracked.t_start))
        self._track_task(tracked, self._calls.run(tracked))

    def _cancel_shell_siblings(self, failed: TrackedTool, content: Any) -> None:
        first = str(content).strip().splitlines()
        why = first[-1] if first else "it failed"
        reason = f"Cancelled: parallel shell command `{summarize(failed)}` failed ({why[:200]})"
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
        if self._on_result is not None:
            self._on_result(tracked)
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
        # A lane freed, or a barrier gone: a call that ends without running (refused, its check failed) may
        # have been the unsafe one waiting for its answer that held back the unsafe calls behind it.
        self._process_queue()

    def _finish_interrupted(self, tracked: TrackedTool) -> None:
        reason = tracked.signal.reason or self._signal.reason or INTERRUPTED
        if reason == "interrupted by user":
            reason = INTERRUPTED
        if tracked.state == RUNNING:
            elapsed = self._clock() - tracked.t_start
            text = f"{reason} after {elapsed:.1f}s"
            # Whatever ended it (ESC, its lane's cancel, a failed shell sibling, given up on after the grace).
            partial = output_so_far(tracked, self._ctx.services)
            if partial:
                text += "\nPartial output before it was stopped:\n" + partial
        else:
            text = f"{reason} (the tool did not run)"
        self._finish(tracked, text, is_error=True, status="cancelled")

    def _stop(self, tracked: TrackedTool) -> None:
        """Its own signal aborted (ESC, its lane's cancel, a failed shell sibling): cancel its task. A call
        that ignores the cancel is ended without it after the process-kill grace (plus a little), with the
        output it had so far; its task is left to finish on its own, and what it returns then is dropped."""
        if tracked.task is not None:
            tracked.task.cancel()
        if tracked.state in (PREPARING, RUNNING):
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:  # no loop here: the run's own deadline (_wait_all_done) still holds
                return
            loop.call_later(processes.KILL_GRACE_S + ABORT_SLACK_S, self._abandon, tracked)

    def _abandon(self, tracked: TrackedTool) -> None:
        if tracked.state in (PREPARING, RUNNING):
            self._finish_interrupted(tracked)

    def _on_run_abort(self, reason: str) -> None:
        # Children have their own callbacks (cancel their task); here: queued tools never start.
        self._aborted_at = time.monotonic()
        self._changed.set()
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
            self._finish_interrupted(tracked)  # (its end looks at the queue again)
        else:
            tracked.signal.abort(reason)
        return True

    @property
    def has_tools(self) -> bool:
        return bool(self._tools)

    def running_ids(self) -> list[str]:
        return [t.id for t in self._tools if t.state == RUNNING]

    def started_effects(self) -> bool:
        """A call that may have changed the world was started (anything but a safe read-only one)."""
        return any(t.ran and t.has_effects for t in self._tools)

    async def _wait_all_done(self) -> None:
        """Until every call has its result. Once the run is aborted, a call that has not reported
        within the process-kill grace (plus a little) is ended here: the loop never hangs on it."""
        while self._done < len(self._tools):
            self._changed.clear()
            if self._aborted_at is None:
                await self._changed.wait()
                continue
            left = self._aborted_at + processes.KILL_GRACE_S + ABORT_SLACK_S - time.monotonic()  # read now: tests may lengthen it
            if left <= 0:
                for tracked in self._tools:
                    if tracked.state != DONE:
                        self._finish_interrupted(tracked)
                return
            try:
                await asyncio.wait_for(self._changed.wait(), left)
            except asyncio.TimeoutError:
                pass

    async def get_remaining_results(self) -> list[ToolResultBlock]:
        """Wait for every tool to have its result; then the results in tool_use order, budget applied."""
        await self._wait_all_done()
        self._remove_abort()
        return self._results.apply_budget([t.result for t in self._tools if t.result is not None])

    async def discard(self, reason: str) -> None:
        """The response this executor served is dropped: stop its tools (each still gets its final
        state, so every lane ends) and forget their results."""
        if self._aborted_at is None:
            self._aborted_at = time.monotonic()
        for tracked in self._tools:
            if tracked.state != DONE:
                tracked.signal.abort(reason)
                if tracked.state == QUEUED:
                    self._finish_interrupted(tracked)
        self._changed.set()
        await self._wait_all_done()
        self._remove_abort()
