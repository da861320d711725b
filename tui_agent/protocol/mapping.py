"""The one place where the core's events become stream-json messages (Claude Code's shapes).

`MessageMapper.map(event)` returns what to write: dicts are stdout lines for the program, strings are
stderr lines for people. New kinds of events (end reasons, subagents whose events carry the parent's
tool_use id) are added here and nowhere else.
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path
from typing import Any, Callable

from ..core.events import (
    AssistantMessageFinished,
    Event,
    LoopEnded,
    Notice,
    Retrying,
    RunStarted,
    StreamMark,
    TextDelta,
    ThinkingDelta,
    ToolFinished,
    ToolResultsSent,
)
from ..core.hook_points import terminal_reason
from ..core.commands import load_commands
from ..core.skills import skill_names
from ..headless import result_object
from ..stream_events import stream_event, subagent_stream_event_line
from ..headless_context import COMPACTION_EVENTS, compaction_lines
from .subagent_messages import TASK_EVENT_TYPES, TaskMessages

# The Claude Code release whose stream-json protocol this speaks (the SDK reads it from `init`).
PROTOCOL_VERSION = "2.1.197"
TUI_AGENT_VERSION = "0.1.0"

Out = dict[str, Any] | str


def parent_tool_use_id(event: Event) -> str | None:
    """The tool_use a subagent's event belongs to (None for the main conversation)."""
    return getattr(event, "parent_tool_use_id", None)


def _uuid() -> str:
    return str(uuid.uuid4())


class MessageMapper:
    def __init__(self, session_id: str, *, partial_messages: bool, permission_mode: Callable[[], str], api_key_source: str = "none") -> None:
        self.session_id = session_id
        self.partial_messages = partial_messages
        self.permission_mode = permission_mode
        self.api_key_source = api_key_source
        self.last_stop_reason: str | None = None
        self.model = ""
        self.mcp_servers: list[dict[str, Any]] = []  # the init message's statuses, once the servers started
        self.tasks = TaskMessages()  # subagents and background shells: the same lines as -p's
        self.agents: list[str] = []  # the init message's agent types, once the program's joined the catalog
        self.output_style: Callable[[], str] = lambda: "default"  # the front end points it at its agent (core/output_styles.py)
        self.tool_use_results: dict[str, dict[str, Any]] = {}  # by tool_use id, until its result message goes out

    def map(self, event: Event) -> list[Out]:
        if isinstance(event, TASK_EVENT_TYPES) and (tasks := self.tasks.lines(event, self.session_id)):
            return list(tasks)
        if isinstance(event, RunStarted):
            self.session_id = event.session_id
            self.model = event.model
            return [self.init(event)]
        if isinstance(event, AssistantMessageFinished):
            self.last_stop_reason = event.stop_reason
            return [self.assistant(event)]
        if isinstance(event, ToolFinished):
            if (result := todo_write_result(event) or questions_result(event)) is not None:
                self.tool_use_results[event.id] = result
            return []
        if isinstance(event, ToolResultsSent):
            return [self._envelope("user", {"message": event.message, "parent_tool_use_id": parent_tool_use_id(event),
                                            "timestamp": _timestamp(), **self._tool_use_result(event.message)})]
        if isinstance(event, (TextDelta, ThinkingDelta, StreamMark)):
            return [self._envelope("stream_event", {"event": stream_event(event), "parent_tool_use_id": parent_tool_use_id(event)})] if self.partial_messages else []
        if self.partial_messages and (partial_line := subagent_stream_event_line(event, self.session_id)) is not None:
            return [partial_line]  # a subagent's stream event, tagged with its Agent call's id
        if isinstance(event, COMPACTION_EVENTS):
            return list(compaction_lines(event, self.session_id))
        if isinstance(event, LoopEnded):
            return [self.result(event)]
        if isinstance(event, Notice):
            return [f"[{event.level}] {event.text}"]
        if isinstance(event, Retrying):
            return [f"API error ({event.why}); retrying in {event.delay:.1f}s (attempt {event.attempt})"]
        return []

    def init(self, event: RunStarted) -> dict[str, Any]:
        return {
            "type": "system",
            "subtype": "init",
            "cwd": event.cwd,
            "session_id": event.session_id,
            "tools": list(event.tools),
            "mcp_servers": list(self.mcp_servers),
            "model": event.model,
            "permissionMode": self.permission_mode(),
            "slash_commands": [*custom_command_names(event.cwd), "compact"],  # core/commands: skills, then commands
            "apiKeySource": self.api_key_source,
            "claude_code_version": PROTOCOL_VERSION,
            "tui_agent_version": TUI_AGENT_VERSION,
            "output_style": self.output_style(),
            "agents": list(self.agents),
            "skills": skill_names(Path(event.cwd)),
            "plugins": [],
            "demo": event.demo,
            "uuid": _uuid(),
        }

    def assistant(self, event: AssistantMessageFinished) -> dict[str, Any]:
        message = {
            "id": event.id or "msg_" + uuid.uuid4().hex[:24],
            "type": "message",
            "role": "assistant",
            "model": event.model or self.model,
            "content": event.message["content"],
            "stop_reason": event.stop_reason,
            "stop_sequence": None,
            "usage": event.usage,
        }
        return self._envelope("assistant", {"message": message, "parent_tool_use_id": parent_tool_use_id(event)})

    def result(self, event: LoopEnded) -> dict[str, Any]:
        out = result_object(event, self.session_id)
        out.update({"stop_reason": self.last_stop_reason, "terminal_reason": terminal_reason(event), "uuid": _uuid()})
        if event.is_error:
            out["errors"] = [event.detail or event.reason]
        self.last_stop_reason = None
        return out

    def _tool_use_result(self, message: dict[str, Any]) -> dict[str, Any]:
        """`tool_use_result` for a message that carries one tool's result, as Claude Code's (one result per
        message) do; kept for TodoWrite so far. Several results in one message: none is chosen."""
        content = message.get("content")
        ids = [str(b.get("tool_use_id")) for b in content if isinstance(b, dict) and b.get("type") == "tool_result"] if isinstance(content, list) else []
        results = [self.tool_use_results.pop(i, None) for i in ids]
        return {"tool_use_result": results[0]} if len(ids) == 1 and results[0] is not None else {}

    def _envelope(self, kind: str, body: dict[str, Any]) -> dict[str, Any]:
        return {"type": kind, **body, "session_id": self.session_id, "uuid": _uuid()}


def todo_write_result(event: ToolFinished) -> dict[str, Any] | None:
    """TodoWrite's result as Claude Code reports it (sdk-tools.d.ts `TodoWriteOutput`): the list before and after."""
    data = event.data
    if event.name != "TodoWrite" or event.status != "ok" or not isinstance(data, dict) or data.get("type") != "todos":
        return None
    return {"oldTodos": list(data.get("old_todos") or []), "newTodos": list(data.get("todos") or [])}


def questions_result(event: ToolFinished) -> dict[str, Any] | None:
    """AskUserQuestion's result as Claude Code reports it (sdk-tools.d.ts `AskUserQuestionOutput`): the
    questions and the answers (and the annotations when the person chose a preview)."""
    data = event.data
    if event.name != "AskUserQuestion" or event.status != "ok" or not isinstance(data, dict) or data.get("type") != "questions":
        return None
    out = {"questions": list(data.get("questions") or []), "answers": dict(data.get("answers") or {})}
    if data.get("annotations"):
        out["annotations"] = dict(data["annotations"])
    return out


def custom_command_names(cwd: str) -> list[str]:
    """The names of the folder's custom commands and skills, as the `init` message lists them."""
    return list(load_commands(Path(cwd)))


def _timestamp() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + "Z"
