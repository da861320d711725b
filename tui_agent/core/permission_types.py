"""The permission interface between the loop and whatever decides (an engine, a dialog, flags).

The loop asks a `PermissionPolicy` for a decision; on "ask" it awaits the session's `AskHandler`
(the TUI answers with a dialog, headless mode from its flags) and hands the answer back to the policy,
which may remember it (a session grant, a rule written to settings).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Literal, Protocol

# dontAsk: whatever would ask is denied instead (programs that answer nothing, as in Claude Code).
PermissionMode = Literal["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"]
PERMISSION_MODES: tuple[PermissionMode, ...] = ("default", "acceptEdits", "plan", "bypassPermissions", "dontAsk")


@dataclass(frozen=True, slots=True)
class PermissionDecision:
    behavior: Literal["allow", "ask", "deny"]
    # For deny: the message the model gets. For ask: why it asks (shown in the dialog).
    message: str = ""
    # The rule or mode that decided, e.g. "Bash(rm *) in /home/u/.claude/settings.json" or "mode plan".
    source: str = ""
    # The rule "always allow" would save, narrowest useful form first (e.g. ["Bash(npm run test *)", "Bash(npm *)"]).
    suggestions: tuple[str, ...] = ()
    # What an allow grants when no single rule is chosen: one rule per part not yet allowed
    # (`make && npm test` → Bash(make *) and Bash(npm test *)).
    grants: tuple[str, ...] = ()
    # A PreToolUse hook's replacement input (validated again before the tool runs).
    updated_input: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class PermissionRequest:
    """An ask: what the user is shown, with an id the answer is correlated by."""

    id: str
    tool_use_id: str
    tool_name: str
    input: dict[str, Any]
    summary: str
    read_only: bool
    reason: str = ""
    diff: str | None = None
    suggestions: tuple[str, ...] = ()
    grants: tuple[str, ...] = ()
    # Who asks when it is not the main conversation: a subagent's label ("Explore: Find the config").
    agent: str = ""
    # That subagent's id (the `agent_id` of an SDK program's can_use_tool request).
    agent_id: str = ""


@dataclass(frozen=True, slots=True)
class PermissionAnswer:
    decision: Literal["allow_once", "allow_session", "allow_always", "deny"]
    words: str = ""
    # The rule chosen for allow_session / allow_always (one of the request's suggestions); None
    # means the request's `grants`, all of them.
    rule: str | None = None
    # The input the tool runs with instead of the model's (a program's can_use_tool answer); it is
    # validated again like the model's.
    updated_input: dict[str, Any] | None = None

    @property
    def allowed(self) -> bool:
        return self.decision != "deny"


AskHandler = Callable[[PermissionRequest], Awaitable[PermissionAnswer]]


@dataclass(frozen=True, slots=True)
class PermissionCheck:
    """Everything a policy may look at for one call."""

    tool: Any  # tui_agent.tools.base.Tool
    input: Any  # the validated pydantic input
    raw_input: dict[str, Any]
    tool_use_id: str
    workspace: Any  # tui_agent.tools.base.Workspace
    read_only: bool


class PermissionPolicy(Protocol):
    mode: PermissionMode

    async def decide(self, check: PermissionCheck) -> PermissionDecision: ...

    def remember(self, request: PermissionRequest, answer: PermissionAnswer) -> None:
        """Keep a session grant or save an always-allow rule."""


@dataclass
class SimplePolicy:
    """The default policy until rules exist: read-only tools allowed, `allowed_tools` by name allowed,
    `disallowed_tools` denied, everything else asks (and headless mode, having no one to ask, denies)."""

    mode: PermissionMode = "default"
    allowed_tools: set[str] = field(default_factory=set)
    disallowed_tools: set[str] = field(default_factory=set)
    session_allowed: set[str] = field(default_factory=set)

    async def decide(self, check: PermissionCheck) -> PermissionDecision:
        name = check.tool.name
        if name in self.disallowed_tools:
            return PermissionDecision("deny", f"Permission to use {name} has been denied by --disallowedTools.", "--disallowedTools")
        if getattr(check.tool, "asks_user", False):
            return PermissionDecision("ask", f"{name} asks the user.", "the user's answer")
        if getattr(check.tool, "bookkeeping", False):
            return PermissionDecision("allow", source="the agent's own bookkeeping")
        if self.mode == "bypassPermissions":
            return PermissionDecision("allow", source="mode bypassPermissions")
        path = check.tool.input_path(check.input)
        if path is not None and not check.workspace.contains(path) and name not in self.session_allowed:
            return PermissionDecision("ask", f"{name}: {path} is outside the working directories.", suggestions=(name,))
        if check.read_only:
            return PermissionDecision("allow", source="read-only")
        if self.mode == "plan":
            return PermissionDecision(
                "deny",
                "Plan mode is active: only read-only tools may run. Present your plan to the user instead of making changes.",
                "mode plan",
            )
        if self.mode == "acceptEdits" and name in ("Write", "Edit", "NotebookEdit"):
            return PermissionDecision("allow", source="mode acceptEdits")
        if name in self.allowed_tools or name in self.session_allowed:
            return PermissionDecision("allow", source="--allowedTools")
        return PermissionDecision("ask", f"{name} needs your permission.", suggestions=(name,))

    def remember(self, request: PermissionRequest, answer: PermissionAnswer) -> None:
        if answer.decision in ("allow_session", "allow_always"):
            self.session_allowed.add(request.tool_name)
