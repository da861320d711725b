"""Compaction in `-p` and stream-json output, in Claude Code's shapes: `system`/`status` "compacting" while
the summary is written, then `status` with `compact_result`, and a `system`/`compact_boundary` message
with `compact_metadata` once the history starts over from the summary. `/compact [instructions]` as the
`-p` prompt compacts the resumed session (`claude -p "/compact" --resume ID`)."""

from __future__ import annotations

import re
import uuid
from typing import Any

from .core.events import CompactionFinished, CompactionProgress, CompactionStarted

COMPACTION_EVENTS = (CompactionStarted, CompactionProgress, CompactionFinished)
_COMPACT_COMMAND = re.compile(r"^\s*/compact(?:\s+(?P<args>.*))?\s*$", re.S)


def compact_command(prompt: str) -> str | None:
    """The instructions of a `/compact [instructions]` prompt ('' without any); None for other prompts."""
    found = _COMPACT_COMMAND.match(prompt)
    return None if found is None else (found.group("args") or "").strip()


def compact_result(finished: CompactionFinished, session_id: str, totals: Any) -> dict[str, Any]:
    """The one `result` line of a `/compact` prompt (-p and the SDK protocol): success when the
    conversation was compacted, otherwise an error whose `result` says why."""
    ok = finished.outcome == "compacted"
    took = int(finished.duration * 1000)
    return {"type": "result", "subtype": "success" if ok else "error_during_execution", "is_error": not ok,
            "duration_ms": took, "duration_api_ms": took, "num_turns": 0, "result": "" if ok else finished.detail,
            "session_id": session_id, "total_cost_usd": totals.cost_usd, "usage": totals.as_usage()}


def compaction_lines(event: Any, session_id: str) -> list[dict[str, Any]]:
    """The stream-json lines of a compaction event."""
    if isinstance(event, CompactionStarted):
        return [{"type": "system", "subtype": "status", "status": "compacting", "session_id": session_id, "uuid": str(uuid.uuid4())}]
    if not isinstance(event, CompactionFinished):
        return []
    status: dict[str, Any] = {"type": "system", "subtype": "status", "status": None,
                              "compact_result": "success" if event.outcome == "compacted" else "failed",
                              "session_id": session_id, "uuid": str(uuid.uuid4())}
    if event.outcome != "compacted":
        status["compact_error"] = event.detail
        return [status]
    boundary = {"type": "system", "subtype": "compact_boundary", "session_id": session_id, "uuid": str(uuid.uuid4()),
                "compact_metadata": {"trigger": "auto" if event.trigger == "recovery" else event.trigger, "pre_tokens": event.pre_tokens,
                                     "post_tokens": event.post_tokens, "duration_ms": int(event.duration * 1000)}}
    return [status, boundary]


def compaction_note(event: Any) -> str | None:
    """A line for people (stderr in text mode)."""
    if isinstance(event, CompactionStarted):
        return f"[info] Compacting the conversation ({event.pre_tokens:,} tokens)…"
    if isinstance(event, CompactionFinished):
        if event.outcome == "compacted":
            return f"[info] Conversation compacted: {event.pre_tokens:,} → {event.post_tokens:,} tokens in {event.duration:.1f}s."
        return f"[warning] Compaction {event.outcome}: {event.detail}"
    return None
