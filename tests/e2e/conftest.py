"""Fixtures for end-to-end tests that drive tui-agent through claude-agent-sdk."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def make_run(tmp_path: Path):
    """`make_run(script)`: a scripted server and folders for one SDK-driven run (stopped after the test)."""
    from tests.e2e.sdk_support import Run

    runs: list[Run] = []

    def make(script: Any) -> Run:
        run = Run(tmp_path, script)
        runs.append(run)
        return run

    yield make
    for run in runs:
        run.stop()
