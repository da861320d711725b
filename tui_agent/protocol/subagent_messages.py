"""Tasks (subagents and background shells) as stream-json lines: ONE mapping for `-p` and the SDK protocol.

Shapes as Claude Code 2.1.197 writes them (seen by driving it with claude-agent-sdk against the scripted
model), with every field the SDK's parser requires (`_internal/message_parser.py`):
- a subagent's start: `system`/`task_started` (`task_type: "local_agent"`), then its prompt as a `user`
  line; its own `assistant` and `user` messages carry `parent_tool_use_id` = the Agent call's tool_use id
  and the labels `subagent_type` / `task_description`;
- each tool a subagent starts: `system`/`task_progress` ("Running <description>", `last_tool_name`, usage);
- its end: `system`/`task_updated` (`patch.status`: completed / failed / killed) and then
  `system`/`task_notification` (`status`: completed / failed / stopped, `output_file`, `summary`, usage);
- a background shell (Bash with run_in_background): `task_started` with `task_type: "local_bash"` and
  the shell's id as `task_id` (what `stop_task` takes), and the same two end lines when it is stopped.
The SDK waits for the end of every `local_agent` task it saw start, so every start gets an end.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable

from ..core.events import (
    AssistantMessageFinished,
    Event,
    SubagentEvent,
    SubagentFinished,
    SubagentStarted,
    ToolFinished,
    ToolQueued,
    ToolResultsSent,
    ToolStarted,
    UsageUpdated,
)

SUBAGENT_EVENT_TYPES = (SubagentEvent, SubagentStarted, SubagentFinished)
TASK_EVENT_TYPES = (*SUBAGENT_EVENT_TYPES, ToolQueued, ToolFinished)
"""The events `TaskMessages.lines` turns into lines (a main-agent Bash that goes to the background too)."""

NOTIFICATION_STATUS = {"completed": "completed", "aborted": "stopped"}
PATCH_STATUS = {"completed": "completed", "stopped": "killed", "failed": "failed"}


def _uuid() -> str:
    return str(uuid.uuid4())


def _timestamp() -> str:
    now = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now % 1 * 1000):03d}Z"


@dataclass(slots=True)
class _Task:
    """What the lines of one running subagent need: its labels, counts and the start time."""

    started: SubagentStarted
    tool_uses: int = 0
    tokens: int = 0
    inputs: dict[str, ToolQueued] = field(default_factory=dict)

    @property
    def labels(self) -> dict[str, str]:
        return {"subagent_type": self.started.agent_type, "task_description": self.started.description}


class TaskMessages:
    """The lines for the task events of one output stream (it remembers each task's start)."""

    def __init__(self) -> None:
        self._agents: dict[str, _Task] = {}  # by the Agent call's tool_use id
        self._queued: dict[str, ToolQueued] = {}  # the main agent's Bash calls, for a background shell's start
        self.shells: dict[str, str] = {}
        """Background shells announced with task_started: shell id → the Bash call's tool_use id."""
        self._shell_labels: dict[str, str] = {}
        self.on_shell_started: Callable[[str], None] | None = None
        """Called with a background shell's id once its task_started is made (the protocol watches it end)."""

    def lines(self, event: Event, session_id: str) -> list[dict[str, Any]]:
        if isinstance(event, SubagentEvent):
            owner, inner = event.innermost
            if isinstance(inner, (SubagentStarted, SubagentFinished)):
                return self.lines(inner, session_id)  # a nested subagent: its own start and end
            return self._child(owner, inner, session_id)
        if isinstance(event, SubagentStarted):
            return self._started(event, session_id)
        if isinstance(event, SubagentFinished):
            return self._finished(event, session_id)
        return self._main_tool(event, session_id)

    # ----- subagents ----------------------------------------------------------------------------
    def _started(self, event: SubagentStarted, session_id: str) -> list[dict[str, Any]]:
        task = self._agents[event.parent_tool_use_id] = _Task(event)
        return [
            {"type": "system", "subtype": "task_started", "task_id": event.agent_id, "tool_use_id": event.parent_tool_use_id,
             "description": event.description, "subagent_type": event.agent_type, "task_type": "local_agent",
             "prompt": event.prompt, "uuid": _uuid(), "session_id": session_id},
            {"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": event.prompt}]},
             "parent_tool_use_id": event.parent_tool_use_id, "session_id": session_id, "uuid": _uuid(),
             "timestamp": _timestamp(), **task.labels},
        ]

    def _finished(self, event: SubagentFinished, session_id: str) -> list[dict[str, Any]]:
        task = self._agents.pop(event.parent_tool_use_id, None)
        status = NOTIFICATION_STATUS.get(event.reason, "failed")
        usage = {"total_tokens": event.total_tokens, "tool_uses": event.tool_uses, "duration_ms": event.duration_ms}
        summary = task.started.description if task else ""
        return self._ended(event.agent_id, event.parent_tool_use_id, status, summary, session_id, usage)

    def _child(self, owner: str, inner: Event, session_id: str) -> list[dict[str, Any]]:
        task = self._agents.get(owner)
        labels = task.labels if task else {}
        if isinstance(inner, AssistantMessageFinished):
            message = {
                "id": inner.id or "msg_" + uuid.uuid4().hex[:24], "type": "message", "role": "assistant",
                "model": inner.model or (task.started.model if task else ""), "content": inner.message["content"],
                "stop_reason": inner.stop_reason, "stop_sequence": None, "usage": inner.usage,
            }
            return [{"type": "assistant", "message": message, "parent_tool_use_id": owner, "session_id": session_id,
                     "uuid": _uuid(), **labels}]
        if isinstance(inner, ToolResultsSent):
            return [{"type": "user", "message": inner.message, "parent_tool_use_id": owner, "session_id": session_id,
                     "uuid": _uuid(), "timestamp": _timestamp(), **labels}]
        if task is None:
            return []
        if isinstance(inner, UsageUpdated):
            task.tokens = inner.input_tokens + inner.cache_read_input_tokens + inner.cache_creation_input_tokens + inner.output_tokens
        elif isinstance(inner, ToolQueued):
            task.inputs[inner.id] = inner
        elif isinstance(inner, ToolStarted):
            task.tool_uses += 1
            queued = task.inputs.pop(inner.id, None)
            return [{
                "type": "system", "subtype": "task_progress", "task_id": task.started.agent_id, "tool_use_id": owner,
                "description": _doing(inner.name, queued), "subagent_type": task.started.agent_type,
                "usage": {"total_tokens": task.tokens, "tool_uses": task.tool_uses,
                          "duration_ms": max(0, int((inner.t - task.started.t) * 1000))},
                "last_tool_name": inner.name, "uuid": _uuid(), "session_id": session_id,
            }]
        return []

    # ----- background shells ----------------------------------------------------------------------
    def _main_tool(self, event: Event, session_id: str) -> list[dict[str, Any]]:
        if isinstance(event, ToolQueued):
            if event.input.get("run_in_background") or event.name == "KillShell":
                self._queued[event.id] = event
            return []
        if not isinstance(event, ToolFinished):
            return []
        queued = self._queued.pop(event.id, None)
        if queued is not None and queued.name == "KillShell":  # the model stopped one of its shells
            shell = queued.input.get("shell_id")
            return self.shell_ended(shell, "stopped", session_id) if isinstance(shell, str) and not event.is_error else []
        data = event.data if isinstance(event.data, dict) else {}
        if queued is None or data.get("type") != "background_shell" or not isinstance(data.get("id"), str):
            return []
        shell_id = data["id"]
        self.shells[shell_id] = event.id
        self._shell_labels[shell_id] = str(queued.input.get("description") or queued.summary)
        if self.on_shell_started is not None:
            self.on_shell_started(shell_id)
        return [{"type": "system", "subtype": "task_started", "task_id": shell_id, "tool_use_id": event.id,
                 "description": self._shell_labels[shell_id], "task_type": "local_bash", "uuid": _uuid(), "session_id": session_id}]

    def shell_ended(self, shell_id: str, status: str, session_id: str) -> list[dict[str, Any]]:
        """The end lines of a background shell announced earlier (none for one never announced)."""
        tool_use_id = self.shells.pop(shell_id, None)
        if tool_use_id is None:
            return []
        return self._ended(shell_id, tool_use_id, status, self._shell_labels.pop(shell_id, ""), session_id, None)

    # ----- both -----------------------------------------------------------------------------------
    @staticmethod
    def _ended(task_id: str, tool_use_id: str, status: str, summary: str, session_id: str,
               usage: dict[str, int] | None) -> list[dict[str, Any]]:
        notification: dict[str, Any] = {
            "type": "system", "subtype": "task_notification", "task_id": task_id, "tool_use_id": tool_use_id,
            "status": status, "output_file": "", "summary": summary,
        }
        if usage is not None:
            notification["usage"] = usage
        notification.update({"uuid": _uuid(), "session_id": session_id})
        return [
            {"type": "system", "subtype": "task_updated", "task_id": task_id,
             "patch": {"status": PATCH_STATUS[status], "end_time": int(time.time() * 1000)}, "uuid": _uuid(), "session_id": session_id},
            notification,
        ]


def _doing(name: str, queued: ToolQueued | None) -> str:
    """task_progress's description: Claude Code's "Running <the call's description>"."""
    if queued is None:
        return f"Running {name}"
    described = queued.input.get("description")
    return f"Running {described}" if isinstance(described, str) and described else f"Running {queued.summary or name}"
