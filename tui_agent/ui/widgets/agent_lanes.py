"""Subagents in the lane panel: each running subagent is a group of lanes under its Agent call.

The Agent call's row is the group's header (type, description, current activity, elapsed time, tokens
so far); its own tools' rows sit under it, indented, on the same time axis. A subagent with no event
for 30 s is flagged as stalled; a finished group folds to its header line with duration, tool count and
tokens. State lives in `ToolCalls` (child calls carry their parent's id), so the transcript cell and the
lane draw the same facts.
"""

from __future__ import annotations

from dataclasses import dataclass
from ...core.events import (
    Event,
    PermissionAnswered,
    PermissionAsked,
    SubagentEvent,
    SubagentFinished,
    SubagentStarted,
    TextDelta,
    ThinkingDelta,
    ToolFinished,
    ToolProgress,
    ToolQueued,
    ToolStarted,
    UsageUpdated,
)
from .lane_row import RowParts
from .tool_calls import ToolCall, ToolCalls

STALLED_AFTER_S = 30.0
BAR_NAME_W = 4
CHILD_DONE_ROWS = 1
"""Finished rows kept under a running subagent (the rest fold away)."""

SUBAGENT_EVENTS = (SubagentEvent, SubagentStarted, SubagentFinished)


@dataclass(eq=False)
class SubagentView:
    """What the UI knows of one subagent, keyed by its Agent call's tool_use id."""

    tool_use_id: str
    agent_type: str
    description: str
    model: str
    t_start: float
    t_last_event: float
    tokens: int = 0
    tool_uses: int = 0
    activity: str = "starting"
    finished: bool = False
    reason: str = ""
    result: str = ""
    duration_s: float = 0.0

    def quiet_for(self, now: float) -> float:
        return 0.0 if self.finished else max(0.0, now - self.t_last_event)

    def stalled(self, now: float) -> bool:
        return self.quiet_for(now) >= STALLED_AFTER_S


def short_tokens(n: int) -> str:
    return f"{n / 1000:.1f}k" if n >= 1000 else str(n)


def apply_subagent_event(calls: ToolCalls, event: Event, now: float) -> bool:
    """Apply a subagent event to the calls and views; True when the lanes should redraw."""
    if isinstance(event, SubagentStarted):
        calls.agents[event.parent_tool_use_id] = SubagentView(
            event.parent_tool_use_id, event.agent_type, event.description, event.model, event.t, now
        )
        return True
    if isinstance(event, SubagentFinished):
        view = calls.agents.get(event.parent_tool_use_id)
        if view is not None:
            view.finished, view.reason, view.result = True, event.reason, event.result
            view.tool_uses, view.duration_s = event.tool_uses, event.duration_ms / 1000
            view.activity = "done" if event.reason == "completed" else event.reason
        return True
    if not isinstance(event, SubagentEvent):
        return False
    owner, inner = event.innermost
    view = calls.agents.get(owner)
    if view is not None:
        view.t_last_event = now
    if isinstance(inner, SUBAGENT_EVENTS):  # a grandchild starting or ending, inside this subagent
        return apply_subagent_event(calls, inner, now)
    if isinstance(inner, ToolQueued):
        call = calls.on_queued(inner)
        parent = calls.get(owner)
        call.parent = owner
        call.depth = (parent.depth + 1) if parent is not None else 1
        return True
    if isinstance(inner, ToolStarted):
        call = calls.on_started(inner)
        if view is not None and call is not None:
            view.activity = f"{call.name}: {call.subject}" if call.subject else call.name
        return call is not None
    if isinstance(inner, ToolProgress):
        return calls.on_progress(inner, now) is not None
    if isinstance(inner, PermissionAsked):
        if view is not None:
            view.activity = f"waiting for you: {inner.name}"
        return calls.on_asked(inner) is not None
    if isinstance(inner, PermissionAnswered):
        return calls.on_answered(inner) is not None
    if isinstance(inner, ToolFinished):
        if view is not None:
            view.tool_uses += 1
        return calls.on_finished(inner) is not None
    if view is not None:
        if isinstance(inner, UsageUpdated):
            view.tokens = inner.total_input_tokens + inner.total_output_tokens
        elif isinstance(inner, TextDelta):
            view.activity = "writing its report"
        elif isinstance(inner, ThinkingDelta):
            view.activity = "thinking"
    return view is not None


def lane_rows(calls: ToolCalls, max_rows: int) -> list[ToolCall]:
    """The rows to draw: the main agent's calls as before (active by lane, then the latest finished),
    each running subagent's calls right under its Agent row; finished groups fold to their header."""
    everything = list(calls.calls.values())
    top = [c for c in everything if c.parent is None]
    active = sorted((c for c in top if c.active), key=lambda c: (c.lane < 0, c.lane, c.t_queued))
    done = [c for c in top if not c.active]
    children: dict[str, list[ToolCall]] = {}
    for call in everything:
        if call.parent is not None:
            children.setdefault(call.parent, []).append(call)

    def group(call: ToolCall) -> list[ToolCall]:
        view = calls.agents.get(call.id)
        if view is None or view.finished or not call.active:
            return [call]
        kids = children.get(call.id, [])
        running = [k for k in kids if k.active]
        finished = [k for k in kids if not k.active][-CHILD_DONE_ROWS:]
        rows = [call]
        for kid in finished + running:
            rows += group(kid)
        return rows

    rows = [row for call in active for row in group(call)]
    room = max(0, max_rows - len(rows))
    return rows + (done[-room:] if room else [])


def agent_row_parts(call: ToolCall, view: SubagentView, now: float) -> RowParts:
    """A subagent's header row: type, description and what it does now, elapsed time and tokens."""
    stalled = call.active and view.stalled(now)
    phase_role = {"ok": "ok", "error": "error", "cancelled": "muted", "denied": "warning"}.get(call.phase, "primary")
    glyph = {"ok": "✓", "error": "✗", "cancelled": "■", "denied": "⊘"}.get(call.phase, "◆")
    elapsed = call.elapsed(now)
    if call.active:
        detail = f"stalled: no event for {int(view.quiet_for(now))}s" if stalled else view.activity
        status = f"{elapsed:.1f}s · {short_tokens(view.tokens)} tok"
    else:
        detail = f"{view.tool_uses} tool{'s' if view.tool_uses != 1 else ''} · {short_tokens(view.tokens)} tok"
        status = f"{'done' if call.phase == 'ok' else call.phase} {elapsed:.1f}s"
    return RowParts(
        glyph=glyph,
        role="warning" if stalled else phase_role,
        name=view.agent_type,
        name_w=min(16, max(4, len(view.agent_type))),
        summary=((view.description, None), (" · " + detail, "warning" if stalled else "muted")),
        status=status,
        # The bar as wide as beside a 4-letter tool (Bash, Read, Grep, Glob): the group's bars share
        # one time axis, column for column.
        bar_name_w=BAR_NAME_W,
    )


def hidden_rows(calls: ToolCalls, rows: list[ToolCall]) -> int:
    """How many of the main agent's calls are not shown (folded subagent calls do not count)."""
    shown = sum(1 for r in rows if r.parent is None)
    return sum(1 for c in calls.calls.values() if c.parent is None) - shown
