"""Snapshots of the app at a fixed clock, in a fixed folder, with fixed token counts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.ui.app_support import isolate, trust_for_tests
from tests.ui.scenes import SCENE_ROOT, finished_answer, interrupted_run, parallel_tools, subagents_running


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: Any, scene_lock: None) -> None:
    isolate(monkeypatch, tmp_path)
    trust_for_tests(tmp_path / "home", SCENE_ROOT)  # the scenes' fixed folder, outside tmp_path


def test_snapshot_parallel_tools_running(snap_compare: Any) -> None:
    """You should see three Bash lanes running at once (0, 1, 2) with bars from the same start, their
    4.2s timers, the last output line under two of them with a timeout countdown, a finished Read
    row, and in the status line "98% context left" (the meter) and "esc to interrupt"."""
    scene = parallel_tools()
    assert snap_compare(scene.app, terminal_size=(120, 36), run_before=scene.run_before)


def test_snapshot_interrupted_run(snap_compare: Any) -> None:
    """You should see the Bash cell and its lane marked cancelled after 2.5s, an "Interrupted" notice in
    the conversation, and an empty prompt ready for the next message (status: no "esc to interrupt")."""
    scene = interrupted_run()
    assert snap_compare(scene.app, terminal_size=(100, 30), run_before=scene.run_before)


def test_snapshot_finished_answer_with_code(snap_compare: Any) -> None:
    """You should see the collapsed "∴ Thinking… (132 chars)" line, a Read cell, an Edit cell with its diff
    (-return 1 in red, +return 2 in green), and the Markdown answer with a heading, a highlighted Python
    block and a numbered list, at 80×40; the status line keeps the context meter and drops "last 0.0s"
    (the least important part) to fit."""
    scene = finished_answer()
    assert snap_compare(scene.app, terminal_size=(80, 40), run_before=scene.run_before)


def test_snapshot_two_subagents_side_by_side(snap_compare: Any) -> None:
    """You should see two Agent cells "running… · Bash: …", and in the lane panel two groups: a
    general-purpose header (lane 0, "Find the entry point", 3.4s · 5.2k tok) and an Explore header
    (lane 1), each with its finished read-only tool and its running Bash indented under it, all bars on
    one time axis; the status line counts the subagents' tokens (↑12.2k)."""
    scene = subagents_running()
    assert snap_compare(scene.app, terminal_size=(120, 36), run_before=scene.run_before)


def test_snapshot_two_subagents_at_80_columns(snap_compare: Any) -> None:
    """You should see the same two lane groups at 80 columns: each header row reads "general-purpose Find the
    entry p…" / "Explore Run the tests · Bash: …" with a space between type, task and activity, the bar and
    "3.4s · 5.2k tok" after it; the tool rows' names and summaries cut with "…", never run together."""
    scene = subagents_running()
    assert snap_compare(scene.app, terminal_size=(80, 36), run_before=scene.run_before)
