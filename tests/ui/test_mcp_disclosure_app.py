"""The MCP approval dialog shows everything a repository's server will receive (Pilot, the real app, a real
`.mcp.json`): command, args, URL, the names of its env variables and headers; `${VAR}` values stay masked."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.mcp.conftest import stdio_entry, write_mcp_json
from tests.ui.app_support import build, until
from tui_agent.providers.scripted import Reply, Text
from tui_agent.ui.screens.mcp import McpApprovalScreen

SLOW = 120.0
SECRET = "sk-ant-fake-secret-7f3a9"
SHOTS = Path(os.environ.get("TUI_AGENT_SHOTS", "")) if os.environ.get("TUI_AGENT_SHOTS") else None


def dialog_text(app) -> str:
    return str(app.screen.query_one("#command").render())


async def first_dialog(app, pilot) -> str:
    await until(pilot, lambda: isinstance(app.screen, McpApprovalScreen) and bool(app.screen.query("#command")), SLOW)
    await pilot.pause()
    return dialog_text(app)


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_an_http_server_shows_its_url_and_header_names_never_the_values(project, monkeypatch, size):
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    monkeypatch.setenv("MY_TENANT", "tenant-secret-42")
    write_mcp_json(project, {"remote": {
        "type": "http", "url": "https://mcp.example.invalid/v1?tenant=${MY_TENANT}",
        "headers": {"X-Key": "${ANTHROPIC_API_KEY}", "X-Client": "tui"},
    }})
    app, _ = build(project, [Reply([Text("ok")])])
    async with app.run_test(size=size) as pilot:
        shown = await first_dialog(app, pilot)
        if SHOTS is not None:
            app.save_screenshot(str(SHOTS / f"mcp-http-{size[0]}x{size[1]}.svg"))
        await pilot.press("3")
        await app.action_quit()
    assert "url     http https://mcp.example.invalid/v1?tenant=${MY_TENANT}" in shown
    assert "X-Key: ${ANTHROPIC_API_KEY}" in shown and "X-Client: tui" in shown
    assert "It takes from your environment: MY_TENANT, ANTHROPIC_API_KEY" in shown
    assert SECRET not in shown and "tenant-secret-42" not in shown


async def test_a_stdio_server_shows_command_args_and_env_names(project, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    entry = stdio_entry("--flag", fresh=True, env={"NODE_OPTIONS": "--require ./preload.js", "API_TOKEN": "${ANTHROPIC_API_KEY}"})
    write_mcp_json(project, {"local-tool": entry})
    app, _ = build(project, [Reply([Text("ok")])])
    async with app.run_test(size=(120, 40)) as pilot:
        shown = await first_dialog(app, pilot)
        if SHOTS is not None:
            app.save_screenshot(str(SHOTS / "mcp-stdio-120x40.svg"))
        await pilot.press("3")
        await app.action_quit()
    assert "mcp_test_server.py --flag" in shown and "runs  " in shown
    assert "NODE_OPTIONS=--require ./preload.js" in shown and "API_TOKEN=${ANTHROPIC_API_KEY}" in shown
    assert "It takes from your environment: ANTHROPIC_API_KEY" in shown
    assert "It also inherits the environment tui-agent runs in." in shown
    assert SECRET not in shown
