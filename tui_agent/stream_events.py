"""`stream_event` lines (--include-partial-messages), shared by `-p` and the SDK protocol: the raw
stream events as Claude Code prints them, `{"type": "stream_event", "event": {...}, ...}`.

Every event of every response goes out: message_start, content_block_start, each delta (text,
thinking, signature, input_json), content_block_stop, message_delta, message_stop. Text and thinking
deltas arrive as TextDelta / ThinkingDelta (the screen uses them), the rest as StreamMark
(core/attempt.py). A subagent's events carry its Agent call's id in `parent_tool_use_id`.
"""

from __future__ import annotations

import uuid
from typing import Any

from .core.events import Event, StreamMark, SubagentEvent, TextDelta, ThinkingDelta

STREAM_EVENT_TYPES = (TextDelta, ThinkingDelta, StreamMark)
"""The core's events that are one raw stream event each."""

StreamEventSource = TextDelta | ThinkingDelta | StreamMark


def stream_event(event: StreamEventSource) -> dict[str, Any]:
    """The raw API stream event behind one of the core's streaming events."""
    if isinstance(event, StreamMark):
        return event.event
    delta = {"type": "text_delta", "text": event.text} if isinstance(event, TextDelta) else {"type": "thinking_delta", "thinking": event.text}
    return {"type": "content_block_delta", "index": event.index, "delta": delta}


def stream_event_line(event: StreamEventSource, session_id: str, parent_tool_use_id: str | None = None) -> dict[str, Any]:
    return {"type": "stream_event", "event": stream_event(event), "session_id": session_id,
            "parent_tool_use_id": parent_tool_use_id, "uuid": str(uuid.uuid4())}


def subagent_stream_event(event: Event) -> tuple[str, StreamEventSource] | None:
    """(the Agent call's tool_use id, the stream event) when `event` is a subagent's stream event."""
    if not isinstance(event, SubagentEvent):
        return None
    owner, inner = event.innermost
    return (owner, inner) if isinstance(inner, STREAM_EVENT_TYPES) else None


def subagent_stream_event_line(event: Event, session_id: str) -> dict[str, Any] | None:
    """The `stream_event` line of a subagent's stream event (None for any other event): front ends
    call this before their other subagent lines, when partial messages are on."""
    found = subagent_stream_event(event)
    return None if found is None else stream_event_line(found[1], session_id, found[0])
