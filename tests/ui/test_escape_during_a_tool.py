"""ESC while a shell tool runs: "Interrupted" is drawn in view in the same step as the key (not after
the core has wound down, nor a frame later after a scroll), the shell's group is stopped from the UI
thread, and the tool still reports the interruption: a valid history, no process behind."""

from __future__ import annotations

import os
import time
from pathlib import Path

import psutil

from tui_agent.providers.scripted import Reply, Text, ToolUse
from tui_agent.ui.widgets.transcript_items import NoticeLine

from tests.ui.app_support import build, transcript_text, until, until_idle
from tests.ui.app_support import type_keys


def sleeping(tag: str) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        try:
            if f"sleep {tag}" in " ".join(proc.info["cmdline"] or []) and proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc)
        except psutil.Error:
            pass
    return found


def visible_lines(app) -> list[str]:  # type: ignore[no-untyped-def]
    """What the pane draws now, at its current scroll position."""
    return [app.transcript.render_line(y).text for y in range(app.transcript.size.height)]


async def test_escape_during_a_shell_tool_draws_interrupted_in_view_at_once_and_the_tool_reports_it(project: Path) -> None:
    tag = f"{300 + os.getpid() % 100}.{time.monotonic_ns() % 10**6:06d}"  # this test's own `sleep`
    script = [
        Reply([Text("".join(f"Step {n} of a long plan.\n\n" for n in range(40))), ToolUse("Bash", {"command": f"sleep {tag}"})]),
        Reply([Text("fine")]),
    ]
    app, model = build(project, script, permission_mode="bypassPermissions")
    async with app.run_test(size=(100, 30)) as pilot:
        await type_keys(pilot, *"go", "enter")
        await until(pilot, lambda: any(c.phase == "running" for c in app.calls.calls.values()) and bool(sleeping(tag)))
        await pilot.pause(0.2)
        assert app.transcript.max_scroll_y > 0, "the pane is full: the new line needs a scroll to be seen"
        app.action_escape()  # what the key's binding calls; nothing has run on the UI loop since
        assert isinstance(app.transcript.items[-1], NoticeLine)
        assert any("Interrupted" in line for line in visible_lines(app)), "in view in the frame the key drew"
        assert app.running, "drawn before the core's own ending arrived"
        await until(pilot, lambda: not sleeping(tag))
        await until_idle(pilot, app)
        assert transcript_text(app).count("Interrupted ·") == 1, "drawn once, not again at the run's end"
        await type_keys(pilot, *"and now?", "enter")
        await until_idle(pilot, app)
    sent = model.requests[1]["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]
    results = [b for b in sent[-1]["content"] if isinstance(b, dict) and b.get("type") == "tool_result"]
    assert len(results) == 1 and results[0]["is_error"]
    assert str(results[0]["content"]).startswith("Interrupted by user"), "the interruption, not the shell's exit status"
    assert not sleeping(tag)
