"""One tool call's life: its business check and permission (`prepare`), then its run (`run`).

The executor (`executor.py`) owns the queue, the lanes and the results; this module owns what happens
to one call, and reports back through two hooks: `finish` (a final result) and `ready` (allowed, may
start). A cancelled call reports through `interrupted`; the executor also guards the case where a
task is cancelled before its first step (its coroutine never runs, so it cannot report itself).
"""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

from ..tools.base import Tool, ToolContext, ToolError, ToolOutput, ToolTimeout
from ..tools.partial_output import take_partial_output
from ..tools.validation import tool_use_error
from .abort import AbortSignal
from .events import Event, Notice, PermissionAnswered, PermissionAsked, ToolProgress, ToolStatus
from .permission_types import (
    AskHandler,
    PermissionAnswer,
    PermissionCheck,
    PermissionDecision,
    PermissionPolicy,
    PermissionRequest,
)
from .results import ToolResultBlock
from .hook_events import set_caller
from .hook_points import permission_request_hooks
from .tool_hooks import after_tool_call, revalidate_input

PARTIAL_OUTPUT_KEEP = 4_000
"""How much of a stopped call's output its result keeps: the latest part."""
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
    read_only: bool = False
    ran: bool = False
    """The call was started (a lane was taken), whatever became of it."""
    lane: int = -1
    t_queued: float = 0.0
    t_start: float = 0.0
    t_end: float = 0.0
    task: asyncio.Task[None] | None = None
    result: ToolResultBlock | None = None
    status: ToolStatus = "ok"
    data: Any = None
    partial: list[str] = field(default_factory=list)
    """The latest progress the call streamed, one line per report (at most about 2 x PARTIAL_OUTPUT_KEEP)."""
    partial_len: int = 0
    partial_dropped: int = 0
    """Characters of earlier progress no longer in `partial`."""
    ran_input: dict[str, Any] | None = None
    """The input that replaced the model's (a program's or a hook's), which is what runs and what
    PostToolUse hooks are shown."""

    @property
    def id(self) -> str:
        return str(self.block.get("id", ""))

    @property
    def name(self) -> str:
        return str(self.block.get("name", ""))

    @property
    def has_effects(self) -> bool:
        """Anything but a concurrency-safe read-only call may have changed the world."""
        return not (self.safe and self.read_only)

    def keep_progress(self, text: str) -> None:
        """Keep a progress report for a result without one of the call's own; bounded, the latest kept."""
        line = text if text.endswith("\n") else text + "\n"  # a report is a line (the lanes show it so)
        self.partial.append(line)
        self.partial_len += len(line)
        if self.partial_len > 2 * PARTIAL_OUTPUT_KEEP:  # trim in batches: amortised O(1) per character
            joined = "".join(self.partial)
            cut = len(joined) - PARTIAL_OUTPUT_KEEP
            self.partial, self.partial_len = [joined[cut:]], PARTIAL_OUTPUT_KEEP
            self.partial_dropped += cut


def output_so_far(tracked: TrackedTool, services: dict[str, Any]) -> str:
    """What a call printed before it ended without a result of its own, its latest part ("" if nothing): a
    shell call's own capture when it keeps one (tools/partial_output.py), else the progress it streamed."""
    kept = take_partial_output(services, tracked.id)
    text, dropped = (kept, 0) if kept is not None else ("".join(tracked.partial), tracked.partial_dropped)
    if len(text) > PARTIAL_OUTPUT_KEEP:
        dropped += len(text) - PARTIAL_OUTPUT_KEEP
        text = text[-PARTIAL_OUTPUT_KEEP:]
    text = text.rstrip("\n")
    if not text.strip():
        return ""
    return f"[{dropped:,} earlier characters not shown]\n{text}" if dropped else text


def summarize(tracked: TrackedTool) -> str:
    if tracked.tool is None or tracked.input is None:
        return ""
    try:
        return tracked.tool.summarize(tracked.input)
    except Exception:
        return ""


class Finish(Protocol):
    def __call__(self, tracked: TrackedTool, content: Any, *, is_error: bool, status: ToolStatus,
                 max_size: int | None = None, full_output_path: Any = None) -> None: ...


class ToolCallRunner:
    """Prepares and runs tracked calls for one executor."""

    def __init__(
        self,
        *,
        policy: PermissionPolicy,
        ask: AskHandler | None,
        context: ToolContext,
        emit: Callable[[Event], None],
        denials: list[dict[str, Any]],
        clock: Callable[[], float],
        finish: Finish,
        ready: Callable[[TrackedTool], None],
        interrupted: Callable[[TrackedTool], None],
        on_failed_shell: Callable[[TrackedTool, Any], None],
    ) -> None:
        self._policy = policy
        self._ask = ask
        self._ctx = context
        self._emit = emit
        self._denials = denials
        self._clock = clock
        self._finish = finish
        self._ready = ready
        self._interrupted = interrupted
        self._on_failed_shell = on_failed_shell

    # ----- validation + permission ----------------------------------------------------------
    async def prepare(self, tracked: TrackedTool) -> None:
        tool, inp = tracked.tool, tracked.input
        assert tool is not None
        try:
            problem = await tool.validate_input(inp, self._ctx)
            if problem:
                self._finish(tracked, tool_use_error(problem), is_error=True, status="error")
                return
            check = PermissionCheck(tool, inp, tracked.block.get("input") or {}, tracked.id, self._ctx.workspace, tracked.read_only)
            set_caller(self._ctx.services)  # a subagent's PreToolUse hooks carry its agent_id (this task only)
            decision = await self._policy.decide(check)
            if decision.behavior == "deny":
                self._deny(tracked, decision.message or f"Permission to use {tool.name} has been denied.")
                return
            updated = decision.updated_input
            if decision.behavior == "ask":
                answer = await self._ask_user(tracked, decision)
                if answer is None:
                    return
                updated = answer.updated_input if answer.updated_input is not None else updated
            if updated is not None and updated != check.raw_input:
                tracked.input, problem = await revalidate_input(tool, updated, self._ctx)
                tracked.ran_input = updated
                if problem:
                    self._finish(tracked, tool_use_error(problem), is_error=True, status="error")
                    return
        except asyncio.CancelledError:
            self._interrupted(tracked)
            return
        except Exception as exc:  # a broken check must not crash the loop
            self._finish(tracked, tool_use_error(f"Error: {type(exc).__name__}: {exc}"), is_error=True, status="error")
            return
        self._ready(tracked)

    async def _ask_user(self, tracked: TrackedTool, decision: PermissionDecision) -> PermissionAnswer | None:
        """The answer when allowed; None when denied (the call is finished then)."""
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
            summary=summarize(tracked),
            read_only=tracked.read_only,
            reason=decision.message,
            diff=diff,
            suggestions=decision.suggestions,
            grants=decision.grants,
        )
        hooked = await permission_request_hooks(self._ctx.services, request) if self._ask is not None else None
        self._emit(PermissionAsked(request.id, tracked.id, tool.name, request.summary, self._clock()))
        if hooked is not None:  # a PermissionRequest hook answered in the person's place
            answer, message = hooked, REJECTED + (f"\n{hooked.words}" if hooked.words else "")
        elif self._ask is None:
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
                self._emit(Notice("error", f"Could not save the permission rule: {exc}"))
        self._emit(PermissionAnswered(request.id, tracked.id, answer.allowed, answer.words))
        if not answer.allowed:
            self._deny(tracked, message, words=answer.words)
            return None
        return answer

    def _deny(self, tracked: TrackedTool, message: str, words: str = "") -> None:
        self._denials.append({"tool_name": tracked.name, "tool_use_id": tracked.id, "tool_input": tracked.block.get("input") or {}})
        tracked.data = {"type": "denied", "words": words}
        self._finish(tracked, message, is_error=True, status="denied")

    # ----- the call ---------------------------------------------------------------------------
    async def run(self, tracked: TrackedTool) -> None:
        tool = tracked.tool
        assert tool is not None

        def progress(text: str, t: TrackedTool = tracked) -> None:
            if t.state != DONE:  # not after the call was given up on
                t.keep_progress(text)
                self._emit(ToolProgress(t.id, text))

        ctx = self._ctx.for_call(tracked.id, progress, tracked.signal)
        started = self._clock()
        try:
            output = await tool.call(tracked.input, ctx)
        except asyncio.CancelledError:
            self._interrupted(tracked)
            return
        except ToolTimeout as exc:  # out of time: what it reported so far is all the model will learn
            so_far = output_so_far(tracked, self._ctx.services)
            output = ToolOutput(f"{exc}\nOutput before it timed out:\n{so_far}" if so_far else str(exc), is_error=True)
        except ToolError as exc:
            output = ToolOutput(str(exc), is_error=True)
        except Exception as exc:
            output = ToolOutput(f"Error: {type(exc).__name__}: {exc}", is_error=True)
        if tracked.state == DONE:  # given up on after a cancel it ignored: its late result is not wanted
            return
        if tracked.signal.aborted:
            self._interrupted(tracked)
            return
        try:  # PostToolUse / PostToolUseFailure, shown the input that ran
            output = await after_tool_call(self._ctx, tracked.name, tracked.ran_input or tracked.block.get("input") or {}, tracked.id,
                                           output, int((self._clock() - started) * 1000))
        except asyncio.CancelledError:
            self._interrupted(tracked)
            return
        if tracked.state == DONE:  # given up on while its hooks ran
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
            self._on_failed_shell(tracked, output.content)
