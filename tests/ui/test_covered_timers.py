"""Behind a question the run's timers keep counting, but once a second and at the same moment: each repaint of a
widget under a translucent dialog redraws the whole screen behind it (30 % of a core while a permission
question stayed open, bench/bench_dialog_idle.py)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from textual.widget import Widget
from textual.widgets import Static

from tui_agent.providers.scripted import Reply, Text, ToolUse
from tui_agent.ui.screens.permission import PermissionScreen
from tui_agent.ui.widgets.covered_tick import covered

from tests.ui.app_support import build, type_keys, until, until_idle


def paints_of(widget: Widget) -> list[float]:
    """When `widget` draws from now on (Textual calls its `render` once per repaint)."""
    times: list[float] = []
    render = widget.render

    def counted() -> Any:
        times.append(time.monotonic())
        return render()

    widget.render = counted  # type: ignore[method-assign]
    return times


async def test_behind_a_permission_question_the_lanes_and_the_status_line_repaint_once_a_second(project: Path) -> None:
    app, _ = build(project, [Reply([ToolUse("Bash", {"command": "echo hi > out.txt"})]), Reply([Text("ok")])])
    async with app.run_test(size=(120, 40)) as pilot:
        await type_keys(pilot, *"go", "enter")
        await until(pilot, lambda: isinstance(app.screen, PermissionScreen) and any(c.phase == "waiting" for c in app.calls.calls.values()))
        assert app.lanes.ticking and app.status.running, "both count while the call waits"
        assert covered(app.lanes) and covered(app.status)
        lanes, status = paints_of(app.lanes), paints_of(app.status)
        await until(pilot, lambda: len(status) >= 4)
        gaps = [b - a for a, b in zip(status, status[1:])]
        assert min(gaps) > 0.3, f"the status line repainted {gaps} s apart: at its 10 Hz, not once a second"
        assert len(lanes) <= len(status) + 1, f"the lanes repainted {len(lanes)} times to the status line's {len(status)}"
        for painted in lanes[1:]:  # at the turn of a second, with the status line (one frame, unless the machine is busy)
            assert min(abs(painted - s) for s in status) < 0.25, (lanes, status)
        await pilot.press("1")
        await until_idle(pilot, app)
        assert (project / "out.txt").read_text() == "hi\n"
        assert not covered(app.status)


async def test_a_widget_not_on_a_screen_is_not_covered(project: Path) -> None:
    app, _ = build(project, [Reply([Text("ok")])])
    async with app.run_test(size=(80, 24)):
        assert not covered(Static("not mounted"))
        assert not covered(app.status)
