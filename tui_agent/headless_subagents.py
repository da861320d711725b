"""Subagents in `-p --output-format stream-json`: the lines Claude Code writes for them.

A subagent's messages are ordinary `assistant` / `user` lines carrying the parent's Agent tool_use id
in `parent_tool_use_id` (null for the main conversation); its start and end are `system` lines
(`task_started`, `task_notification`). Built from the core's events only.
"""

from __future__ import annotations

from typing import Any

from .core.events import AssistantMessageFinished, Event, SubagentEvent, SubagentFinished, SubagentStarted, ToolResultsSent

SUBAGENT_EVENT_TYPES = (SubagentEvent, SubagentStarted, SubagentFinished)


def subagent_lines(event: Event, session_id: str, agents: dict[str, SubagentStarted]) -> list[dict[str, Any]]:
    """The stream-json lines for one subagent event (`agents` remembers each start, for the labels)."""
    if isinstance(event, SubagentStarted):
        agents[event.parent_tool_use_id] = event
        return [
            {"type": "system", "subtype": "task_started", "task_id": event.agent_id, "tool_use_id": event.parent_tool_use_id,
             "description": event.description, "subagent_type": event.agent_type, "task_type": "local_agent",
             "prompt": event.prompt, "session_id": session_id},
            {"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": event.prompt}]},
             "parent_tool_use_id": event.parent_tool_use_id, "session_id": session_id,
             "subagent_type": event.agent_type, "task_description": event.description},
        ]
    if isinstance(event, SubagentFinished):
        status = "completed" if event.reason == "completed" else "stopped" if event.reason == "aborted" else "failed"
        return [{
            "type": "system", "subtype": "task_notification", "task_id": event.agent_id, "tool_use_id": event.parent_tool_use_id,
            "status": status, "summary": agents[event.parent_tool_use_id].description if event.parent_tool_use_id in agents else "",
            "usage": {"total_tokens": event.total_tokens, "tool_uses": event.tool_uses, "duration_ms": event.duration_ms},
            "session_id": session_id,
        }]
    if not isinstance(event, SubagentEvent):
        return []
    owner, inner = event.innermost
    if isinstance(inner, SUBAGENT_EVENT_TYPES):
        return subagent_lines(inner, session_id, agents)
    started = agents.get(owner)
    labels = {"subagent_type": started.agent_type, "task_description": started.description} if started else {}
    if isinstance(inner, AssistantMessageFinished):
        return [{"type": "assistant", "message": inner.message, "parent_tool_use_id": owner, "session_id": session_id, **labels}]
    if isinstance(inner, ToolResultsSent):
        return [{"type": "user", "message": inner.message, "parent_tool_use_id": owner, "session_id": session_id, **labels}]
    return []
