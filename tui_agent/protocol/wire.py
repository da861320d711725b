"""The stream-json control protocol's messages as they cross stdin: pydantic models at the edge.

Shapes are Claude Code's (read from claude-agent-sdk's `_internal/query.py` and `client.py`, and from
Claude Code 2.1.197's own lines). Unknown extra fields are allowed everywhere: programs built on newer
SDKs add fields, and a field we do not know must never make a line fail.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class UserMessageBody(_Open):
    role: Literal["user"] = "user"
    content: str | list[dict[str, Any]]


class UserLine(_Open):
    """A prompt: `message.content` is a string or a list of content blocks."""

    type: Literal["user"]
    message: UserMessageBody
    session_id: str | None = None
    parent_tool_use_id: str | None = None


class HookMatcher(_Open):
    """One matcher of `initialize.hooks[event]`: which tools (empty or `*` = all; else a regex) and
    which of the program's callbacks to call."""

    matcher: str | None = None
    hookCallbackIds: list[str] = Field(default_factory=list)
    timeout: float | None = None


class InitializeRequest(_Open):
    subtype: Literal["initialize"]
    hooks: dict[str, list[HookMatcher]] | None = None
    agents: Any = None
    """The program's subagent types, `{name: {description, prompt, ...}}`: checked one by one
    (core/agents/from_options.py), so one bad definition never fails the handshake."""


class InterruptRequest(_Open):
    subtype: Literal["interrupt"]


class SetPermissionModeRequest(_Open):
    subtype: Literal["set_permission_mode"]
    mode: str


class SetModelRequest(_Open):
    subtype: Literal["set_model"]
    model: str | None = None


class StopTaskRequest(_Open):
    """Stop a running subagent or background shell by the `task_id` of its `task_started` line."""

    subtype: Literal["stop_task"]
    task_id: str


class OtherRequest(_Open):
    """A request this CLI does not serve: answered with an error, never silence."""

    subtype: str


KnownRequest = Annotated[
    Union[InitializeRequest, InterruptRequest, SetPermissionModeRequest, SetModelRequest, StopTaskRequest],
    Field(discriminator="subtype"),
]
KNOWN_SUBTYPES = ("initialize", "interrupt", "set_permission_mode", "set_model", "stop_task")


class ControlRequestLine(_Open):
    type: Literal["control_request"]
    request_id: str
    request: dict[str, Any]


class ControlResponseBody(_Open):
    subtype: Literal["success", "error"]
    request_id: str
    response: dict[str, Any] | None = None
    error: str | None = None


class ControlResponseLine(_Open):
    """The program's answer to one of our requests (can_use_tool, hook_callback)."""

    type: Literal["control_response"]
    response: ControlResponseBody


class KeepAliveLine(_Open):
    type: Literal["keep_alive"]


class ControlCancelLine(_Open):
    type: Literal["control_cancel_request"]
    request_id: str | None = None


_INBOUND: dict[str, type[BaseModel]] = {
    "user": UserLine,
    "control_request": ControlRequestLine,
    "control_response": ControlResponseLine,
    "keep_alive": KeepAliveLine,
    "control_cancel_request": ControlCancelLine,
}
INBOUND_TYPES = tuple(_INBOUND)
_REQUEST: TypeAdapter[Any] = TypeAdapter(KnownRequest)


class LineError(Exception):
    """A line that cannot be used, with what is wrong in words; `request_id` when it is known, so the
    program gets a control_response error for it."""

    def __init__(self, text: str, request_id: str | None = None) -> None:
        super().__init__(text)
        self.request_id = request_id


def _problems(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'line'}: {e['msg']}" for e in exc.errors()[:5])


def parse_line(text: str) -> Any:
    """One stdin line as a typed message; raises LineError saying what is wrong."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise LineError(f"not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise LineError(f"expected a JSON object, got {type(data).__name__}")
    kind = data.get("type")
    if kind not in INBOUND_TYPES:
        raise LineError(f"unknown message type {kind!r} (expected one of {', '.join(INBOUND_TYPES)})",
                        data.get("request_id") if isinstance(data.get("request_id"), str) else None)
    try:
        return _INBOUND[kind].model_validate(data)
    except ValidationError as exc:
        rid = data.get("request_id")
        raise LineError(f"invalid {kind} message: {_problems(exc)}", rid if isinstance(rid, str) else None) from None


def parse_request(line: ControlRequestLine) -> Any:
    """The typed request of a control_request; OtherRequest for subtypes we do not serve."""
    subtype = line.request.get("subtype")
    if subtype not in KNOWN_SUBTYPES:
        return OtherRequest.model_validate({"subtype": str(subtype), **{k: v for k, v in line.request.items() if k != "subtype"}})
    try:
        return _REQUEST.validate_python(line.request)
    except ValidationError as exc:
        raise LineError(f"invalid {subtype} request: {_problems(exc)}", line.request_id) from None
