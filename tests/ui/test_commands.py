"""The commands' own logic (parsing, checks, what they print, the policies they act on) on a real Agent, hosted by the
fast stand-in `CommandHarness`. What the app does with them (the conversation, the status line, the keys, every
palette command) is tested on the app itself: test_commands_on_the_real_app.py."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tui_agent.core.permission_types import PermissionAnswer, SimplePolicy
from tui_agent.core.permissions import PermissionEngine
from tui_agent.providers.scripted import DEFAULT_SCRIPTED_MODEL, Reply, Text, ToolUse
from tui_agent.ui.commands import COMMANDS, cycle_mode, run_command
from tui_agent.ui.screens.permissions_list import PermissionsScreen

from tests.ui.app_support import until
from tests.ui.conftest_permission import CommandHarness, FakeShell, make_agent, make_project, request


def engine_in(tmp_path: Path, **kw: Any) -> PermissionEngine:
    return PermissionEngine(make_project(tmp_path), home=tmp_path / "home", **kw)


@pytest.fixture
def app(tmp_path: Path) -> CommandHarness:
    agent, _ = make_agent(tmp_path, [Reply([Text("hello")], input_tokens=1200, output_tokens=80)], [FakeShell()], engine_in(tmp_path))
    return CommandHarness(agent.policy, agent)


# ----- modes --------------------------------------------------------------------------------------------


async def test_cycle_mode_with_the_simple_policy(tmp_path: Path) -> None:
    agent, _ = make_agent(tmp_path, [], [], SimplePolicy())
    app = CommandHarness(agent.policy, agent)
    async with app.run_test():
        assert [cycle_mode(app) for _ in range(4)] == ["acceptEdits", "plan", "default", "acceptEdits"]
        assert agent.policy.mode == "acceptEdits"


async def warnings(app: CommandHarness, pilot: Any) -> list[str]:
    await pilot.pause()  # notifications arrive as messages
    return [n.message for n in app._notifications]


async def test_mode_command(app: CommandHarness) -> None:
    async with app.run_test() as pilot:
        assert await run_command(app, "/mode")
        assert "Permission mode: default" in app.notices[-1]
        await run_command(app, "/mode plan")
        assert app.agent.policy.mode == "plan" and app.notices[-1] == "Permission mode: plan"
        await run_command(app, "/mode bogus")
        await run_command(app, "/mode bypassPermissions")
        assert app.agent.policy.mode == "plan"
        shown = await warnings(app, pilot)
        assert any("Unknown mode 'bogus'" in w for w in shown)
        assert any("only be chosen at start" in w for w in shown)


# ----- the commands ------------------------------------------------------------------------------------


async def test_help_lists_every_command(app: CommandHarness) -> None:
    async with app.run_test():
        assert await run_command(app, "/help")
        for command in COMMANDS:
            assert command.usage in app.notices[-1]
        assert "Shift+Tab" in app.notices[-1]


async def test_unknown_command_and_plain_prompts(app: CommandHarness) -> None:
    async with app.run_test() as pilot:
        assert await run_command(app, "/frobnicate now") is True
        assert await warnings(app, pilot) == ["Unknown command /frobnicate. Type /help for the list."]
        assert await run_command(app, "hello /help") is False
        assert await run_command(app, "/usr/bin/python crashes on start") is False


async def test_clear_waits_while_the_agent_works(tmp_path: Path) -> None:
    agent, _ = make_agent(tmp_path, [Reply([ToolUse("Bash", {"command": "make"})])], [FakeShell()], SimplePolicy())
    app = CommandHarness(agent.policy, agent)
    async with app.run_test() as pilot:
        run = asyncio.create_task(agent.run("go"))
        await until(pilot, lambda: app.asker.dialog is not None)
        await run_command(app, "/clear")
        assert agent.history and app.cleared == 0
        agent.abort()
        app.asker.cancel_all()
        await asyncio.wait_for(run, 60)


async def test_cost_shows_tokens_and_cost_per_model(app: CommandHarness) -> None:
    async with app.run_test():
        await app.agent.run("hi")
        await run_command(app, "/cost")
        text = app.notices[-1]
        # A Sonnet: $3 in / $15 out per million tokens.
        assert DEFAULT_SCRIPTED_MODEL.startswith("claude-sonnet-4")
        assert "Total cost: $0.0048" in text
        assert "1,200 in · 80 out" in text
        assert f"{DEFAULT_SCRIPTED_MODEL}: $0.0048" in text


async def test_permissions_lists_rules_and_revokes_session_grants(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"permissions": {"deny": ["Bash(rm *)"], "allow": ["Bash(git status *)"]}}')
    engine = PermissionEngine(project, home=tmp_path / "home")
    engine.remember(request(tool_use_id="t1"), PermissionAnswer("allow_session", rule="Bash(npm run *)"))
    engine.remember(request(tool_use_id="t2"), PermissionAnswer("allow_session", rule="Bash(make *)"))
    agent, _ = make_agent(tmp_path, [], [], engine)
    app = CommandHarness(engine, agent)
    async with app.run_test() as pilot:
        assert await run_command(app, "/permissions")
        await until(pilot, lambda: isinstance(app.screen, PermissionsScreen))
        screen = app.screen
        listed = " ".join(str(s.render()) for s in screen.query("#rules Static"))
        assert "Bash(rm *)" in listed and "Bash(git status *)" in listed and str(settings) in listed
        assert "Bash(npm run *)" not in listed  # session grants are listed apart, revocable
        await pilot.press("down", "d")  # the second grant
        assert engine.session_rules() == ["Bash(npm run *)"]
        await pilot.press("d")
        assert engine.session_rules() == []
        assert screen.query_one("#no-grants").display
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, PermissionsScreen))


async def test_permissions_with_the_simple_policy(tmp_path: Path) -> None:
    policy = SimplePolicy(allowed_tools={"Read"}, session_allowed={"Bash"})
    agent, _ = make_agent(tmp_path, [], [], policy)
    app = CommandHarness(policy, agent)
    async with app.run_test() as pilot:
        assert await run_command(app, "/permissions")
        await until(pilot, lambda: isinstance(app.screen, PermissionsScreen))
        assert "--allowedTools" in str(app.screen.query_one("#rules Static").render())
        await pilot.press("d")
        assert policy.session_allowed == set()


