"""ESC in the full app while real shell commands run: every lane cancelled, the processes gone."""

from __future__ import annotations

import time
from pathlib import Path

from typing import Any

import pytest

from tui_agent.providers.scripted import Reply, Text, ToolUse
from tui_agent.tools import processes

from tests.ui.app_support import (
    build,
    isolate,
    lanes_text,
    project_at,
    sleep_processes,
    transcript_text,
    until,
    until_idle,
    wait_until,
)
from tests.ui.app_support import type_keys


@pytest.fixture
def project(tmp_path: Path, monkeypatch: Any) -> Path:
    isolate(monkeypatch, tmp_path)
    return project_at(tmp_path / "project")


async def test_escape_while_tools_run_kills_their_processes(project: Path, monkeypatch: Any) -> None:
    monkeypatch.setattr(processes, "KILL_GRACE_S", 120)  # so processes that outlived SIGTERM would show
    marker = "sleep 30"
    script = [
        Reply([Text("Running two slow commands.\n\n"), ToolUse("Bash", {"command": "sleep 300"}),
               ToolUse("Bash", {"command": "echo started; sleep 300.5"})]),
        Reply([Text("after the interruption")]),
    ]
    app, model = build(project, script, permission_mode="bypassPermissions")
    async with app.run_test(size=(120, 36)) as pilot:
        await type_keys(pilot, *"run them", "enter")
        await until(pilot, lambda: len(sleep_processes(marker)) >= 2)
        t0 = time.monotonic()
        await pilot.press("escape")
        assert "Interrupted" in transcript_text(app)
        assert all(c.phase == "cancelled" for c in app.calls.calls.values())
        assert "cancelled" in lanes_text(app)
        gone = await wait_until(lambda: not sleep_processes(marker))
        elapsed = time.monotonic() - t0
        assert gone, f"processes survived ESC: {sleep_processes(marker)}"
        assert elapsed < 60, f"processes took {elapsed:.0f} s to go: the grace period was waited out"
        await until_idle(pilot, app)
        assert app.prompt.has_focus and not app.running
        await type_keys(pilot, *"go on", "enter")
        await until_idle(pilot, app)
        assert "after the interruption" in transcript_text(app)
    results = model.requests[1]["messages"][2]["content"]
    assert [b.get("is_error") for b in results if b["type"] == "tool_result"] == [True, True]


async def test_escape_while_waiting_for_a_tool_to_start_and_during_retry(project: Path) -> None:
    from tui_agent.providers.scripted import fault

    script = [fault(529, retry_after=5), Reply([Text("never")])]
    app, _ = build(project, script)
    async with app.run_test(size=(100, 30)) as pilot:
        await type_keys(pilot, *"hello", "enter")
        await until(pilot, lambda: "retrying in 5.0s (attempt 1)" in transcript_text(app))
        await pilot.press("escape")
        await until_idle(pilot, app)
        text = transcript_text(app)
        assert "Interrupted" in text and "never" not in text


@pytest.mark.parametrize("leave", ["ctrl+c twice", "/exit"])
async def test_leaving_while_shells_run_leaves_no_process_behind(project: Path, leave: str) -> None:
    background, foreground = f"sleep 305.{len(leave)}1", f"sleep 305.{len(leave)}2"  # unique to this case
    script = [
        Reply([ToolUse("Bash", {"command": background, "run_in_background": True}), ToolUse("Bash", {"command": foreground})]),
        Reply([Text("never")]),
    ]
    app, _ = build(project, script, permission_mode="bypassPermissions")
    async with app.run_test(size=(120, 36)) as pilot:
        await type_keys(pilot, *"run them", "enter")
        await until(pilot, lambda: bool(sleep_processes(background)) and bool(sleep_processes(foreground)))
        if leave == "ctrl+c twice":
            await pilot.press("ctrl+c", "ctrl+c")
        else:
            await type_keys(pilot, *leave, "enter")
        await wait_until(lambda: app.return_code is not None)
    assert app.return_code == 0
    assert await wait_until(lambda: not sleep_processes(background) and not sleep_processes(foreground)), (
        sleep_processes(background) + sleep_processes(foreground))
