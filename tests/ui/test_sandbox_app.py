"""The OS sandbox in the app (issue 25), with real bwrap: a sandboxed command is marked in its lane and its
cell, a command the sandbox stopped shows the OS's own error, `/sandbox` shows the state and switches it for
the session, and `failIfUnavailable` without bwrap refuses to start with the reason."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.core.sandbox_support import need_bwrap, outside_folder
from tests.ui.app_support import build, lanes_text, transcript_text, until, until_idle
from tui_agent.core.sandbox import availability
from tui_agent.providers.scripted import Reply, Text, ToolUse


@pytest.fixture
def outside() -> Iterator[Path]:
    yield from outside_folder()


def sandbox_settings(project: Path, sandbox: dict[str, Any], **more: Any) -> None:
    folder = project / ".claude"
    folder.mkdir(exist_ok=True)
    (folder / "settings.json").write_text(json.dumps({"sandbox": sandbox, **more}))


def on_sandbox_screen(app: Any) -> bool:
    return type(app.screen).__name__ == "SandboxScreen"


def screen_text(app: Any) -> str:
    return "\n".join(str(s.render()) for s in app.screen.query("Static"))


async def test_a_sandboxed_command_is_marked_in_its_lane_and_cell(project: Path) -> None:
    need_bwrap()
    sandbox_settings(project, {"enabled": True, "autoAllowBashIfSandboxed": True})
    wait = "while [ ! -e go ]; do sleep 0.02; done; echo made > made.txt"
    app, _ = build(project, [Reply([ToolUse("Bash", {"command": wait}, id="w")]), Reply([Text("done")])])
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.ready)
        app.submit("make it")
        await until(pilot, lambda: (c := app.calls.get("w")) is not None and c.phase == "running")
        # Foreseen while it runs (no permission asked: auto-allowed inside); drawn once the panel has its width.
        await until(pilot, lambda: "[sbx] while [ ! -e go ]" in lanes_text(app), timeout=20)
        assert "running… · sandboxed" in transcript_text(app)
        (project / "go").touch()
        await until_idle(pilot, app)
        assert app.calls.get("w").sandboxed is True  # type: ignore[union-attr]  # as the tool's result says
        await until(pilot, lambda: "[sbx] while" in lanes_text(app) and "ok" in lanes_text(app), timeout=20)
        assert "ok · " in transcript_text(app) and " · sandboxed" in transcript_text(app)
        await app.action_quit()
    assert (project / "made.txt").read_text() == "made\n"  # the workspace is writable inside


async def test_sandbox_command_shows_the_state_and_switching_off_unsandboxes_the_next_command(project: Path, outside: Path) -> None:
    need_bwrap()
    sandbox_settings(project, {"enabled": True, "excludedCommands": ["docker *"],
                               "network": {"allowedDomains": ["example.com"]}},
                     permissions={"allow": ["Bash(touch *)"]})
    target = outside / "out.txt"
    touch = lambda i: [Reply([ToolUse("Bash", {"command": f"touch {target}"}, id=f"t{i}")]), Reply([Text("ok")])]  # noqa: E731
    app, _ = build(project, [*touch(1), *touch(2)])
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.ready)
        app.submit("touch it")
        await until_idle(pilot, app)
        first = transcript_text(app)
        assert "Read-only file system" in first and "sandboxed" in first  # the OS's own error, in the record
        assert not target.exists()

        app.submit("/sandbox")
        await until(pilot, lambda: on_sandbox_screen(app))
        await pilot.pause()
        shown = screen_text(app)
        assert "Sandbox: on (by the settings)" in shown
        assert str(project.resolve()) in shown and "/tmp (private)" in shown
        assert "only example.com" in shown and "docker *" in shown and "Auto-allow" in shown
        await pilot.press("d")
        await until(pilot, lambda: "Sandbox: off (for this session)" in screen_text(app))
        await pilot.press("escape")
        await until(pilot, lambda: not on_sandbox_screen(app))

        app.submit("touch it again")
        await until(pilot, lambda: (c := app.calls.get("t2")) is not None and not c.active)
        await until_idle(pilot, app)
        assert app.calls.get("t2").sandboxed is False  # type: ignore[union-attr]
        await until(pilot, lambda: "Bash touch" in lanes_text(app), timeout=20)
        assert "[sbx]" not in lanes_text(app) and "sandboxed" not in transcript_text(app).split("touch it again")[1]
        await app.action_quit()
    assert target.exists()  # switched off: the command ran as the user


async def test_sandbox_arguments_switch_and_go_back_to_the_settings(project: Path) -> None:
    need_bwrap()
    sandbox_settings(project, {"enabled": False})
    app, _ = build(project, [])
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.ready)
        sandbox = app.agent.context.services["sandbox"]
        app.submit("/sandbox on")
        await until(pilot, lambda: "Sandbox: on (for this session)" in transcript_text(app))
        assert sandbox.will_sandbox("ls")
        app.submit("/sandbox settings")
        await until(pilot, lambda: "Sandbox: off (by the settings)" in transcript_text(app))
        assert not sandbox.will_sandbox("ls")
        await app.action_quit()


async def test_fail_if_unavailable_refuses_to_start_with_the_reason(project: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("TUI_AGENT_BWRAP", "/nonexistent/bwrap")
    availability.forget()
    sandbox_settings(project, {"enabled": True, "failIfUnavailable": True})
    app, model = build(project, [Reply([Text("never")])])
    async with app.run_test(size=(120, 40)) as pilot:
        app.submit("hello")
        await until(pilot, lambda: app.return_code is not None, timeout=20)
    assert app.return_code == 1 and not app.ready and model.requests == []
    assert "sandbox.failIfUnavailable" in app.start_error
    assert "/nonexistent/bwrap" in app.start_error and "apt-get install bubblewrap" in app.start_error


def test_the_mark_follows_the_tools_word_and_never_marks_a_bang_command() -> None:
    from tui_agent.core.events import ToolFinished, ToolQueued, ToolStarted
    from tui_agent.ui.widgets.tool_calls import ToolCalls

    asked: list[tuple[str, bool]] = []
    calls = ToolCalls()
    calls.sandbox_probe = lambda command, disable: asked.append((command, disable)) is None and not disable

    def queued(id: str, command: str, summary: str | None = None, **more: Any) -> Any:
        return calls.on_queued(ToolQueued(id, "Bash", {"command": command, **more}, summary or command, False, 0.0))

    assert queued("a", "ls").sandboxed
    assert not queued("b", "ls", dangerouslyDisableSandbox=True).sandboxed
    assert not queued("bang", "ls", "! ls").sandboxed  # the user's own `!` command: never inside, never probed
    assert ("ls", True) in asked and len(asked) == 2
    calls.on_started(ToolStarted("a", "Bash", 0, 1.0))
    calls.on_finished(ToolFinished("a", "Bash", "cancelled", 0, 1.0, 2.0, "", True))
    assert calls.get("a").sandboxed  # type: ignore[union-attr]  # it started inside: ESC does not change that
    queued("c", "ls")
    calls.on_finished(ToolFinished("c", "Bash", "denied", -1, 0.0, 0.0, "", True))
    assert not calls.get("c").sandboxed  # type: ignore[union-attr]  # never ran
    queued("d", "ls")
    calls.on_finished(ToolFinished("d", "Bash", "ok", 0, 0.0, 1.0, "", False, None))
    assert not calls.get("d").sandboxed  # type: ignore[union-attr]  # the tool ran it outside (switched off meanwhile)
    queued("e", "ls")
    calls.on_finished(ToolFinished("e", "Bash", "ok", 0, 0.0, 1.0, "", False, {"type": "background_shell", "sandboxed": True}))
    assert calls.get("e").sandboxed  # type: ignore[union-attr]
