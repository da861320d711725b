"""Fixtures for the app's tests: an isolated home and a small project folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.ui.app_support import isolate, project_at, trust_for_tests


@pytest.fixture
def project(tmp_path: Path, monkeypatch: Any) -> Path:
    isolate(monkeypatch, tmp_path)
    folder = project_at(tmp_path / "project")
    trust_for_tests(tmp_path / "home", folder)  # still trusted when a test makes it a git repository
    return folder
