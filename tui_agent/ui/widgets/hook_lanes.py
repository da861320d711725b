"""A settings command hook in the lane panel while it runs, like a tool: its event as the name, its command as
the summary, its own timer and bar (no lane number: it holds no tool slot), no cell in the conversation."""

from __future__ import annotations

from ...core.events import HookFinished, HookStarted, ToolFinished, ToolQueued, ToolStarted
from .tool_calls import ToolCalls

HOOK_EVENTS_DRAWN = (HookStarted, HookFinished)


def apply_hook_event(calls: ToolCalls, event: HookStarted | HookFinished) -> bool:
    """The hook's row started or finished; True when the lanes must draw again."""
    if isinstance(event, HookStarted):
        calls.on_queued(ToolQueued(event.id, event.event, {"command": event.command}, event.command, True, event.t))
        return calls.on_started(ToolStarted(event.id, event.event, -1, event.t)) is not None
    finished = ToolFinished(event.id, event.event, event.status, -1, event.t_start, event.t_end, "", event.status == "error")
    return calls.on_finished(finished) is not None
