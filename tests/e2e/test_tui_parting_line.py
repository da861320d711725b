"""Leaving the app says how to come back, as Claude Code does: "Resume this session with:" and the command with
this session's id, printed once the app has left the terminal — only when there is a conversation to resume.
A real pty, the real `python -m tui_agent`, the scripted model on a loopback port."""

from __future__ import annotations

import os
from pathlib import Path

from tests.e2e.pty_app import PtyApp
from tests.ui.app_support import trust_for_tests
from tui_agent.providers.scripted import Reply, ScriptedModel, ScriptedServer, Text


def start(tmp_path: Path, server: ScriptedServer) -> tuple[PtyApp, Path]:
    work = tmp_path / "work"
    work.mkdir()
    data = tmp_path / "data"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "TUI_AGENT"))}
    env.update({"HOME": str(tmp_path / "home"), "XDG_DATA_HOME": str(data), "XDG_CONFIG_HOME": str(tmp_path / "home" / ".config"),
                "ANTHROPIC_API_KEY": "sk-test", "ANTHROPIC_BASE_URL": server.url})
    trust_for_tests(tmp_path / "home", work)
    app = PtyApp([], env, work)
    assert app.wait_for_output(b"esc interrupt"), app.output[-2000:]
    return app, data


def test_leaving_after_a_conversation_prints_the_command_that_resumes_it(tmp_path: Path) -> None:
    with ScriptedServer(ScriptedModel([Reply([Text("Hello from the model.")])])) as server:
        app, data = start(tmp_path, server)
        try:
            app.send(b"hi")
            app.send(b"\r")
            assert app.wait_for_output(b"Hello from the model."), app.output[-2000:]
            app.send(b"/exit")
            app.send(b"\r")
            assert app.wait_exit() == 0, app.output[-2000:]
        finally:
            app.kill()
    session_id = next((data / "tui-agent" / "projects").glob("*/*.jsonl")).stem
    tail = bytes(app.output).decode(errors="replace").rsplit("Hello from the model.", 1)[-1]
    assert f"Resume this session with:\r\ntui-agent --resume {session_id}\r\n" in tail


def test_leaving_without_a_conversation_prints_nothing_to_resume(tmp_path: Path) -> None:
    with ScriptedServer(ScriptedModel([])) as server:
        app, _ = start(tmp_path, server)
        try:
            app.send(b"/exit")
            app.send(b"\r")
            assert app.wait_exit() == 0, app.output[-2000:]
        finally:
            app.kill()
    assert b"Resume this session with" not in bytes(app.output)
