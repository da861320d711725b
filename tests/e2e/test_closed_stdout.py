"""`tui-agent -p ... | head -1`: a reader that stops reading ends the run quietly (issue 26).

A closed stdout is SIGPIPE semantics without the signal: the run is stopped (aborted, its tools killed)
instead of running on with nobody listening, the transcript ends valid, nothing is printed about it (no
traceback, no "Exception ignored ... BrokenPipeError" from the interpreter's last flush), and the exit
status is 0, as `head` expects of the writer it stopped reading. In every output format and in the SDK
protocol mode. Real processes: the reader is a pipe the test closes after reading one line.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psutil
import pytest

from tests.core.support import assert_history_valid
from tests.e2e.test_headless import env, serve, work  # noqa: F401  (fixtures)
from tui_agent.core.session.reader import load
from tui_agent.providers.scripted import Reply, Text, ToolUse

# A reply streamed in many chunks, longer than a pipe holds (64 KB): its writing fails once the reader goes.
LONG = "A long explanation of what the command is about to do, line by line.\n" * 1500


def tagged_sleep() -> tuple[str, str]:
    tag = f"{random.randrange(10**6):06d}"
    return tag, f"sleep 30.{tag}"  # 30 s, findable by its tag


def sleeps_with(tag: str) -> list[int]:
    found = []
    for proc in psutil.process_iter(["cmdline", "status"]):
        if f"30.{tag}" in " ".join(proc.info["cmdline"] or []) and proc.info["status"] != psutil.STATUS_ZOMBIE:
            found.append(proc.pid)
    return found


def start(args: list[str], env: dict[str, str], cwd: Path, stdin: Any = subprocess.DEVNULL) -> subprocess.Popen[bytes]:
    # stdout buffered as a user's is (unbuffered, the interpreter's last flush would have nothing to fail on).
    env = {k: v for k, v in env.items() if k != "PYTHONUNBUFFERED"}
    return subprocess.Popen([sys.executable, "-m", "tui_agent", *args], env=env, cwd=cwd, stdin=stdin,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def read_then_close(proc: subprocess.Popen[bytes], *, first_bytes: int | None = None) -> bytes:
    """As `head -1` does (or `head -c N`): read the first line, then close the pipe."""
    assert proc.stdout is not None
    got = proc.stdout.read(first_bytes) if first_bytes else proc.stdout.readline()
    proc.stdout.close()
    return got


def finish(proc: subprocess.Popen[bytes]) -> tuple[int, str, float]:
    """Exit status, stderr, and how long after the reader went the process took to end."""
    gone = time.monotonic()
    assert proc.stderr is not None
    err = proc.stderr.read().decode()  # until the process closes it: it has ended
    status = proc.wait(timeout=120)
    return status, err, time.monotonic() - gone


def assert_quiet(status: int, err: str) -> None:
    assert status == 0, err
    for noise in ("Traceback", "BrokenPipe", "Exception ignored"):
        assert noise not in err, err


def the_session(tmp_path: Path) -> Any:
    found = sorted((tmp_path / "data" / "tui-agent" / "projects").glob("*/*.jsonl"))
    assert len(found) == 1, found
    conversation = load(found[0])
    assert_history_valid(conversation.history)
    return conversation


def tool_then_long_answer(command: str) -> list[Reply]:
    return [
        Reply([Text("Running it."), ToolUse("Bash", {"command": command}, id="b"), Text(LONG)], chunk=256, delay=0.001),
        Reply([Text(LONG)], chunk=256, delay=0.001),
    ]


ARGS = ["--allowedTools", "Bash"]


@pytest.mark.parametrize("extra", [[], ["--include-partial-messages"]], ids=["messages", "partial-messages"])
def test_stream_json_stops_the_run_and_its_tool_and_exits_0(env, work, tmp_path, extra):
    tag, command = tagged_sleep()
    with serve(tool_then_long_answer(command), env) as server:
        proc = start(["-p", "go", "--output-format", "stream-json", "--verbose", *ARGS, *extra], env, work)
        first = read_then_close(proc)
        status, err, took = finish(proc)
    assert json.loads(first)["type"] == "system"
    assert_quiet(status, err)
    assert took < 20, "the run was stopped, not waited out (its tool sleeps 30 s)"
    assert not sleeps_with(tag), "the tool's process was killed"
    assert len(server.model.requests) == 1, "no request after the reader went"
    history = the_session(tmp_path).history
    assert history[-1]["role"] == "user" and history[-1]["content"][-1]["text"] == "[Request interrupted by user]"


def test_text_exits_0_quietly_when_the_reader_takes_one_line(env, work, tmp_path):
    with serve(tool_then_long_answer("echo done"), env):
        proc = start(["-p", "go", *ARGS], env, work)
        first = read_then_close(proc)
        status, err, _ = finish(proc)
    assert first == b"A long explanation of what the command is about to do, line by line.\n"
    assert_quiet(status, err)
    the_session(tmp_path)


def test_json_exits_0_quietly_when_the_reader_stops_mid_line(env, work, tmp_path):
    with serve(tool_then_long_answer("echo done"), env):
        proc = start(["-p", "go", "--output-format", "json", *ARGS], env, work)
        first = read_then_close(proc, first_bytes=100)
        status, err, _ = finish(proc)
    assert first.startswith(b'{"type": "result"')
    assert_quiet(status, err)
    the_session(tmp_path)


def test_the_sdk_protocol_stops_the_turn_and_its_tool_and_exits_0(env, work, tmp_path):
    tag, command = tagged_sleep()
    with serve(tool_then_long_answer(command), env) as server:
        proc = start(["--input-format", "stream-json", "--output-format", "stream-json", "--verbose", *ARGS], env, work, stdin=subprocess.PIPE)
        assert proc.stdin is not None
        proc.stdin.write(json.dumps({"type": "user", "message": {"role": "user", "content": "go"}}).encode() + b"\n")
        proc.stdin.flush()  # stdin stays open: the program is still there, it just stopped reading
        try:
            first = read_then_close(proc)
            status, err, took = finish(proc)
        finally:
            proc.stdin.close()
    assert json.loads(first)["type"] == "system"
    assert_quiet(status, err)
    assert took < 20 and not sleeps_with(tag), "the turn and its tool were stopped"
    assert len(server.model.requests) == 1
    the_session(tmp_path)
