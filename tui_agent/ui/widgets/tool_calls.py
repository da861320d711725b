"""The state of each tool call, built from the core's events and shared by its transcript cell and its lane.

No rendering here: the transcript and the lane panel each draw a `ToolCall` their own way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Literal

from ...core.events import (
    PermissionAnswered,
    PermissionAsked,
    ToolFinished,
    ToolProgress,
    ToolQueued,
    ToolStarted,
)

CallPhase = Literal["queued", "waiting", "running", "ok", "error", "denied", "cancelled"]
ACTIVE_PHASES: frozenset[str] = frozenset({"queued", "waiting", "running"})
SHELL_TOOLS = frozenset({"Bash"})
DEFAULT_SHELL_TIMEOUT_S = 120.0
SANDBOXED_KEY = "sandboxed"
"""The shell tools' `ToolFinished.data` key saying the command ran in the OS sandbox (tools/shell_sandbox.py)."""

SANDBOX_TAG = "[sbx]"
"""Before a shell command in the OS sandbox in its lane row; its transcript cell says "sandboxed"."""
SANDBOX_LABEL = "sandboxed"

SandboxProbe = Callable[[str, bool], bool]
"""Whether a shell command will run in the OS sandbox: the session sandbox's `will_sandbox(command, disable)`."""


@dataclass(eq=False)
class ToolCall:
    id: str
    name: str
    summary: str
    input: dict[str, Any]
    t_queued: float
    phase: CallPhase = "queued"
    lane: int = -1
    t_start: float | None = None
    t_end: float | None = None
    waiting_since: float | None = None
    preview: str = ""
    data: Any = None
    denied_words: str = ""
    last_line: str = ""
    last_output_t: float | None = None
    version: int = 0
    """Bumped on every change, so views know when to draw again."""
    parent: str | None = None
    """The Agent call whose subagent made this call (None: the main agent's own)."""
    depth: int = 0
    sandboxed: bool = False
    """The command runs (or ran) inside the OS sandbox: foreseen while it waits or runs, then as the tool said."""

    @property
    def active(self) -> bool:
        return self.phase in ACTIVE_PHASES

    @property
    def is_shell(self) -> bool:
        return self.name in SHELL_TOOLS

    @property
    def is_user_shell(self) -> bool:
        """A `!` command: the user's own, never sandboxed (its summary is "! CMD", core/shell_mode.py)."""
        return self.is_shell and self.summary == f"! {self.input.get('command')}"

    @property
    def subject(self) -> str:
        """What the call does, whole, for the person. For a shell call that is the entire command, here-
        document bodies included: the core's summary keeps only its first line, cut at 200 characters (it
        is also what the model is told), which would show `cat <<EOF` for a body that runs `$(…)`. A `!` command's summary
        ("! CMD") already holds it whole."""
        command = self.input.get("command") if self.is_shell else None
        if not isinstance(command, str) or command in self.summary:
            return self.summary
        return command

    @property
    def timeout_s(self) -> float:
        raw = self.input.get("timeout")
        try:
            return float(raw) / 1000 if raw else DEFAULT_SHELL_TIMEOUT_S
        except (TypeError, ValueError):
            return DEFAULT_SHELL_TIMEOUT_S

    def elapsed(self, now: float) -> float:
        if self.t_start is None:
            return 0.0
        return max(0.0, (self.t_end if self.t_end is not None else now) - self.t_start)


@dataclass
class ToolCalls:
    """Every call of the current run, by id, in the order the model asked for them."""

    calls: dict[str, ToolCall] = field(default_factory=dict)
    agents: dict[str, Any] = field(default_factory=dict)
    """Subagents by their Agent call's id (agent_lanes.SubagentView)."""
    sandbox_probe: SandboxProbe | None = None
    """Set once the agent has a sandbox: foresees a shell call's sandboxing until its result says."""

    def clear(self) -> None:
        self.calls.clear()
        self.agents.clear()

    def get(self, tool_use_id: str) -> ToolCall | None:
        return self.calls.get(tool_use_id)

    def on_queued(self, e: ToolQueued) -> ToolCall:
        call = ToolCall(e.id, e.name, e.summary, dict(e.input or {}), e.t)
        self.calls[e.id] = call
        self._foresee_sandbox(call)
        return call

    def _foresee_sandbox(self, call: ToolCall) -> None:
        """Whether a shell call will run sandboxed, asked again when it starts (the sandbox may be switched)."""
        command = call.input.get("command")
        if self.sandbox_probe is None or not call.is_shell or call.is_user_shell or not isinstance(command, str):
            return
        try:
            call.sandboxed = bool(self.sandbox_probe(command, bool(call.input.get("dangerouslyDisableSandbox"))))
        except Exception:
            call.sandboxed = False  # the mark is a view: a failing probe must not stop the event's handling

    def on_started(self, e: ToolStarted) -> ToolCall | None:
        call = self.calls.get(e.id)
        if call is not None:
            call.phase, call.lane, call.t_start, call.last_output_t = "running", e.lane, e.t, e.t
            call.waiting_since = None
            self._foresee_sandbox(call)
            call.version += 1
        return call

    def on_progress(self, e: ToolProgress, now: float) -> ToolCall | None:
        call = self.calls.get(e.id)
        if call is not None:
            lines = [line for line in e.text.splitlines() if line.strip()]
            if lines:
                call.last_line = lines[-1]
            call.last_output_t = now
            call.version += 1
        return call

    def on_asked(self, e: PermissionAsked) -> ToolCall | None:
        call = self.calls.get(e.tool_use_id)
        if call is not None:
            call.phase, call.waiting_since = "waiting", e.t
            call.version += 1
        return call

    def on_answered(self, e: PermissionAnswered) -> ToolCall | None:
        call = self.calls.get(e.tool_use_id)
        if call is not None and call.phase == "waiting":
            call.phase, call.waiting_since = "queued", None
            call.denied_words = e.words if not e.allowed else ""
            call.version += 1
        return call

    def on_finished(self, e: ToolFinished) -> ToolCall | None:
        call = self.calls.get(e.id)
        if call is None:
            return None
        call.phase = e.status
        call.lane = e.lane
        if e.lane >= 0:
            call.t_start = e.t_start
        call.t_end = e.t_end
        call.preview = e.preview
        call.data = e.data
        if isinstance(e.data, dict) and SANDBOXED_KEY in e.data:
            call.sandboxed = bool(e.data[SANDBOXED_KEY])
        elif not (e.status == "cancelled" and e.lane >= 0):  # a cancelled run keeps what it started as
            call.sandboxed = False  # ran unsandboxed, or never ran (denied, refused, failed to start)
        if isinstance(e.data, dict) and e.data.get("type") == "denied":
            call.denied_words = str(e.data.get("words") or "")
        call.version += 1
        return call

    def mark_cancelled(self, now: float) -> list[ToolCall]:
        """ESC: show every unfinished call as cancelled at once (the core's ToolFinished confirms it)."""
        changed = []
        for call in self.calls.values():
            if call.active:
                call.phase = "cancelled"
                call.t_end = now
                call.version += 1
                changed.append(call)
        return changed

    def active_calls(self) -> list[ToolCall]:
        return [c for c in self.calls.values() if c.active]
