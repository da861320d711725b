"""`stream_event` lines (--include-partial-messages), shared by `-p` and the SDK protocol: the raw
stream events as Claude Code prints them, `{"type": "stream_event", "event": {...}, ...}`."""

from __future__ import annotations

import uuid
from typing import Any

from .core.events import StreamMark, TextDelta, ThinkingDelta


def stream_event(event: TextDelta | ThinkingDelta | StreamMark) -> dict[str, Any]:
    """The raw API stream event behind one of the core's streaming events."""
    if isinstance(event, StreamMark):
        return event.event
    delta = {"type": "text_delta", "text": event.text} if isinstance(event, TextDelta) else {"type": "thinking_delta", "thinking": event.text}
    return {"type": "content_block_delta", "index": event.index, "delta": delta}


def stream_event_line(event: TextDelta | ThinkingDelta | StreamMark, session_id: str, parent_tool_use_id: str | None = None) -> dict[str, Any]:
    return {"type": "stream_event", "event": stream_event(event), "session_id": session_id,
            "parent_tool_use_id": parent_tool_use_id, "uuid": str(uuid.uuid4())}
