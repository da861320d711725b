"""`--permission-prompt-tool stdio`: what would ask the user in the app asks the driving program.

Each ask becomes a `can_use_tool` control request; the program's answer is Claude Code's:
`{behavior: "allow", updatedInput, updatedPermissions?}` or `{behavior: "deny", message, interrupt?}`.
An error answer, an answer we cannot read, or stdin closing is a deny whose words say why.
"""

from __future__ import annotations

from typing import Any, Callable, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..core.permission_types import PERMISSION_MODES, PermissionAnswer, PermissionRequest
from .channel import Channel, ProgramError

_SESSION_DESTINATIONS = ("session", "cliArg")


class RuleValue(BaseModel):
    model_config = ConfigDict(extra="allow")
    toolName: str
    ruleContent: str | None = None

    @property
    def text(self) -> str:
        return f"{self.toolName}({self.ruleContent})" if self.ruleContent else self.toolName


class PermissionUpdate(BaseModel):
    model_config = ConfigDict(extra="allow")
    type: str
    rules: list[RuleValue] | None = None
    behavior: str | None = None
    mode: str | None = None
    directories: list[str] | None = None
    destination: str | None = None


class PermissionReply(BaseModel):
    """The `response` of a can_use_tool answer."""

    model_config = ConfigDict(extra="allow")
    behavior: Literal["allow", "deny"]
    updatedInput: dict[str, Any] | None = None
    updatedPermissions: list[PermissionUpdate] = Field(default_factory=list)
    message: str = ""
    interrupt: bool = False


def suggestion_updates(request: PermissionRequest) -> list[dict[str, Any]]:
    """The rules "always allow" would save, as the SDK's PermissionUpdate dicts."""
    out = []
    for text in request.suggestions:
        name, _, rest = text.partition("(")
        rule: dict[str, Any] = {"toolName": name}
        if rest:
            rule["ruleContent"] = rest[:-1] if rest.endswith(")") else rest
        out.append({"type": "addRules", "rules": [rule], "behavior": "allow", "destination": "localSettings"})
    return out


def blocked_path(request: PermissionRequest) -> str | None:
    """The file the ask is about, for the SDK's `blocked_path` (file tools name it in their input)."""
    for key in ("file_path", "notebook_path"):
        value = request.input.get(key)
        if isinstance(value, str) and value.startswith("/"):
            return value
    return None


class ProgramAsker:
    """The AskHandler of protocol mode."""

    def __init__(self, channel: Channel, policy: Callable[[], Any], abort: Callable[[str], None], notice: Callable[[str], None]) -> None:
        self._channel = channel
        self._policy = policy
        self._abort = abort
        self._notice = notice

    async def __call__(self, request: PermissionRequest) -> PermissionAnswer:
        payload = {
            "subtype": "can_use_tool",
            "tool_name": request.tool_name,
            "display_name": request.tool_name,
            "input": request.input,
            "tool_use_id": request.tool_use_id,
            "description": request.summary,
            "decision_reason": request.reason,
            "permission_suggestions": suggestion_updates(request),
        }
        if request.agent_id:
            payload["agent_id"] = request.agent_id  # a subagent asks: which one (the task id of its task_started)
        if (path := blocked_path(request)) is not None:
            payload["blocked_path"] = path
        try:
            reply = PermissionReply.model_validate(await self._channel.request(payload))
        except ProgramError as exc:
            return PermissionAnswer("deny", words=f"The program's permission check failed: {exc}")
        except ValidationError as exc:
            problem = "; ".join(e["msg"] for e in exc.errors()[:3])
            self._notice(f"tui-agent: can_use_tool answer for {request.tool_name} not understood ({problem}); denied")
            return PermissionAnswer("deny", words=f"The program's permission answer could not be read: {problem}")
        if reply.behavior == "deny":
            if reply.interrupt:
                self._abort("interrupted by user")
            return PermissionAnswer("deny", words=reply.message)
        for update in reply.updatedPermissions:
            self._apply(request, update)
        return PermissionAnswer("allow_once", updated_input=reply.updatedInput)

    def _apply(self, request: PermissionRequest, update: PermissionUpdate) -> None:
        policy = self._policy()
        if update.type == "setMode" and update.mode in PERMISSION_MODES:
            policy.mode = update.mode
            return
        if update.type == "addRules" and update.behavior == "allow" and update.rules:
            decision = "allow_session" if update.destination in _SESSION_DESTINATIONS else "allow_always"
            for rule in update.rules:
                policy.remember(request, PermissionAnswer(decision, rule=rule.text))
            return
        self._notice(f"tui-agent: permission update {update.type} ({update.behavior or update.mode or ''}) is not supported; ignored")
