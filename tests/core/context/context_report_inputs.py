"""A busy conversation for the `/context` report tests: built-in, server and nameless tools, seven MCP
tools (two deferred), a memory file, tool results about a POSIX path, a Windows path, a `~` path, a long
command, a call without a name and a result whose call is gone."""

from __future__ import annotations

from typing import Any

from tui_agent.core.context.breakdown import ContextBreakdown, context_breakdown
from tui_agent.core.context.window import thresholds

LONG_MCP = "mcp__docs__a_very_long_tool_name_that_does_not_fit_in_a_narrow_report"


def busy_request() -> dict[str, Any]:
    return {
        "system": [{"type": "text", "text": "s" * 4_000}],
        "tools": [
            {"name": "Read", "description": "é" * 400, "input_schema": {}},  # counted as sent: UTF-8, not \u escapes
            {"type": "bash_20250124"},  # a server tool known by its type
            {"description": "nameless"},
            *({"name": f"mcp__docs__tool_{n}", "description": "m" * (400 * n), "input_schema": {}} for n in range(1, 7)),
            {"name": LONG_MCP, "description": "q" * 10_000, "input_schema": {}},
            {"name": "mcp__docs__later", "description": "f" * 6_000, "input_schema": {}, "defer_loading": True},
            {"name": "mcp__docs__later_too", "description": "g" * 6_000, "input_schema": {}, "defer_loading": True},
        ],
    }


CALLS = [
    ("t1", "Read", {"file_path": "/home/user/project/src/a/deeply/nested/package/module_with_a_long_name.py"}, "x" * 40_000),
    ("t2", "Bash", {"command": "python -m pytest -q tests/core/context/test_a_rather_long_test_file_name.py -k breakdown"}, "y" * 8_000),
    ("t3", "Read", {"file_path": "C:\\Users\\user\\project\\src\\windows\\path\\that\\is\\quite\\long\\file.py"}, "z" * 6_000),
    ("t4", "Glob", {"pattern": "~/notes/a/long/home/relative/path/with/many/parts/in/it/notes.md"}, "w" * 4_000),
    ("t5", None, {"url": "https://example.com/doc"}, "v" * 2_000),
    ("t6", "Grep", {"pattern": "TODO"}, "u" * 100),
]


def busy_history() -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "look around"},
        {"role": "assistant", "content": [
            {"type": "text", "text": "Looking."},
            *({"type": "tool_use", "id": i, **({"name": n} if n else {}), "input": inp} for i, n, inp, _ in CALLS)]},
        {"role": "user", "content": [
            *({"type": "tool_result", "tool_use_id": i, "content": out} for i, _, _, out in CALLS),
            {"type": "tool_result", "tool_use_id": "gone", "content": "r" * 3_000}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Done."}]},
    ]


MEMORY = [("/home/user/project/CLAUDE.md", "m" * 3_996)]


def busy_breakdown(used: int | None = None, environ: dict[str, str] | None = None) -> ContextBreakdown:
    return context_breakdown(request=busy_request(), history=busy_history(), memory_files=MEMORY,
                             thresholds=thresholds("claude-sonnet-4-6", environ=environ or {}), used=used)
