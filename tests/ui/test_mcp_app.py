"""MCP in the app (Pilot): the approval dialog for a repository's servers, background start, the status
line, `/mcp`, and a watched `.mcp.json` offering a reload. Real MCP server subprocesses."""

from __future__ import annotations

import json

from textual.widgets import OptionList

from tests.mcp.conftest import stdio_entry, write_mcp_json
from tests.ui.app_support import build, transcript_text, until, until_idle
from tui_agent.core.mcp.approval import ProjectApprovals
from tui_agent.core.mcp.setup import mcp_manager
from tui_agent.providers.scripted import Reply, Text
from tui_agent.ui.screens.mcp import McpApprovalScreen, McpServersScreen

SLOW = 120.0  # a safety net only: servers start in seconds, slower when the machine is busy


class TestApproval:
    async def test_a_new_project_server_asks_first_and_joins_the_next_request_once_approved(self, project):
        write_mcp_json(project, {"repo-tool": stdio_entry()})
        app, model = build(project, [Reply([Text("first")]), Reply([Text("second")])])
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, McpApprovalScreen) and bool(app.screen.query("#command")), SLOW)
            panel = app.screen.query_one("#command")
            assert "mcp_test_server.py" in str(panel.render())  # the command it will run
            await pilot.press("1")  # use this MCP server
            manager = mcp_manager(app.agent)
            await until(pilot, lambda: manager.statuses()[0].status == "connected", SLOW)
            assert "MCP 1 connected" in str(app.status.render())
            app.submit("hello")
            await until_idle(pilot, app)
            await app.action_quit()
        assert any(t["name"] == "mcp__repo-tool__echo" for t in model.requests[0]["tools"])
        server = manager.connections["repo-tool"].config
        assert ProjectApprovals(project).verdict(server) == "approved"  # remembered for this project

    async def test_rejecting_keeps_the_server_off_and_the_app_usable(self, project):
        write_mcp_json(project, {"a": stdio_entry(), "b": stdio_entry()})
        app, model = build(project, [Reply([Text("ok")])])
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, McpApprovalScreen) and bool(app.screen.query(OptionList)), SLOW)
            await pilot.press("3")  # continue without this one
            await until(pilot, lambda: isinstance(app.screen, McpApprovalScreen) and app.screen.server.name == "b" and bool(app.screen.query(OptionList)), SLOW)
            await pilot.press("3")
            await until(pilot, lambda: not isinstance(app.screen, McpApprovalScreen), SLOW)
            manager = mcp_manager(app.agent)
            assert [s.status for s in manager.statuses()] == ["disabled", "disabled"]
            app.submit("hello")
            await until_idle(pilot, app)
            await app.action_quit()
        assert not any(t["name"].startswith("mcp__") for t in model.requests[0]["tools"])


class TestPanel:
    async def test_mcp_lists_servers_with_state_tools_and_errors(self, project):
        config = json.dumps({"mcpServers": {"good": stdio_entry(), "bad": stdio_entry("--exit")}})
        app, _ = build(project, [], mcp_config=[config])
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: app.ready, SLOW)
            manager = mcp_manager(app.agent)
            await until(pilot, lambda: all(s.status in ("connected", "failed") for s in manager.statuses()), SLOW)
            # The status line shows it at its next refresh (a busy machine may be a frame behind).
            await until(pilot, lambda: "MCP 1 connected, 1 failed" in str(app.status.render()), SLOW)
            app.submit("/mcp")
            # pushed before its children are mounted: the list may not be there yet
            await until(pilot, lambda: isinstance(app.screen, McpServersScreen) and [o.option_count for o in app.screen.query("OptionList")] == [2], SLOW)
            listing = "\n".join(str(app.screen.query_one("OptionList").get_option_at_index(i).prompt) for i in range(2))
            assert "✓ good  connected · 8 tools" in listing
            assert "✗ bad  failed" in listing and "missing configuration TESTSRV_TOKEN" in listing
            await pilot.press("escape")
            await app.action_quit()
        assert "failed" in transcript_text(app)  # reported once in the conversation too

    async def test_an_edited_mcp_json_offers_a_reload_that_starts_the_new_server(self, project):
        (project / ".claude").mkdir()
        (project / ".claude" / "settings.local.json").write_text(json.dumps({"enableAllProjectMcpServers": True}))
        write_mcp_json(project, {})
        app, _ = build(project, [])
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: app.ready, SLOW)
            offered = lambda: "type /mcp reload to apply it" in " ".join(transcript_text(app).split())  # noqa: E731
            for attempt in range(200):  # written until the watcher (starting in the background) sees it
                write_mcp_json(project, {"late": stdio_entry(f"--attempt={attempt}")})
                try:
                    await until(pilot, offered, 1.0)
                    break
                except AssertionError:
                    continue
            assert offered()
            app.submit("/mcp reload")
            manager = mcp_manager(app.agent)
            await until(pilot, lambda: [s.status for s in manager.statuses()] == ["connected"], SLOW)
            await app.action_quit()
