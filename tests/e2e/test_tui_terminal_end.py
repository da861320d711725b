"""The app's end when its terminal goes away (a closed window, `tmux kill-session`) or SIGTERM comes, while a
shell tool runs: the run is aborted, the tool's process is gone, the transcript ends valid, the app exits.
A real pty, the real `python -m tui_agent`, the scripted model on a loopback port."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path
from typing import Any, Iterator

import psutil
import pytest

from tests.core.support import assert_history_valid
from tests.e2e.pty_app import PtyApp, wait
from tests.ui.app_support import trust_for_tests
from tui_agent.providers.scripted import Reply, ScriptedModel, ScriptedServer, Text, ToolUse


def processes_with(needle: str) -> list[psutil.Process]:
    """Live processes (anywhere: orphans are re-parented) whose command line holds `needle`."""
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        try:
            if needle in " ".join(proc.info["cmdline"] or []) and proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc)
        except psutil.Error:
            pass
    return found


@pytest.fixture
def started(tmp_path: Path) -> Iterator[tuple[PtyApp, str, Path]]:
    """The app in a pty, a Bash `sleep` running in it; yields (app, the sleep's command, the data folder)."""
    command = f"sleep 3600.{os.getpid()}{time.monotonic_ns() % 100000}"  # unique: its command line tells it
    server = ScriptedServer(ScriptedModel([Reply([Text("Running it.\n\n"), ToolUse("Bash", {"command": command})]),
                                           Reply([Text("never asked for")])])).start()
    work = tmp_path / "work"
    work.mkdir()
    data = tmp_path / "data"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "TUI_AGENT"))}
    env.update({"HOME": str(tmp_path / "home"), "XDG_DATA_HOME": str(data), "XDG_CONFIG_HOME": str(tmp_path / "home" / ".config"),
                "ANTHROPIC_API_KEY": "sk-test", "ANTHROPIC_BASE_URL": server.url})
    trust_for_tests(tmp_path / "home", work)  # a folder the user trusted before: no trust question
    app = PtyApp(["--allowedTools", "Bash"], env, work)
    try:
        assert app.wait_for_output(b"esc interrupt"), app.output[-2000:]
        app.send(b"run the sleep")
        app.send(b"\r")
        assert wait(lambda: bool(processes_with(command))), app.output[-2000:]
        yield app, command, data
    finally:
        app.kill()
        for proc in processes_with(command):
            proc.kill()
        server.stop()


def transcript_lines(data: Path) -> list[dict[str, Any]]:
    (path,) = (data / "tui-agent" / "projects").glob("*/*.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines()]


def assert_ended_by_interruption(lines: list[dict[str, Any]]) -> None:
    messages = [line["message"] for line in lines if line.get("type") in ("user", "assistant")]
    assert_history_valid(messages)
    results = [b for m in messages if isinstance(m["content"], list) for b in m["content"] if b.get("type") == "tool_result"]
    assert len(results) == 1 and results[0]["is_error"] and "Interrupted" in str(results[0]["content"])
    assert lines[-1]["type"] == "tui-agent-run" and lines[-1]["reason"] == "aborted"


def test_closing_the_terminal_ends_the_app_the_tool_and_the_run(started: tuple[PtyApp, str, Path]) -> None:
    app, command, data = started
    app.close_terminal()  # the kernel hangs the terminal up: SIGHUP, then SIGCONT
    assert app.wait_exit() == 128 + signal.SIGHUP
    assert wait(lambda: not processes_with(command)), processes_with(command)
    assert_ended_by_interruption(transcript_lines(data))


def test_sigterm_ends_the_app_the_tool_and_the_run(started: tuple[PtyApp, str, Path]) -> None:
    app, command, data = started
    os.kill(app.pid, signal.SIGTERM)
    assert app.wait_exit() == 128 + signal.SIGTERM
    assert wait(lambda: not processes_with(command)), processes_with(command)
    assert_ended_by_interruption(transcript_lines(data))
    assert app.wait_for_output(b"\x1b[?1049l", timeout=10)  # the terminal is still there: given back as it was
