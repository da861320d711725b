"""The app and a session another process is writing (issue 26): "Session busy in another window" asks Wait,
Fork or Cancel, with the session's real lock held by a real child process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.core.support import assert_history_valid
from tests.ui.app_support import type_keys
from tests.ui.app_support import build, transcript_text, until, until_idle
from tui_agent.config import AgentSettings
from tui_agent.core.session import load
from tui_agent.core.session.lock import holder_pid, is_free, lock_path
from tui_agent.factory import build_agent
from tui_agent.providers.scripted import Reply, ScriptedModel, Text
from tui_agent.ui.screens.session_busy import STAY, SessionBusyScreen

# Takes the session's lock (its real flock, pid in the file) and holds it until stdin closes.
HOLDER = ("import sys; from pathlib import Path; from tui_agent.core.session.lock import take; "
          "lock = take(Path(sys.argv[1]), 'held'); print('locked', flush=True); sys.stdin.read(); lock.release()")


class Holder:
    def __init__(self, transcript: Path) -> None:
        self.proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(transcript)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout.readline().strip() == "locked"

    def let_go(self) -> None:
        if self.proc.poll() is None:
            self.proc.communicate("", timeout=60)


async def past_session(project: Path) -> Path:
    """A finished session, as an earlier run left it; its file."""
    agent = build_agent(AgentSettings(cwd=project), scripted=ScriptedModel([Reply([Text("the old answer")])]))
    await agent.run("the old prompt")
    await agent.close()
    return agent.session.transcript_path


def dialog_text(app) -> str:
    return " ".join(str(s.render()) for s in app.screen.query("Static") if s.display)


def busy_dialog_shown(app) -> bool:
    """The dialog is on screen with its words (pushed is not yet composed: its text comes a frame later)."""
    return isinstance(app.screen, SessionBusyScreen) and "open in another tui-agent process" in dialog_text(app)


class TestAtStartUp:
    async def test_fork_carries_on_in_a_new_session_from_the_last_completed_turn(self, project: Path) -> None:
        path = await past_session(project)
        holder = Holder(path)
        try:
            app, model = build(project, [Reply([Text("forked answer")])], continue_session=True)
            async with app.run_test(size=(100, 32)) as pilot:
                await until(pilot, lambda: busy_dialog_shown(app))
                text = dialog_text(app)
                assert f"Session {path.stem} is open in another tui-agent process (pid {holder.proc.pid})" in text
                assert not app.ready  # nothing is opened before the answer
                await pilot.press("down", "enter")  # Fork
                await until(pilot, lambda: app.ready)
                assert app.agent.session.id != path.stem
                shown = transcript_text(app)
                assert "the old answer" in shown and f"in use by another tui-agent process (pid {holder.proc.pid})" in shown
                await type_keys(pilot, *"go on", "enter")
                await until_idle(pilot, app)
                await app.action_quit()
        finally:
            holder.let_go()
        sent = model.requests[0]["messages"]
        assert_history_valid(sent)
        assert "the old prompt" in json.dumps(sent) and "go on" in json.dumps(sent)
        assert "go on" not in path.read_text()  # the busy session was only read

    async def test_cancel_starts_a_new_empty_session(self, project: Path) -> None:
        path = await past_session(project)
        holder = Holder(path)
        try:
            app, _ = build(project, [Reply([Text("fresh")])], continue_session=True)
            async with app.run_test(size=(100, 32)) as pilot:
                await until(pilot, lambda: busy_dialog_shown(app))
                await pilot.press("escape")  # Cancel
                await until(pilot, lambda: app.ready)
                assert app.agent.session.id != path.stem and app.agent.history == []
                assert f"Session {path.stem} stays with the other window; this is a new session." in transcript_text(app)
                assert "the old answer" not in transcript_text(app)
                await app.action_quit()
        finally:
            holder.let_go()

    async def test_wait_shows_the_wait_esc_stops_it_and_the_session_opens_once_released(self, project: Path) -> None:
        path = await past_session(project)
        holder = Holder(path)
        try:
            app, model = build(project, [Reply([Text("same session")])], continue_session=True)
            async with app.run_test(size=(100, 32)) as pilot:
                await until(pilot, lambda: busy_dialog_shown(app))
                dialog = app.screen
                await pilot.press("enter")  # Wait
                await until(pilot, lambda: "Waiting for another tui-agent process" in dialog_text(app))
                assert dialog.waiting and f"(pid {holder.proc.pid}) to close session {path.stem}" in dialog_text(app)
                await pilot.press("escape")  # stops waiting: back to the question, nothing chosen
                assert app.screen is dialog and not dialog.waiting and not app.ready
                await pilot.press("enter")  # Wait again
                await until(pilot, lambda: dialog.waiting)
                await pilot.pause(0.3)
                assert app.screen is dialog and not app.ready  # still held: still waiting
                holder.let_go()  # the other window closes the session
                await until(pilot, lambda: app.ready)
                assert app.agent.session.id == path.stem  # the session itself, carried on
                assert holder_pid(lock_path(path)) == os.getpid()
                await type_keys(pilot, *"next", "enter")
                await until_idle(pilot, app)
                await app.action_quit()
            assert is_free(path)
        finally:
            holder.let_go()
        history = load(path).history
        assert_history_valid(history)
        assert "the old prompt" in json.dumps(history) and "same session" in json.dumps(history)


class TestSlashResume:
    async def test_cancel_stays_in_the_session_open_here(self, project: Path) -> None:
        path = await past_session(project)
        holder = Holder(path)
        try:
            app, _ = build(project, [Reply([Text("x")])])
            async with app.run_test(size=(100, 32)) as pilot:
                await until(pilot, lambda: app.ready)
                here = app.agent.session.id
                await type_keys(pilot, *f"/resume {path.stem}", "enter")
                await until(pilot, lambda: busy_dialog_shown(app))
                assert STAY in str(app.screen.query_one("OptionList").get_option("cancel").prompt)
                await pilot.press("escape")
                await until(pilot, lambda: not isinstance(app.screen, SessionBusyScreen))
                assert app.ready and app.agent.session.id == here
                await app.action_quit()
        finally:
            holder.let_go()
