"""The subagent lane state and rows, without a terminal: events in, rows and flags out (fixed times)."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text

from tui_agent.core.events import (
    SubagentEvent,
    SubagentFinished,
    SubagentStarted,
    TextDelta,
    ToolFinished,
    ToolQueued,
    ToolStarted,
    UsageUpdated,
)
from tui_agent.ui.widgets.agent_lanes import STALLED_AFTER_S, SubagentView, agent_row_parts, apply_subagent_event, lane_rows
from tui_agent.ui.widgets.lane_row import lane_row
from tui_agent.ui.widgets.lanes import ROLES
from tui_agent.ui.widgets.tool_calls import ToolCall, ToolCalls

STYLES = {role: Style() for role in ROLES}


def blank_bar(width: int) -> Text:
    return Text(" " * width)


def agent_row(call: ToolCall, view: SubagentView, now: float) -> str:
    return lane_row(call, agent_row_parts(call, view, now), STYLES, 120, selected=False, bar=blank_bar).plain


def started_group(calls: ToolCalls, now: float = 100.0) -> None:
    calls.on_queued(ToolQueued("toolu_a", "Agent", {}, "Explore: find it", True, now))
    calls.on_started(ToolStarted("toolu_a", "Agent", 0, now))
    apply_subagent_event(calls, SubagentStarted("toolu_a", "a1", "Explore", "Find it", "find it", "m", now), now)
    inner = ToolQueued("toolu_g", "Grep", {}, "TODO", True, now)
    apply_subagent_event(calls, SubagentEvent("toolu_a", "a1", inner), now)
    apply_subagent_event(calls, SubagentEvent("toolu_a", "a1", ToolStarted("toolu_g", "Grep", 0, now)), now)
    usage = UsageUpdated("m", 100, 20, 0, 0, 1500, 200, None, None)
    apply_subagent_event(calls, SubagentEvent("toolu_a", "a1", usage), now)


def test_a_subagents_calls_sit_under_its_agent_row() -> None:
    calls = ToolCalls()
    started_group(calls)
    rows = lane_rows(calls, max_rows=8)
    assert [(r.id, r.depth) for r in rows] == [("toolu_a", 0), ("toolu_g", 1)]
    view = calls.agents["toolu_a"]
    assert view.activity == "Grep: TODO" and view.tokens == 1700
    text = agent_row(rows[0], view, 103.0)
    assert "Explore" in text and "Find it · Grep: TODO" in text and "3.0s · 1.7k tok" in text


def test_no_event_for_30_seconds_flags_the_subagent_as_stalled() -> None:
    calls = ToolCalls()
    started_group(calls)
    view = calls.agents["toolu_a"]
    assert not view.stalled(100.0 + STALLED_AFTER_S - 1)
    assert view.stalled(100.0 + STALLED_AFTER_S)
    row = agent_row(calls.get("toolu_a"), view, 135.0)
    assert "stalled: no event for 35s" in row
    apply_subagent_event(calls, SubagentEvent("toolu_a", "a1", TextDelta("x")), 135.0)
    assert not view.stalled(135.0) and view.activity == "writing its report"


def test_a_finished_group_folds_to_one_line() -> None:
    calls = ToolCalls()
    started_group(calls)
    apply_subagent_event(calls, SubagentFinished("toolu_a", "a1", "completed", "found", 1700, 1, 4200, 104.2), 104.2)
    calls.on_finished(ToolFinished("toolu_a", "Agent", "ok", 0, 100.0, 104.2, "found", False))
    rows = lane_rows(calls, max_rows=8)
    assert [r.id for r in rows] == ["toolu_a"]
    text = agent_row(rows[0], calls.agents["toolu_a"], 110.0)
    assert "Find it · 1 tool · 1.7k tok" in text and "done 4.2s" in text
