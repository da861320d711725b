"""The exact text `/context` shows (the app and `-p "/context"`): header, threshold line, one aligned line
per category, the named MCP tools, memory files and largest tool results, shortened to the width."""

from __future__ import annotations

from tests.core.context.context_report_inputs import busy_breakdown
from tui_agent.core.context.breakdown import Category, ContextBreakdown, context_breakdown, format_breakdown, shorten, subject
from tui_agent.core.context.window import thresholds

BUSY_80 = """\
Context usage · claude-sonnet-4-6 · 22.8k/200.0k tokens (11.4%)
Context left until auto-compact: 86% (compacts at 167.0k)
  System prompt:         1.0k tokens (0.5%)
  System tools:           128 tokens (0.1%)
  MCP tools:             4.7k tokens (2.4%) · 2 deferred
  Memory files:           999 tokens (0.5%)
  Messages:               135 tokens (0.1%)
  Tool results:         15.8k tokens (7.9%)
  Free space:          144.2k tokens (72.1%)
  Autocompact buffer:   33.0k tokens (16.5%)
MCP tools:
     2.5k  mcp__docs__a_very_long_tool_name_that_does_not_fit_in_a_narrow_report
      617  mcp__docs__tool_6
      517  mcp__docs__tool_5
      417  mcp__docs__tool_4
      317  mcp__docs__tool_3
Memory files:
      999  /home/user/project/CLAUDE.md
Largest tool results:
    10.0k  Read  …oject/src/a/deeply/nested/package/module_with_a_long_name.py
     2.0k  Bash  python -m pytest -q tests/core/context/test_a_rather_long_te…
     1.5k  Read  …ers\\user\\project\\src\\windows\\path\\that\\is\\quite\\long\\file.py
     1.0k  Glob  …tes/a/long/home/relative/path/with/many/parts/in/it/notes.md
      754  ?"""

NARROW_MEASURED = """\
Context usage · claude-sonnet-4-6 · 60.0k/200.0k tokens (30.0%)
Context left until auto-compact: 64% (compacts at 167.0k)
  System prompt:         1.0k tokens (0.5%)
  System tools:           128 tokens (0.1%)
  MCP tools:             4.7k tokens (2.4%) · 2 deferred
  Memory files:           999 tokens (0.5%)
  Messages:               135 tokens (0.1%)
  Tool results:         15.8k tokens (7.9%)
  Free space:          107.0k tokens (53.5%)
  Autocompact buffer:   33.0k tokens (16.5%)
MCP tools:
     2.5k  mcp__docs__a_very_…
      617  mcp__docs__tool_6
      517  mcp__docs__tool_5
      417  mcp__docs__tool_4
      317  mcp__docs__tool_3
Memory files:
      999  …/project/CLAUDE.md
Largest tool results:
    10.0k  Read  …ng_name.py
     2.0k  Bash  python -m …
     1.5k  Read  …ng\\file.py
     1.0k  Glob  …t/notes.md
      754  ?
(the categories are estimates: 22.8k in all)"""


def test_the_report_of_a_busy_conversation_reads_exactly_so_at_the_default_width():
    text = format_breakdown(busy_breakdown())
    assert text == BUSY_80
    assert max(len(line) for line in text.splitlines()) <= 80


def test_a_narrow_report_keeps_file_names_and_command_starts_and_says_the_categories_are_estimates():
    assert format_breakdown(busy_breakdown(used=60_000), width=30) == NARROW_MEASURED


def test_without_auto_compact_the_report_says_so_and_has_no_buffer_line():
    lines = format_breakdown(busy_breakdown(environ={"DISABLE_AUTO_COMPACT": "1"})).splitlines()
    assert lines[1] == "Automatic compaction is off"
    assert lines[2:10] == [
        "  System prompt:         1.0k tokens (0.5%)",
        "  System tools:           128 tokens (0.1%)",
        "  MCP tools:             4.7k tokens (2.4%) · 2 deferred",
        "  Memory files:           999 tokens (0.5%)",
        "  Messages:               135 tokens (0.1%)",
        "  Tool results:         15.8k tokens (7.9%)",
        "  Free space:          177.2k tokens (88.6%)",
        "MCP tools:",
    ]


def test_an_empty_conversation_shows_its_messages_line_and_deferred_mcp_tools_only():
    t = thresholds("claude-sonnet-4-6", environ={})
    request = {"tools": [{"name": "mcp__docs__later", "description": "f" * 600, "defer_loading": True}]}
    b = context_breakdown(request=request, history=[], memory_files=[], thresholds=t)
    assert format_breakdown(b) == (
        "Context usage · claude-sonnet-4-6 · 0/200.0k tokens (0.0%)\n"
        "Context left until auto-compact: 100% (compacts at 167.0k)\n"
        "  MCP tools:                0 tokens (0.0%) · 1 deferred\n"
        "  Messages:                 0 tokens (0.0%)\n"
        "  Free space:          167.0k tokens (83.5%)\n"
        "  Autocompact buffer:   33.0k tokens (16.5%)"
    )


def test_past_the_threshold_nothing_is_left_and_a_zero_threshold_does_not_divide():
    past = ContextBreakdown("m", 1000, 100, True, 150, (Category("Messages", 150),))
    assert format_breakdown(past).splitlines()[:3] == [
        "Context usage · m · 150/1.0k tokens (15.0%)",
        "Context left until auto-compact: 0% (compacts at 100)",
        "  Messages:               150 tokens (15.0%)",
    ]
    zero = ContextBreakdown("m", 1000, 0, True, 150, (Category("Messages", 150),))
    assert format_breakdown(zero).splitlines()[1] == "Context left until auto-compact: 0% (compacts at 0)"
    no_window = ContextBreakdown("m", 0, 0, False, 150, (Category("Messages", 150),))
    assert format_breakdown(no_window) == (
        "Context usage · m · 150/0 tokens (0.0%)\nAutomatic compaction is off\n"
        "  Messages:               150 tokens (0.0%)\n  Free space:               0 tokens (0.0%)"
    )


def test_at_a_very_narrow_width_each_name_and_subject_keeps_ten_characters():
    named = format_breakdown(busy_breakdown(), width=20).split("\nMCP tools:\n", 1)[1]
    assert named.splitlines() == [
        "     2.5k  mcp__docs…",
        "      617  mcp__docs…",
        "      517  mcp__docs…",
        "      417  mcp__docs…",
        "      317  mcp__docs…",
        "Memory files:",
        "      999  …CLAUDE.md",
        "Largest tool results:",
        "    10.0k  Read  …g_name.py",
        "     2.0k  Bash  python -m…",
        "     1.5k  Read  …g\\file.py",
        "     1.0k  Glob  …/notes.md",
        "      754  ?",
    ]


def test_only_paths_keep_their_end_a_glob_or_a_word_with_a_colon_keeps_its_start():
    glob = "**/src/components/very/long/glob/pattern/that/goes/on/and/on/for/ever/and/ever/*.tsx"
    assert subject({"pattern": glob}) == glob[:79] + "…"
    assert shorten("a:Xylophone and more words", 10) == "a:Xylopho…"
    assert shorten("C:/Users/me/project/file.py", 10) == "…t/file.py"
    assert shorten("exactly10!", 10) == "exactly10!"
