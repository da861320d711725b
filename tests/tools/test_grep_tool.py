"""Grep: ripgrep's search in three output modes, with Claude Code's parameter names and aliases."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.tools.conftest import BIG_TREE_NEEDLE
from tests.tools.support import run_tool, text
from tui_agent.tools.base import FileReadState, ToolContext, Workspace
from tui_agent.tools.grep import GrepTool


async def grep(ctx: ToolContext, pattern: str, **kw: object):
    return await run_tool(GrepTool(), ctx, pattern=pattern, **kw)


@pytest.fixture
def sources(workspace: Path) -> dict[str, Path]:
    files = {
        "a": workspace / "src" / "a.py",
        "b": workspace / "src" / "b.py",
        "c": workspace / "docs" / "c.md",
    }
    contents = {
        "a": "import os\n\ndef Alpha():\n    return os.getcwd()\n",
        "b": "def beta():\n    pass\n# alpha mention\n",
        "c": "Alpha and alpha\nline two\nline three\n",
    }
    for i, (key, path) in enumerate(files.items()):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(contents[key])
        os.utime(path, (1000 + i, 1000 + i))
    return files


def test_schema_uses_the_dash_aliases() -> None:
    schema = GrepTool().input_schema()
    props = schema["properties"]
    for alias in ("-i", "-n", "-A", "-B", "-C", "type"):
        assert alias in props
    assert "case_insensitive" not in props and "file_type" not in props
    assert schema["required"] == ["pattern"]


async def test_files_with_matches_is_the_default_and_newest_first(ctx: ToolContext, sources: dict[str, Path]) -> None:
    out = text(await grep(ctx, "alpha"))
    assert out.splitlines() == ["Found 2 files", str(sources["c"]), str(sources["b"])]


async def test_case_insensitive_flag(ctx: ToolContext, sources: dict[str, Path]) -> None:
    out = text(await grep(ctx, "alpha", **{"-i": True}))
    assert out.splitlines() == ["Found 3 files", str(sources["c"]), str(sources["b"]), str(sources["a"])]


async def test_content_mode_shows_numbered_lines_with_context(ctx: ToolContext, sources: dict[str, Path]) -> None:
    out = text(await grep(ctx, "getcwd", output_mode="content", path=str(sources["a"]), **{"-B": 1}))
    assert out.splitlines() == ["3-def Alpha():", "4:    return os.getcwd()"]


async def test_content_mode_without_line_numbers(ctx: ToolContext, sources: dict[str, Path]) -> None:
    out = text(await grep(ctx, "two", output_mode="content", path=str(sources["c"]), **{"-n": False, "-C": 1}))
    assert out.splitlines() == ["Alpha and alpha", "line two", "line three"]


async def test_content_mode_over_a_folder_names_each_file(ctx: ToolContext, sources: dict[str, Path]) -> None:
    out = text(await grep(ctx, "def ", output_mode="content", glob="*.py"))
    assert sorted(out.splitlines()) == sorted([f"{sources['a']}:3:def Alpha():", f"{sources['b']}:1:def beta():"])


async def test_count_mode_counts_per_file_and_in_total(ctx: ToolContext, sources: dict[str, Path]) -> None:
    out = text(await grep(ctx, "alpha", output_mode="count", **{"-i": True}))
    lines = out.splitlines()
    assert sorted(lines[:3]) == sorted([f"{sources['a']}:1", f"{sources['b']}:1", f"{sources['c']}:2"])
    assert lines[-1] == "Found 4 total occurrences across 3 files."


async def test_glob_filter_accepts_brace_and_comma_lists(ctx: ToolContext, sources: dict[str, Path]) -> None:
    out = text(await grep(ctx, "alpha", **{"-i": True, "glob": "*.{md,txt}"}))
    assert out.splitlines() == ["Found 1 file", str(sources["c"])]
    out = text(await grep(ctx, "alpha", **{"-i": True, "glob": "*.md, *.py"}))
    assert out.splitlines()[0] == "Found 3 files"


async def test_type_filter(ctx: ToolContext, sources: dict[str, Path]) -> None:
    out = text(await grep(ctx, "alpha", type="py", **{"-i": True}))
    assert out.splitlines() == ["Found 2 files", str(sources["b"]), str(sources["a"])]


async def test_head_limit_cuts_entries_and_lines(ctx: ToolContext, sources: dict[str, Path]) -> None:
    files = text(await grep(ctx, "alpha", head_limit=1, **{"-i": True}))
    assert files.splitlines() == ["Found 3 files (showing the first 1)", str(sources["c"])]
    content = text(await grep(ctx, "line", output_mode="content", head_limit=1, path=str(sources["c"])))
    assert content.splitlines()[0] == "2:line two"
    assert "head_limit" in content and "3:line three" not in content


async def test_multiline_patterns_span_lines(ctx: ToolContext, sources: dict[str, Path]) -> None:
    assert text(await grep(ctx, r"beta\(\):.*pass")) == "No files found"
    out = text(await grep(ctx, r"beta\(\):.*pass", multiline=True))
    assert out.splitlines() == ["Found 1 file", str(sources["b"])]


async def test_no_match_answers_per_mode(ctx: ToolContext, sources: dict[str, Path]) -> None:
    assert text(await grep(ctx, "zzz_nothing")) == "No files found"
    assert text(await grep(ctx, "zzz_nothing", output_mode="content")) == "No matches found"
    assert text(await grep(ctx, "zzz_nothing", output_mode="count")) == "No matches found"


async def test_pattern_starting_with_a_dash_is_a_pattern(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "f.txt").write_text("run --verbose now\n")
    out = text(await grep(ctx, "--verbose", output_mode="content"))
    assert "run --verbose now" in out


async def test_invalid_regex_is_an_error_with_rg_message(ctx: ToolContext, sources: dict[str, Path]) -> None:
    out = await grep(ctx, "(unclosed")
    assert out.is_error and "regex parse error" in text(out)


async def test_hidden_files_are_searched_but_not_git_internals(ctx: ToolContext, workspace: Path) -> None:
    (workspace / ".env").write_text("TOKEN=findme\n")
    (workspace / ".git").mkdir()
    (workspace / ".git" / "config").write_text("findme\n")
    out = text(await grep(ctx, "findme"))
    assert out.splitlines() == ["Found 1 file", str(workspace / ".env")]


async def test_missing_paths_are_refused(ctx: ToolContext, workspace: Path, tmp_path: Path) -> None:
    assert "does not exist" in text(await grep(ctx, "x", path=str(workspace / "missing")))


async def test_unexpected_parameter_is_a_validation_error(ctx: ToolContext) -> None:
    out = await grep(ctx, "x", include="*.py")
    assert out.is_error and "An unexpected parameter `include` was provided" in text(out)


async def test_grep_is_read_only_and_concurrency_safe() -> None:
    tool = GrepTool()
    parsed = tool.Input.model_validate({"pattern": "x", "path": "/p"})
    assert tool.is_read_only(parsed) and tool.is_concurrency_safe(parsed)
    assert tool.input_path(parsed) == "/p" and tool.max_result_size_chars == 20_000


async def test_fifty_thousand_files(big_tree: tuple[Path, int], tmp_path: Path) -> None:
    root, needles = big_tree
    ctx = ToolContext(Workspace.at(root), tmp_path / "s", FileReadState())
    started = time.perf_counter()
    out = text(await grep(ctx, BIG_TREE_NEEDLE))
    elapsed = time.perf_counter() - started
    lines = out.splitlines()
    assert lines[0] == f"Found {needles} files" and len(lines) == needles + 1
    assert elapsed < 60  # a sanity bound; bench/bench_search.py measures it properly
    counted = text(await grep(ctx, "return x", output_mode="count", head_limit=10))
    assert counted.splitlines()[-1] == "Found 250000 total occurrences across 50000 files."
    content = text(await grep(ctx, "return", output_mode="content", head_limit=5))
    assert len(content.splitlines()) == 7  # 5 lines, a blank line, the head_limit note
