"""Read-only git through the Bash tool runs no program a repository configures (issue 10, finding 9): a real
repository whose `.git/config` names an fsmonitor, a pager, an external diff, textconv and filter drivers,
each a script that leaves a marker file when it runs."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.tools.support import run_tool
from tui_agent.tools.bash import BashTool
from tui_agent.tools.base import ToolContext

PROGRAMS = ("fsmonitor", "pager", "external", "textconv", "clean", "smudge", "process", "command", "hook")


def _git(cwd: Path, *args: str) -> None:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(cwd.parent)}
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=env)


def _hostile_repo(root: Path, markers: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    _git(root, "init", "-q", ".")
    _git(root, "config", "user.email", "a@b.c")
    _git(root, "config", "user.name", "A")
    (root / "a.txt").write_text("hello\n")
    (root / ".gitattributes").write_text("*.txt diff=evil filter=evil\n")
    _git(root, "add", ".")
    _git(root, "commit", "-qm", "init")

    def program(name: str, tail: str = "") -> str:
        script = markers.parent / f"{root.name}-{name}.sh"
        script.write_text(f"#!/bin/sh\ntouch {markers}/{root.name}-{name}\n{tail}\n")
        script.chmod(0o755)
        return str(script)

    _git(root, "config", "core.fsmonitor", program("fsmonitor"))
    _git(root, "config", "core.pager", program("pager", "cat"))
    _git(root, "config", "diff.external", program("external"))
    _git(root, "config", "diff.evil.textconv", program("textconv", 'cat "$1"'))
    _git(root, "config", "diff.evil.command", program("command"))
    _git(root, "config", "filter.evil.clean", program("clean", "cat"))
    _git(root, "config", "filter.evil.smudge", program("smudge", "cat"))
    _git(root, "config", "core.hooksPath", str(markers.parent / "hooks"))
    hooks = markers.parent / "hooks"
    hooks.mkdir(exist_ok=True)
    for hook in ("post-index-change", "reference-transaction"):
        (hooks / hook).write_text(f"#!/bin/sh\ntouch {markers}/{root.name}-hook\n")
        (hooks / hook).chmod(0o755)
    (root / "a.txt").write_text("hello\nchanged\n")
    os.utime(root / "a.txt", (1, 1))  # an old mtime: status must look at the content (runs the clean filter)
    return root


@pytest.fixture
def markers(tmp_path: Path) -> Path:
    folder = tmp_path / "markers"
    folder.mkdir()
    return folder


@pytest.fixture
def repo(workspace: Path, markers: Path) -> Path:
    return _hostile_repo(workspace, markers)


def test_the_repository_really_runs_its_programs_without_protection(repo: Path, markers: Path) -> None:
    """The control: plain git runs the fsmonitor, the filter and the diff driver's program."""
    subprocess.run(["git", "status"], cwd=repo, capture_output=True)
    subprocess.run(["git", "diff"], cwd=repo, capture_output=True)
    ran = {p.name.split("-", 1)[1] for p in markers.iterdir()}
    assert {"fsmonitor", "clean", "command"} <= ran


@pytest.mark.parametrize(
    "command",
    [
        "git status",
        "git status --short",
        "git diff",
        "git diff HEAD -- a.txt",
        "git log -p",
        "git log --stat -n 1",
        "git show",
        "git show HEAD:a.txt",
        "git blame a.txt",
        "git -C . status && git diff",
        "cd . && git diff",
        "git describe --always --dirty",
        "git ls-files -m",
    ],
)
async def test_read_only_git_runs_none_of_them(ctx: ToolContext, repo: Path, markers: Path, command: str) -> None:
    tool = BashTool()
    assert tool.is_read_only(tool.Input(command=command)), command
    out = await run_tool(tool, ctx, command=command)
    assert not out.is_error, out.content
    assert sorted(p.name for p in markers.iterdir()) == []


async def test_git_status_through_the_tool_leaves_no_fsmonitor_marker(ctx: ToolContext, repo: Path, markers: Path) -> None:
    out = await run_tool(BashTool(), ctx, command="git status")
    assert "a.txt" in str(out.content)
    assert not (markers / f"{repo.name}-fsmonitor").exists()


async def test_the_diff_is_still_the_real_diff(ctx: ToolContext, repo: Path) -> None:
    out = await run_tool(BashTool(), ctx, command="git diff")
    assert "+changed" in str(out.content)


async def test_a_nested_repository_entered_with_cd_is_covered_too(ctx: ToolContext, repo: Path, markers: Path) -> None:
    inner = _hostile_repo(repo / "vendor" / "lib", markers)
    for command in ("cd vendor/lib && git status && git diff", "git -C vendor/lib diff"):
        out = await run_tool(BashTool(), ctx, command=command)
        assert "+changed" in str(out.content) or "a.txt" in str(out.content)
    assert sorted(p.name for p in markers.iterdir()) == [], inner


async def test_a_git_line_that_is_not_read_only_runs_as_written(ctx: ToolContext, repo: Path, markers: Path) -> None:
    """Approved by the user (here: run directly), `git diff --ext-diff` is what the repository says it is."""
    tool = BashTool()
    assert not tool.is_read_only(tool.Input(command="git diff --ext-diff"))
    await run_tool(tool, ctx, command="git diff --ext-diff")
    assert (markers / f"{repo.name}-command").exists()
