"""`as_sdk()`: the dict an SDK program gets from `get_context_usage()` (claude-agent-sdk's
ContextUsageResponse keys: categories of name/tokens, totalTokens, maxTokens, rawMaxTokens, percentage,
model, isAutoCompactEnabled), plus autoCompactThreshold."""

from __future__ import annotations

from tests.core.context.context_report_inputs import busy_breakdown
from tui_agent.core.context.breakdown import Category, ContextBreakdown

CATEGORIES = [
    {"name": "System prompt", "tokens": 1000}, {"name": "System tools", "tokens": 128},
    {"name": "MCP tools", "tokens": 4732}, {"name": "Memory files", "tokens": 999},
    {"name": "Messages", "tokens": 135}, {"name": "Tool results", "tokens": 15803},
]


def test_with_auto_compact_the_usage_has_free_space_a_buffer_and_the_threshold_as_its_maximum():
    usage = busy_breakdown().as_sdk()
    assert usage == {
        "categories": [*CATEGORIES, {"name": "Free space", "tokens": 144203}, {"name": "Autocompact buffer", "tokens": 33000}],
        "totalTokens": 22797, "maxTokens": 167000, "rawMaxTokens": 200000, "percentage": 11.4,
        "model": "claude-sonnet-4-6", "isAutoCompactEnabled": True, "autoCompactThreshold": 167000,
    }
    assert isinstance(usage["percentage"], float)


def test_without_auto_compact_the_window_is_the_maximum_and_there_is_no_buffer():
    usage = busy_breakdown(used=50_123, environ={"DISABLE_AUTO_COMPACT": "1"}).as_sdk()
    assert usage == {
        "categories": [*CATEGORIES, {"name": "Free space", "tokens": 149877}],
        "totalTokens": 50123, "maxTokens": 200000, "rawMaxTokens": 200000, "percentage": 25.1,
        "model": "claude-sonnet-4-6", "isAutoCompactEnabled": False, "autoCompactThreshold": 167000,
    }


def test_the_percentage_is_of_the_window_and_zero_without_one():
    assert ContextBreakdown("m", 0, 0, False, 150, (Category("Messages", 150),)).as_sdk()["percentage"] == 0.0
    assert ContextBreakdown("m", 1, 0, False, 1, (Category("Messages", 1),)).as_sdk()["percentage"] == 100.0
    assert ContextBreakdown("m", 3, 0, False, 1, (Category("Messages", 1),)).as_sdk()["percentage"] == 33.3
