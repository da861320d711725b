"""private_files: 0600 files and 0700 folders whatever the umask; folders the user had are left alone
unless they are the agent's own (`owned_from`)."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Iterator

import pytest

from tui_agent.tools.private_files import open_private, private_dirs, write_private


@pytest.fixture(params=[0o022, 0o002, 0o277], ids=["umask022", "umask002", "umask277"])
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    before = os.umask(request.param)
    yield request.param
    os.umask(before)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_files_and_the_folders_made_for_them_are_private_whatever_the_umask(tmp_path: Path, umask: int) -> None:
    path = tmp_path / "a" / "b" / "out.txt"
    write_private(path, "secret")
    with open_private(path, "a") as f:
        f.write(" more")
    assert path.read_text() == "secret more"
    assert mode(path) == 0o600
    assert mode(tmp_path / "a") == 0o700 and mode(tmp_path / "a" / "b") == 0o700


def test_an_existing_file_of_ours_is_narrowed_when_written(tmp_path: Path) -> None:
    path = tmp_path / "transcript.jsonl"
    path.write_text("old\n")
    os.chmod(path, 0o644)
    with open_private(path, "a") as f:
        f.write("new\n")
    assert path.read_text() == "old\nnew\n" and mode(path) == 0o600


def test_existing_folders_are_left_unless_they_are_the_agents_own(tmp_path: Path) -> None:
    shared = tmp_path / "projects"
    session = shared / "session-id"
    (session / "tool-results").mkdir(parents=True)
    for folder in (shared, session, session / "tool-results"):
        os.chmod(folder, 0o755)
    above = mode(tmp_path)
    write_private(session / "tool-results" / "r.txt", b"\x00bytes", owned_from=session)
    assert mode(session) == 0o700 and mode(session / "tool-results") == 0o700
    assert mode(shared) == 0o755 and mode(tmp_path) == above  # above the session's own folder: not ours
    private_dirs(shared / "other")
    assert mode(shared) == 0o755 and mode(shared / "other") == 0o700
