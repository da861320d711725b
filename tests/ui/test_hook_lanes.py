"""A settings command hook shows in the lane panel while it runs, like a tool (real app, Pilot, a real hook
script in the scratch HOME's ~/.claude/settings.json that waits for the test's go file)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.ui.app_support import build, lanes_text, transcript_text, until, until_idle
from tui_agent.providers.scripted import Reply, Text, ToolUse


async def test_a_running_hook_has_a_row_with_its_timer_then_its_result(project: Path, tmp_path: Path) -> None:
    go = tmp_path / "go"
    hook = f"while [ ! -e {go} ]; do sleep 0.02; done; echo checked-by-hook >&2"  # waits for the test, not a clock
    claude = tmp_path / "home" / ".claude"
    claude.mkdir(parents=True, exist_ok=True)
    (claude / "settings.json").write_text(json.dumps(
        {"hooks": {"PreToolUse": [{"matcher": "Read", "hooks": [{"type": "command", "command": hook, "timeout": 30}]}]}}))
    app, _ = build(project, [Reply([ToolUse("Read", {"file_path": str(project / "README.md")})]), Reply([Text("done")])])
    async with app.run_test(size=(120, 30)) as pilot:
        app.submit("read the readme")
        await until(pilot, lambda: any(c.name == "PreToolUse" and c.phase == "running" for c in app.calls.calls.values()))
        await until(pilot, lambda: "PreToolUse" in lanes_text(app) and "while [ ! -e" in lanes_text(app))
        assert app.lanes.display
        go.touch()
        await until_idle(pilot, app)
        [row] = [c for c in app.calls.calls.values() if c.name == "PreToolUse"]
        assert row.phase == "ok" and row.t_end is not None and row.t_end >= (row.t_start or 0)
        assert "while [ ! -e" not in transcript_text(app), "a hook has a row in the lanes, no cell in the conversation"
        app.lanes.sync()
        await pilot.pause()
        assert "ok" in lanes_text(app) and "PreToolUse" in lanes_text(app)
        await app.action_quit()
