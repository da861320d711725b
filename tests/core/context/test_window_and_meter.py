"""The model table, the thresholds Claude Code users already set, and the meter the status line shows."""

from __future__ import annotations

import json

import pytest

from tui_agent.core.context import ContextMeter, limits_for, messages_tokens, thresholds
from tui_agent.core.events import ContextUpdated
from tui_agent.providers.scripted import Reply, Text, ToolUse

from tests.core.support import sample_tools


def test_the_table_gives_each_family_its_window_and_output_maximum() -> None:
    assert (limits_for("claude-sonnet-4-6").window, limits_for("claude-sonnet-4-6").max_output) == (200_000, 32_000)
    assert limits_for("claude-sonnet-4-6[1m]").window == 1_000_000
    assert limits_for("claude-haiku-4-5[1m]").window == 200_000  # no 1M Haiku
    assert limits_for("claude-3-5-haiku-20241022").max_output == 8_192
    assert limits_for("some-local-model").window == 200_000


def test_the_default_threshold_is_claude_codes_and_the_percent_override_only_lowers_it() -> None:
    assert thresholds("claude-sonnet-4-6", environ={}).autocompact == 167_000
    assert thresholds("claude-sonnet-4-6[1m]", environ={}).autocompact == 967_000
    assert thresholds("claude-sonnet-4-6", environ={"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": "50"}).autocompact == 90_000
    assert thresholds("claude-sonnet-4-6", environ={"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": "99"}).autocompact == 167_000
    assert thresholds("claude-sonnet-4-6", environ={"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": "junk"}).autocompact == 167_000
    assert not thresholds("claude-sonnet-4-6", environ={"DISABLE_AUTO_COMPACT": "1"}).autocompact_enabled
    t = thresholds("claude-sonnet-4-6", environ={})
    assert t.prune < t.autocompact


def test_settings_override_the_table_cap_the_window_and_carry_the_env_block() -> None:
    settings = {
        "contextWindows": {"claude-sonnet": {"contextWindow": 100_000, "maxOutputTokens": 8_000}},
        "autoCompactWindow": 80_000,
        "env": {"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": "50"},
        "autoCompactEnabled": False,
        "autoPrunePct": 50,
    }
    t = thresholds("claude-sonnet-4-6", read=lambda k, d: settings.get(k, d), environ={})
    assert (t.window, t.max_output) == (100_000, 8_000)
    assert t.autocompact == (80_000 - 8_000) // 2
    assert t.prune == t.autocompact // 2
    assert not t.autocompact_enabled


def test_the_meter_is_the_last_usage_plus_an_estimate_of_what_came_after() -> None:
    meter = ContextMeter()
    history = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": [{"type": "text", "text": "hello"}]}]
    meter.observe({"input_tokens": 1000, "cache_read_input_tokens": 500, "cache_creation_input_tokens": 200, "output_tokens": 50}, history[-1])
    assert meter.used(history) == 1750
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "x" * 4000}]}
    history.append(result)
    assert meter.used(history) == 1750 + messages_tokens([result])
    assert 1000 < messages_tokens([result]) < 1100
    replaced = [{"role": "user", "content": "summary"}]
    assert meter.used(replaced, overhead=300) == 300 + messages_tokens(replaced)


def test_an_image_counts_by_its_encoded_size_but_never_more_than_the_largest_image() -> None:
    small = {"role": "user", "content": [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "A" * 400}}]}
    huge = {"role": "user", "content": [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "A" * 4_000_000}}]}
    assert messages_tokens([small]) < 120
    assert messages_tokens([huge]) < 2_000


async def test_each_response_reports_the_context_size_from_its_usage(make_harness) -> None:
    script = [
        Reply([ToolUse("SleepRead", {"text": "y" * 8000})], input_tokens=150_000, output_tokens=100),
        Reply([Text("done")], input_tokens=152_100, output_tokens=20),
    ]
    h = make_harness(script, tools=sample_tools())
    await h.agent.run("go")
    updates = h.of(ContextUpdated)
    assert [u.used for u in updates] == [150_100, 152_120]
    assert all((u.window, u.threshold, u.cause) == (200_000, 167_000, "response") for u in updates)
    assert updates[-1].left_until_compaction == pytest.approx((167_000 - 152_120) / 167_000)
    now = h.agent.context_size()
    assert now.used == 152_120 and now.cause == "estimate"


def test_the_overhead_counts_a_tool_that_joins_the_session(make_harness) -> None:
    from tui_agent.tools.registry import ToolRegistry

    h = make_harness([Reply([Text("x")])], tools=sample_tools()[:1])
    manager = h.agent.context_manager
    one = manager.overhead()
    assert manager.overhead() == one
    h.agent.registry = ToolRegistry(sample_tools())  # as when an MCP server's tools arrive mid-session
    more = manager.overhead()
    definitions = json.dumps([t.api_definition() for t in sample_tools()[1:]])
    assert more - one >= len(definitions) // 4 - 2
    h.agent.registry = ToolRegistry(sample_tools()[:1])
    assert manager.overhead() == one
