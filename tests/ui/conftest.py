"""Fixtures for the app's tests: an isolated home and a small project folder."""

from __future__ import annotations

import fcntl
from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.ui.app_support import isolate, project_at, trust_for_tests


@pytest.fixture
def project(tmp_path: Path, monkeypatch: Any) -> Path:
    isolate(monkeypatch, tmp_path)
    folder = project_at(tmp_path / "project")
    trust_for_tests(tmp_path / "home", folder)  # still trusted when a test makes it a git repository
    return folder


@pytest.fixture
def scene_lock() -> Iterator[None]:
    """The scenes' folder (tests/ui/scenes.SCENE_ROOT) is fixed, since it is drawn in the pictures: one scene
    at a time across pytest-xdist's workers, for the whole test."""
    from tests.ui.scenes import SCENE_ROOT

    SCENE_ROOT.parent.mkdir(parents=True, exist_ok=True)
    with open(SCENE_ROOT.parent.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield
