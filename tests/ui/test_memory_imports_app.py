"""The app asks about CLAUDE.md imports from outside the project before the first prompt runs (Pilot, the real
agent, the scripted model); the answer is remembered for the project and a "no" is not asked again."""

from __future__ import annotations

import json
from pathlib import Path

from tests.ui.app_support import build, until, until_idle
from tui_agent.core.session.memory_imports import ImportApprovals
from tui_agent.providers.scripted import Reply, Text
from tui_agent.ui.screens.memory_imports import MemoryImportsScreen

SLOW = 60.0


def setup(project: Path) -> Path:
    home = project.parent / "home"
    shared = home / "shared" / "style.md"
    shared.parent.mkdir(parents=True)
    shared.write_text("SHARED-STYLE-31a")
    (project / "CLAUDE.md").write_text("# rules\n@~/shared/style.md\n")
    return shared


async def test_yes_loads_the_import_into_the_first_request_and_is_remembered(project: Path) -> None:
    shared = setup(project)
    app, model = build(project, [Reply([Text("ok")])])
    async with app.run_test(size=(120, 40)) as pilot:
        app.submit("hello")  # typed while the app starts: waits for the answer
        await until(pilot, lambda: isinstance(app.screen, MemoryImportsScreen) and bool(app.screen.query("#files")) and bool(app.screen.query("OptionList")), SLOW)  # pushed and composed
        assert str(shared.resolve()) in str(app.screen.query_one("#files").render())
        assert not model.requests
        await pilot.press("enter")  # "Yes, allow external imports" is first
        await until(pilot, lambda: bool(model.requests), SLOW)
        await until_idle(pilot, app)
        await app.action_quit()
    assert "SHARED-STYLE-31a" in json.dumps(model.requests[0])
    assert ImportApprovals(project, project, home=project.parent / "home").approves(shared.resolve())


async def test_no_keeps_it_out_and_is_not_asked_again(project: Path) -> None:
    setup(project)
    app, model = build(project, [Reply([Text("ok")])])
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MemoryImportsScreen) and bool(app.screen.query("#files")) and bool(app.screen.query("OptionList")), SLOW)  # pushed and composed
        await pilot.press("down", "enter")
        await until(pilot, lambda: not isinstance(app.screen, MemoryImportsScreen), SLOW)
        app.submit("hello")
        await until(pilot, lambda: bool(model.requests), SLOW)
        await until_idle(pilot, app)
        await app.action_quit()
    assert "SHARED-STYLE-31a" not in json.dumps(model.requests)
    again, _ = build(project, [])
    async with again.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: again.ready, SLOW)
        await pilot.pause()
        assert not isinstance(again.screen, MemoryImportsScreen)
        assert again.agent.memory.imports_to_ask() == []
        await again.action_quit()
