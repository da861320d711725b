"""Glob: absolute paths, newest first, .gitignore and hidden files respected, capped at 100."""

from __future__ import annotations

import os
import time
from pathlib import Path

from tests.tools.support import run_tool, text
from tui_agent.tools.base import FileReadState, ToolContext, Workspace
from tui_agent.tools.glob import GlobTool


async def glob(ctx: ToolContext, pattern: str, **kw: object):
    return await run_tool(GlobTool(), ctx, pattern=pattern, **kw)


def touch(path: Path, mtime: float, content: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)
    os.utime(path, (mtime, mtime))
    return path


async def test_matches_are_absolute_and_newest_first(ctx: ToolContext, workspace: Path) -> None:
    now = time.time()
    old = touch(workspace / "src" / "old.py", now - 300)
    new = touch(workspace / "src" / "deep" / "new.py", now - 10)
    mid = touch(workspace / "mid.py", now - 100)
    touch(workspace / "notes.txt", now)
    out = await glob(ctx, "**/*.py")
    assert text(out).splitlines() == [str(new), str(mid), str(old)]


async def test_pattern_with_a_folder_is_taken_from_the_search_path(ctx: ToolContext, workspace: Path) -> None:
    a = touch(workspace / "src" / "a.ts", 1)
    touch(workspace / "lib" / "b.ts", 2)
    assert text(await glob(ctx, "src/**/*.ts")).splitlines() == [str(a)]
    assert text(await glob(ctx, "*.ts", path=str(workspace / "src"))).splitlines() == [str(a)]


async def test_no_match_says_no_files_found(ctx: ToolContext) -> None:
    out = await glob(ctx, "**/*.nothing")
    assert not out.is_error and text(out) == "No files found"


async def test_gitignored_files_are_skipped(ctx: ToolContext, workspace: Path) -> None:
    (workspace / ".git").mkdir()
    (workspace / ".gitignore").write_text("build/\n")
    keep = touch(workspace / "keep.js", 1)
    touch(workspace / "build" / "out.js", 2)
    assert text(await glob(ctx, "**/*.js")).splitlines() == [str(keep)]


async def test_hidden_files_are_skipped_unless_the_pattern_names_them(ctx: ToolContext, workspace: Path) -> None:
    visible = touch(workspace / "ci.yml", 1)
    hidden = touch(workspace / ".github" / "workflows" / "ci.yml", 2)
    touch(workspace / ".hidden.yml", 3)
    assert text(await glob(ctx, "**/*.yml")).splitlines() == [str(visible)]
    assert text(await glob(ctx, ".github/**/*.yml")).splitlines() == [str(hidden)]


async def test_more_than_100_results_are_truncated_with_a_note(ctx: ToolContext, workspace: Path) -> None:
    for i in range(130):
        touch(workspace / f"f{i:03d}.txt", 1000 + i)
    lines = text(await glob(ctx, "*.txt")).splitlines()
    assert len(lines) == 101
    assert lines[0] == str(workspace / "f129.txt")
    assert lines[-1] == (
        "(Results are truncated. 30 more files were not shown; consider a more specific path or pattern.)"
    )


async def test_absolute_pattern_searches_from_its_fixed_prefix(ctx: ToolContext, workspace: Path) -> None:
    a = touch(workspace / "src" / "x" / "a.rs", 1)
    touch(workspace / "other" / "b.rs", 2)
    assert text(await glob(ctx, f"{workspace}/src/**/*.rs")).splitlines() == [str(a)]


async def test_the_folder_searched_is_what_permissions_see(tmp_path: Path) -> None:
    """A path outside the workspace is the permission engine's question, so the tool must name the folder
    it will really search, an absolute pattern's fixed prefix included."""
    tool = GlobTool()

    def path_of(**raw: str) -> str | None:
        return tool.input_path(tool.Input.model_validate(raw))

    assert path_of(pattern="*", path=str(tmp_path)) == str(tmp_path)
    assert path_of(pattern=f"{tmp_path}/**/*") == str(tmp_path)
    assert path_of(pattern=f"{tmp_path}/**/*", path="/elsewhere") == str(tmp_path)
    assert path_of(pattern="src/*.py") is None


async def test_missing_or_non_directory_path_is_an_error(ctx: ToolContext, workspace: Path) -> None:
    assert "does not exist" in text(await glob(ctx, "*", path=str(workspace / "nope")))
    touch(workspace / "file.txt", 1)
    assert "not a directory" in text(await glob(ctx, "*", path=str(workspace / "file.txt")))


async def test_relative_path_is_taken_from_the_workspace_root(ctx: ToolContext, workspace: Path) -> None:
    a = touch(workspace / "pkg" / "a.go", 1)
    assert text(await glob(ctx, "*.go", path="pkg")).splitlines() == [str(a)]


async def test_glob_is_read_only_and_concurrency_safe() -> None:
    tool = GlobTool()
    parsed = tool.Input.model_validate({"pattern": "*"})
    assert tool.is_read_only(parsed) and tool.is_concurrency_safe(parsed)


async def test_fifty_thousand_files(big_tree: tuple[Path, int], tmp_path: Path) -> None:
    root, _ = big_tree
    ctx = ToolContext(Workspace.at(root), tmp_path / "s", FileReadState())
    started = time.perf_counter()
    out = text(await glob(ctx, "**/*.py"))
    elapsed = time.perf_counter() - started
    lines = out.splitlines()
    assert len(lines) == 101 and "24900 more files were not shown" in lines[-1]
    assert all(line.startswith(str(root)) and line.endswith(".py") for line in lines[:-1])
    assert elapsed < 60  # a sanity bound; bench/bench_search.py measures it properly
    one_dir = text(await glob(ctx, "pkg123/*.txt")).splitlines()
    assert len(one_dir) == 50
