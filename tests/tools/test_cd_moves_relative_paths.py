"""A `cd` in a shell line moves every later relative path the readers name, and keeps the folder before it (the
cd may fail); `cd ~/…` is the home folder's (tools/bash_readonly.analyse). The permission engine checks these
paths, so a wrong one lets a read outside the workspace through. Found by mutation testing."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui_agent.tools.bash_readonly import analyse


def test_a_relative_cd_adds_its_folder_and_keeps_the_one_before() -> None:
    found = analyse("cd sub && cat a.txt")
    assert found is not None
    assert found.cwds == [".", "./sub"]
    assert found.paths == ["./sub", "./a.txt", "./sub/a.txt"]


def test_a_cd_to_the_home_folder_is_expanded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    found = analyse("cd ~/proj && cat a.txt")
    assert found is not None
    assert found.paths == [f"{tmp_path}/proj", "./a.txt", f"{tmp_path}/proj/a.txt"]
