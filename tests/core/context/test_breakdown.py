"""`/context`'s breakdown (issue 13 item 1): what fills the context, by category, with the largest items named."""

from __future__ import annotations

from tests.core.support import sample_tools
from tui_agent.core.context.breakdown import agent_breakdown, context_breakdown, format_breakdown, subject
from tui_agent.core.context.tokens import text_tokens
from tui_agent.core.context.window import thresholds
from tui_agent.providers.scripted import Reply, Text, ToolUse


def history_with_results() -> list[dict]:
    calls = [
        ("t1", "Read", {"file_path": "/src/big.py"}, "x" * 40_000),
        ("t2", "Bash", {"command": "pytest -q\nsecond line"}, "y" * 8_000),
        ("t3", "Grep", {"pattern": "TODO"}, "z" * 400),
        ("t4", "Glob", {"pattern": "**/*.md"}, "w" * 4_000),
        ("t5", "WebFetch", {"url": "https://example.com/doc"}, "v" * 2_000),
        ("t6", "Read", {"file_path": "/src/small.py"}, "u" * 100),
    ]
    return [
        {"role": "user", "content": "look around"},
        {"role": "assistant", "content": [{"type": "text", "text": "Looking."}, *({"type": "tool_use", "id": i, "name": n, "input": inp} for i, n, inp, _ in calls)]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": i, "content": out} for i, _, _, out in calls]},
        {"role": "assistant", "content": [{"type": "text", "text": "Done."}]},
    ]


def request() -> dict:
    return {
        "system": [{"type": "text", "text": "s" * 4_000}],
        "tools": [
            {"name": "Read", "description": "d" * 2_000, "input_schema": {}},
            {"name": "mcp__docs__search", "description": "m" * 6_000, "input_schema": {}},
            {"name": "mcp__docs__fetch", "description": "f" * 6_000, "input_schema": {}, "defer_loading": True},
        ],
    }


class TestBreakdown:
    def test_categories_are_counted_and_the_largest_results_named_with_their_subject(self):
        t = thresholds("claude-sonnet-4-6", environ={})
        b = context_breakdown(request=request(), history=history_with_results(),
                              memory_files=[("/p/CLAUDE.md", "m" * 1_200)], thresholds=t)
        by = {c.name: c for c in b.categories}
        assert by["System prompt"].tokens == text_tokens("s" * 4_000)
        assert by["System tools"].tokens > 500 and [i.name for i in by["System tools"].items] == ["Read"]
        assert by["MCP tools"].deferred == 1 and [i.name for i in by["MCP tools"].items] == ["mcp__docs__search"]
        assert by["Memory files"].items[0].name == "/p/CLAUDE.md" and by["Memory files"].tokens == 300
        assert by["Tool results"].tokens > by["Messages"].tokens
        assert [(i.name, i.detail) for i in b.largest_results] == [
            ("Read", "/src/big.py"), ("Bash", "pytest -q"), ("Glob", "**/*.md"), ("WebFetch", "https://example.com/doc"), ("Grep", "TODO"),
        ]
        assert b.used == b.estimated  # no measured figure: the estimate
        assert b.buffer == t.window - t.autocompact and b.free == t.window - b.used - b.buffer

    def test_the_text_names_the_window_the_threshold_and_each_part(self):
        t = thresholds("claude-sonnet-4-6", environ={})
        b = context_breakdown(request=request(), history=history_with_results(), memory_files=[], thresholds=t, used=50_000)
        text = format_breakdown(b)
        assert "50.0k/200.0k tokens (25.0%)" in text
        assert "Context left until auto-compact: 70%" in text  # (167k - 50k) / 167k
        for part in ("System prompt:", "System tools:", "MCP tools:", "Messages:", "Tool results:", "Free space:", "Autocompact buffer:", "/src/big.py"):
            assert part in text, part
        assert all(len(line) <= 80 for line in text.splitlines() if "/src" in line)
        assert b.as_sdk()["rawMaxTokens"] == 200_000 and b.as_sdk()["totalTokens"] == 50_000

    def test_without_automatic_compaction_there_is_no_buffer(self):
        t = thresholds("claude-sonnet-4-6", environ={"DISABLE_AUTO_COMPACT": "1"})
        b = context_breakdown(request={}, history=[{"role": "user", "content": "hi"}], memory_files=[], thresholds=t)
        assert b.buffer == 0 and "Automatic compaction is off" in format_breakdown(b)

    def test_subject_is_one_short_line(self):
        assert subject({"command": "a" * 200}).endswith("…") and len(subject({"command": "a" * 200})) == 80
        assert subject({"old_string": "x"}) == ""


async def test_an_agents_breakdown_agrees_with_its_meter(make_harness):
    h = make_harness([Reply([ToolUse("SleepRead", {"text": "r" * 3_000})]), Reply([Text("ok")])], tools=sample_tools())
    await h.agent.run("go")
    b = agent_breakdown(h.agent)
    assert b.used == h.agent.context_size().used
    assert b.largest_results[0].name == "SleepRead"
    assert {c.name for c in b.categories} >= {"System prompt", "System tools", "Messages", "Tool results"}
