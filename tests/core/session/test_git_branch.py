"""The `gitBranch` of a transcript line: every kind of HEAD named as git names it, and outside a repository one git
process is asked, not two (every session that is not in a repository pays it)."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from tui_agent.core.session.paths import git_branch


@pytest.fixture
def git_calls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A `git` first in PATH that writes its subcommand to the returned file, then runs the real one."""
    real = shutil.which("git")
    assert real is not None
    shim = tmp_path / "bin"
    shim.mkdir()
    log = tmp_path / "git-calls"
    (shim / "git").write_text(f'#!/bin/sh\necho "$1" >> {shlex.quote(str(log))}\nexec {shlex.quote(real)} "$@"\n')
    (shim / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{shim}:{os.environ['PATH']}")
    return log


def calls(log: Path) -> list[str]:
    return log.read_text().split() if log.exists() else []


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd, check=True, capture_output=True)


def repository(tmp_path: Path, git_calls: Path, *commits: str) -> Path:
    """A repository on branch `trunk` with these (empty) commits; the git calls that made it are not counted."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "trunk")
    for message in commits:
        git(repo, "commit", "-q", "--allow-empty", "-m", message)
    git_calls.unlink(missing_ok=True)
    return repo


def test_outside_a_repository_the_branch_is_empty_after_one_git_process(tmp_path: Path, git_calls: Path) -> None:
    outside = tmp_path / "plain"
    outside.mkdir()
    assert git_branch(outside) == ""
    assert calls(git_calls) == ["symbolic-ref"]


def test_a_repository_without_commits_names_its_branch(tmp_path: Path, git_calls: Path) -> None:
    repo = repository(tmp_path, git_calls)
    assert git_branch(repo) == "trunk"
    assert calls(git_calls) == ["symbolic-ref"]


def test_a_detached_head_is_named_HEAD_as_claude_code_names_it(tmp_path: Path, git_calls: Path) -> None:
    repo = repository(tmp_path, git_calls, "one")
    git(repo, "checkout", "-q", "--detach")
    git_calls.unlink(missing_ok=True)
    assert git_branch(repo) == "HEAD"
    assert calls(git_calls) == ["symbolic-ref", "rev-parse"]
