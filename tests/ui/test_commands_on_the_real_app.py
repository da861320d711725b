"""Slash commands, the palette and the keys on `TuiAgentApp` itself (not a stand-in): each test checks what a user
sees or the state that matters (the conversation emptied, the model the next request uses, the mode the policy
applies), so a binding or a host method the app lost fails here. Both command hosts are also checked to have every
member `CommandHost` (ui/host.py) lists."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.worker import Worker, WorkerState

from tui_agent.core.context.summary import CONTINUED
from tui_agent.core.permission_types import SimplePolicy
from tui_agent.providers.scripted import Reply, Text, ToolUse
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.commands import COMMANDS, SlashCommandsProvider, find_command
from tui_agent.ui.host import CommandHost
from tui_agent.ui.screens.mcp import McpServersScreen
from tui_agent.ui.screens.permission import PermissionScreen
from tui_agent.ui.screens.permissions_list import PermissionsScreen
from tui_agent.ui.screens.resume_picker import ResumePicker
from tui_agent.ui.screens.rewind import RewindPicker
from tui_agent.ui.screens.sandbox import SandboxScreen
from tui_agent.ui.widgets.transcript_items import AssistantText, NoticeLine, ToolCell, UserPrompt

from tests.core.context.scripts import conversation
from tests.ui.app_support import type_keys
from tests.ui.app_support import build, transcript_text, until, until_idle
from tests.ui.conftest_permission import CommandHarness, make_agent


class CommandErrors:
    """The app's message hook: a command typed in the prompt runs in a worker, whose error would only be logged."""

    def __init__(self) -> None:
        self.errors: list[BaseException] = []

    def __call__(self, message: Any) -> None:
        if isinstance(message, Worker.StateChanged) and message.state == WorkerState.ERROR:
            self.errors.append(message.worker.error or RuntimeError("worker failed"))


async def shown(pilot: Any, errors: CommandErrors, predicate: Callable[[], bool]) -> None:
    """Wait for what the command shows; a command that failed fails the test at once."""

    def done() -> bool:
        if errors.errors:
            raise AssertionError(f"the command failed: {errors.errors[0]!r}") from errors.errors[0]
        return predicate()

    await until(pilot, done)


def status_text(app: TuiAgentApp) -> str:
    return str(app.status.render())


def notices(app: TuiAgentApp, since: int = 0) -> str:
    return "\n".join(i.text for i in app.transcript.items[since:] if isinstance(i, NoticeLine))


def conversation_kinds(app: TuiAgentApp) -> list[type]:
    return [type(i) for i in app.transcript.items if isinstance(i, (UserPrompt, AssistantText, ToolCell))]


# ----- both hosts have what commands use -------------------------------------------------------------------


def host_problems(host: object) -> list[str]:
    """The `CommandHost` members `host` lacks, or has with a call shape the commands' calls would not fit."""
    problems = []
    for name, declared in vars(CommandHost).items():
        if name.startswith("_"):
            continue
        if not hasattr(host, name):
            problems.append(f"{name}: missing")
            continue
        if isinstance(declared, property):
            continue  # an attribute or a property: any value
        actual = getattr(host, name)
        if not callable(actual):
            problems.append(f"{name}: not callable")
            continue
        if inspect.iscoroutinefunction(declared) != inspect.iscoroutinefunction(actual):
            problems.append(f"{name}: async differs")
        wanted = list(inspect.signature(declared).parameters.values())[1:]  # without self
        have = inspect.signature(actual).parameters
        varargs = {p.kind for p in have.values() if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}
        for p in wanted:
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                if p.kind not in varargs:
                    problems.append(f"{name}: takes no {p}")
            elif p.name not in have and p.VAR_KEYWORD not in varargs:
                problems.append(f"{name}: no parameter {p.name}")
        extra = [p for n, p in have.items() if n not in {w.name for w in wanted}
                 and p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
        problems += [f"{name}: needs {p.name}, which commands do not pass" for p in extra]
    return problems


async def test_the_app_and_the_stand_in_both_have_every_member_commands_use(project: Path, tmp_path: Path) -> None:
    members = [n for n in vars(CommandHost) if not n.startswith("_")]
    assert {"agent", "running", "runner", "clear_conversation", "refresh_status", "show_notice", "start_compaction",
            "submit", "use_session", "settings"} <= set(members)
    app, _ = build(project, [])
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.ready)  # the agent exists once built
        assert host_problems(app) == []
    agent, _ = make_agent(tmp_path / "harness", [], [], SimplePolicy())
    harness = CommandHarness(agent.policy, agent)
    async with harness.run_test():
        assert host_problems(harness) == []

    class Lacking(CommandHarness):
        clear_conversation = None  # type: ignore[assignment]

        def submit(self, text: str, now: bool) -> None: ...  # type: ignore[override]

    assert host_problems(Lacking(agent.policy, agent)) == [
        "clear_conversation: not callable", "submit: needs now, which commands do not pass"]


# ----- the keys ------------------------------------------------------------------------------------------


async def test_shift_tab_switches_the_mode_the_policy_applies_and_the_status_line_shows_it(project: Path) -> None:
    script = [Reply([ToolUse("Write", {"file_path": str(project / "a.txt"), "content": "x"})]), Reply([Text("written")])]
    app, _ = build(project, script)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.ready)
        assert "default mode" in status_text(app)
        await pilot.press("shift+tab")
        assert app.agent.policy.mode == "acceptEdits"
        assert "acceptEdits mode" in status_text(app)
        await type_keys(pilot, *"write it", "enter")
        asked = lambda: isinstance(app.screen, PermissionScreen)
        await until(pilot, lambda: asked() or not app.running and "written" in transcript_text(app))
        assert not asked(), "acceptEdits: the edit asks nothing"
        assert (project / "a.txt").read_text() == "x"


@pytest.mark.parametrize(("start", "expected"), [
    (None, ["acceptEdits", "plan", "default", "acceptEdits"]),
    ("bypassPermissions", ["default", "acceptEdits", "plan", "bypassPermissions"]),
])
async def test_shift_tab_cycles_and_bypass_only_when_chosen_at_start(
        project: Path, start: str | None, expected: list[str]) -> None:
    app, _ = build(project, [], permission_mode=start)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.ready)
        seen = []
        for _ in expected:
            await pilot.press("shift+tab")
            assert f"{app.agent.policy.mode} mode" in status_text(app)
            seen.append(app.agent.policy.mode)
        assert seen == expected


async def test_ctrl_t_hides_and_shows_the_tools_panel(project: Path) -> None:
    script = [Reply([ToolUse("Read", {"file_path": str(project / "README.md")})]), Reply([Text("ok")])]
    app, _ = build(project, script)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.ready)
        await type_keys(pilot, *"read", "enter")
        await until(pilot, lambda: "● ok" in transcript_text(app) and not app.running)  # the run, not a queued prompt
        assert app.lanes.display and "Read" in str(app.lanes.render())
        await pilot.press("ctrl+t")
        assert not app.lanes.display
        await pilot.press("ctrl+t")
        assert app.lanes.display


# ----- /clear, /model, /rename typed in the prompt ----------------------------------------------------


async def test_clear_empties_the_conversation_the_history_and_the_lanes(project: Path) -> None:
    script = [Reply([ToolUse("Read", {"file_path": str(project / "README.md")})]), Reply([Text("read it")]),
              Reply([Text("fresh start")])]
    app, model = build(project, script)
    errors = CommandErrors()
    async with app.run_test(size=(100, 30), message_hook=errors) as pilot:
        await type_keys(pilot, *"look", "enter")
        await until_idle(pilot, app)
        assert conversation_kinds(app) == [UserPrompt, ToolCell, AssistantText] and app.lanes.display
        assert app.agent.history
        await type_keys(pilot, *"/clear", "enter")
        await shown(pilot, errors, lambda: "Conversation cleared" in notices(app))
        assert conversation_kinds(app) == [], "nothing of the old conversation is drawn"
        assert "look" not in transcript_text(app) and "read it" not in transcript_text(app)
        assert app.agent.history == []
        assert not app.calls.calls and not app.lanes.display
        await type_keys(pilot, *"again", "enter")
        await until_idle(pilot, app)
    assert [m["role"] for m in model.requests[-1]["messages"]] == ["user"], "the next request starts a new history"
    assert "again" in str(model.requests[-1]["messages"]) and "look" not in str(model.requests[-1]["messages"])


async def test_model_shows_and_switches_the_model_of_the_next_request(project: Path) -> None:
    app, model = build(project, [Reply([Text("hi")])])
    errors = CommandErrors()
    async with app.run_test(size=(120, 30), message_hook=errors) as pilot:
        await until(pilot, lambda: app.ready)
        first = app.agent.model.config.model
        await type_keys(pilot, *"/model", "enter")
        await shown(pilot, errors, lambda: f"Model: {first}" in notices(app))
        await type_keys(pilot, *"/model claude-opus-4-7", "enter")
        await shown(pilot, errors, lambda: "Model: claude-opus-4-7 (from the next request on)" in notices(app))
        assert app.agent.model.config.model == "claude-opus-4-7"
        assert "claude-opus-4-7" in status_text(app) and first not in status_text(app)
        await type_keys(pilot, *"hello", "enter")
        await until_idle(pilot, app)
    assert model.requests[-1]["model"] == "claude-opus-4-7"


async def test_rename_names_the_session_in_its_transcript(project: Path) -> None:
    app, _ = build(project, [])
    errors = CommandErrors()
    async with app.run_test(size=(100, 30), message_hook=errors) as pilot:
        await until(pilot, lambda: app.ready)
        await type_keys(pilot, *"/rename my work", "enter")
        await shown(pilot, errors, lambda: "Session renamed: my work" in notices(app))

        def titles() -> list[str]:
            return [line["customTitle"] for line in app.agent.session.read() if line.get("type") == "custom-title"]

        await until(pilot, lambda: titles() == ["my work"])  # written on the core's thread


# ----- every command in the palette ---------------------------------------------------------------------

Check = Callable[[Any, TuiAgentApp, int], Awaitable[None]]


def shows(text: str) -> Check:
    async def check(pilot: Any, app: TuiAgentApp, since: int) -> None:
        await until(pilot, lambda: text in notices(app, since))

    return check


def opens(screen: type) -> Check:
    async def check(pilot: Any, app: TuiAgentApp, since: int) -> None:
        await until(pilot, lambda: isinstance(app.screen, screen))
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, screen))

    return check


async def cleared(pilot: Any, app: TuiAgentApp, since: int) -> None:
    await until(pilot, lambda: "Conversation cleared" in notices(app))
    assert conversation_kinds(app) == [] and app.agent.history == []


async def compacted(pilot: Any, app: TuiAgentApp, since: int) -> None:
    await until(pilot, lambda: "Conversation compacted" in transcript_text(app))
    await until_idle(pilot, app)  # shown as a run until the summary is in
    assert app.agent.history[0]["content"][0]["text"].startswith(CONTINUED)


async def warned(pilot: Any, app: TuiAgentApp, since: int) -> None:
    await until(pilot, lambda: any(n.message == "Usage: /rename NAME" for n in app._notifications))


async def initialised(pilot: Any, app: TuiAgentApp, since: int) -> None:
    await until(pilot, lambda: "CLAUDE.md is ready" in transcript_text(app))
    await until_idle(pilot, app)
    prompts = [i.text for i in app.transcript.items if isinstance(i, UserPrompt)]
    assert prompts and prompts[-1].startswith("Please analyze this codebase")


async def quitted(pilot: Any, app: TuiAgentApp, since: int) -> None:
    await until(pilot, lambda: app.return_code == 0)


EFFECTS: dict[str, Check] = {  # in an order that gives each its case: /init makes a conversation to compact, then clear
    "help": shows("/compact [instructions]"),
    "model": shows("Model: "),
    "cost": shows("Total cost: $0.00"),
    "context": shows("Context usage"),
    "mode": shows("Permission mode: default"),
    "permissions": opens(PermissionsScreen),
    "sandbox": opens(SandboxScreen),
    "mcp": opens(McpServersScreen),
    "agents": shows("Subagent types"),
    "resume": opens(ResumePicker),
    "rewind": opens(RewindPicker),
    "rename": warned,
    "memory": shows("No memory files were read"),
    "output-style": shows("Output styles"),
    "export": shows("Conversation exported to:"),
    "init": initialised,
    "compact": compacted,
    "clear": cleared,
    "quit": quitted,
}


async def test_every_palette_command_runs_on_the_app_with_its_effect(project: Path) -> None:
    assert sorted(EFFECTS) == sorted(c.name for c in COMMANDS), "a new command needs its effect checked here"
    handler, _ = conversation([Reply([Text("CLAUDE.md is ready")])])  # and a summary for /compact
    app, _ = build(project, handler)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.ready)
        provider = SlashCommandsProvider(app.screen)
        hits = {str(h.text): h async for h in provider.discover()}  # what the palette lists and runs
        assert list(hits) == [c.usage for c in COMMANDS]
        for name, effect in EFFECTS.items():
            since = len(app.transcript.items)
            await hits[find_command(name).usage].command()  # type: ignore[union-attr]
            await effect(pilot, app, since)
