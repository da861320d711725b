"""What each `/context` category counts, token by token, and which memory files an agent's report names."""

from __future__ import annotations

from pathlib import Path

from tests.core.context.context_report_inputs import LONG_MCP, MEMORY, busy_history, busy_request
from tui_agent.core.context.breakdown import Category, Item, agent_breakdown, context_breakdown
from tui_agent.core.context.window import thresholds
from tui_agent.providers.scripted import Reply, Text

T = thresholds("claude-sonnet-4-6", environ={})


def breakdown(**kw):
    args = {"request": busy_request(), "history": busy_history(), "memory_files": MEMORY, "thresholds": T, **kw}
    return context_breakdown(**args)


def test_every_category_of_a_busy_conversation_counts_exactly_so():
    b = breakdown()
    assert b.categories == (
        Category("System prompt", 1000),
        Category("System tools", 128, (Item("Read", 114), Item("bash_20250124", 7), Item("?", 7))),
        Category("MCP tools", 4732, (Item(LONG_MCP, 2530), Item("mcp__docs__tool_6", 617), Item("mcp__docs__tool_5", 517),
                                     Item("mcp__docs__tool_4", 417), Item("mcp__docs__tool_3", 317)), deferred=2),
        Category("Memory files", 999, (Item("/home/user/project/CLAUDE.md", 999),)),
        Category("Messages", 135),
        Category("Tool results", 15803, (
            Item("Read", 10004, "/home/user/project/src/a/deeply/nested/package/module_with_a_long_name.py"),
            Item("Bash", 2004, "python -m pytest -q tests/core/context/test_a_rather_long_test_file_name.py -k …"),
            Item("Read", 1504, "C:\\Users\\user\\project\\src\\windows\\path\\that\\is\\quite\\long\\file.py"),
            Item("Glob", 1004, "~/notes/a/long/home/relative/path/with/many/parts/in/it/notes.md"),
            Item("?", 504, "https://example.com/doc"),
            Item("Grep", 29, "TODO"),
            Item("?", 754, ""),  # its call is no longer in the history
        )),
    )
    assert [(i.name, i.tokens) for i in b.largest_results] == [("Read", 10004), ("Bash", 2004), ("Read", 1504), ("Glob", 1004), ("?", 754)]
    assert b.model == "claude-sonnet-4-6" and b.used == b.estimated == 22797


def test_a_plain_string_system_prompt_and_a_message_without_content_are_counted():
    b = context_breakdown(request={"system": "s" * 400}, history=[{"role": "user"}, {"role": "user", "content": "hi"}],
                          memory_files=[], thresholds=T)
    assert [(c.name, c.tokens) for c in b.categories if c.tokens] == [("System prompt", 100), ("Messages", 9)]


def test_a_tool_definition_with_a_non_json_value_is_counted_by_its_text():
    b = context_breakdown(request={"tools": [{"name": "X", "input_schema": {"default": Path("/tmp/p")}}]}, history=[],
                          memory_files=[], thresholds=T)
    assert b.categories[1] == Category("System tools", 13, (Item("X", 13),))


def test_a_measured_figure_replaces_the_estimate_but_zero_means_unknown():
    assert breakdown(used=1).used == 1
    assert breakdown(used=0).used == 22797
    assert breakdown(used=None).used == 22797


async def test_an_agents_report_names_its_claude_md(make_harness, tmp_path):
    work = tmp_path / "work"
    (work / ".git").mkdir(parents=True)
    (work / "CLAUDE.md").write_text("r" * 400)
    h = make_harness([Reply([Text("ok")])])
    await h.agent.run("go")
    memory = agent_breakdown(h.agent).categories[3]
    assert memory == Category("Memory files", 100, (Item(str(work / "CLAUDE.md"), 100),))


async def test_an_agent_without_memory_reports_no_memory_files(make_harness, tmp_path):
    work = tmp_path / "work"
    (work / ".git").mkdir(parents=True)
    (work / "CLAUDE.md").write_text("r" * 400)
    h = make_harness([Reply([Text("ok")])], memory=False)
    await h.agent.run("go")
    assert agent_breakdown(h.agent).categories[3] == Category("Memory files", 0)
