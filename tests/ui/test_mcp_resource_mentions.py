"""`@server:uri` in the app (Pilot): the @ list offers a connected server's resources beside the files, with
their names, Tab inserts one, and Enter sends the prompt with the resource attached. A real MCP server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.mcp.test_mcp_resources import README, RESOURCE_SERVER
from tests.ui.app_support import type_keys
from tests.ui.app_support import FakeClock, build, isolate, transcript_text, trust_for_tests, until, until_idle
from tests.ui.scenes import SCENE_ROOT, fresh_project, settle
from tui_agent.core.mcp.setup import mcp_manager
from tui_agent.providers.scripted import Reply, Text

SLOW = 120.0  # a safety net only: servers start in seconds, slower when the machine is busy
def docs_config() -> str:
    """The resource server (warm: tests/warm_start) as an `--mcp-config` value."""
    from tests.warm_start import python_script_command

    command, *rest = python_script_command(RESOURCE_SERVER)
    return json.dumps({"mcpServers": {"docs": {"command": command, "args": rest}}})


def shown(app) -> list[str]:
    """The @ list as drawn: each option's visual as plain text (a resource's name beside it)."""
    lst = app.prompt.completions
    if not lst.display:
        return []
    return [lst._get_visual(lst.get_option_at_index(i)).plain for i in range(lst.option_count)]


async def connected(pilot, app) -> None:
    await until(pilot, lambda: app.ready and mcp_manager(app.agent) is not None, SLOW)
    manager = mcp_manager(app.agent)
    await until(pilot, lambda: [s.status for s in manager.statuses()] == ["connected"], SLOW)


async def test_the_at_list_offers_resources_with_their_names_and_tab_inserts_one(project: Path) -> None:
    app, model = build(project, [Reply([Text("read it")])], mcp_config=[docs_config()])
    async with app.run_test(size=(100, 30)) as pilot:
        await connected(pilot, app)
        await type_keys(pilot, *"summarize @")
        await until(pilot, lambda: any(s.startswith("docs:") for s in shown(app)))
        assert "README.md" in shown(app)  # the files stay, first
        await type_keys(pilot, *"docs:rea")
        await until(pilot, lambda: bool(shown(app)) and shown(app)[0] == "docs:docs://readme  readme")
        await pilot.press("tab")
        assert app.prompt.text == "summarize @docs:docs://readme "
        await pilot.press("enter")
        await until_idle(pilot, app)
        await app.action_quit()
    texts = [b["text"] for b in model.requests[0]["messages"][-1]["content"]]
    assert texts[1] == f"<system-reminder>\n{README}\n</system-reminder>"
    assert texts[-1] == "summarize @docs:docs://readme "


async def test_an_unknown_resource_is_a_notice_and_the_prompt_still_goes(project: Path) -> None:
    app, model = build(project, [Reply([Text("ok")])], mcp_config=[docs_config()])
    async with app.run_test(size=(100, 30)) as pilot:
        await connected(pilot, app)
        app.submit("look at @docs:docs://gone")
        await until_idle(pilot, app)
        await app.action_quit()
    assert "'docs' lists no resource 'docs://gone'" in transcript_text(app)
    assert [b["text"] for b in model.requests[0]["messages"][-1]["content"]] == ["look at @docs:docs://gone"]


# ----- snapshots ------------------------------------------------------------------------------------
@pytest.fixture
def scene_home(tmp_path: Path, monkeypatch: Any, scene_lock: None) -> Path:
    isolate(monkeypatch, tmp_path)
    trust_for_tests(tmp_path / "home", SCENE_ROOT)  # the scenes' fixed folder (drawn in the pictures)
    return fresh_project()


def at_list_scene(project: Path) -> tuple[Any, Any]:
    app, _ = build(project, [], clock=FakeClock(), mcp_config=[docs_config()])

    async def run_before(pilot: Pilot[Any]) -> None:
        app.prompt.cursor_blink = False
        await connected(pilot, app)
        await type_keys(pilot, *"summarize @")
        await until(pilot, lambda: len(shown(app)) == 6)
        await settle(pilot, app)

    return app, run_before


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
def test_snapshot_the_at_list_with_mcp_resources(snap_compare: Any, scene_home: Path, size: tuple[int, int]) -> None:
    """You should see, above the prompt "summarize @", the list: README.md and app.py, then
    "docs:docs://readme  readme", "docs:docs://logo.png  logo", "docs:notes://todo  todo list" and
    "docs:docs://broken  broken", each name dimmed after two spaces; at 120x40 the status line says "MCP 1 connected"."""
    app, run_before = at_list_scene(scene_home)
    assert snap_compare(app, terminal_size=size, run_before=run_before)
