"""Sessions from the command line: `tui-agent -p` with --continue, --resume, --fork-session, and a
process killed with SIGKILL in the middle of a shell command, then continued."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import psutil

from tests.core.support import assert_history_valid
from tests.e2e.test_headless import env, run_cli, serve, work  # noqa: F401  (fixtures)
from tui_agent.providers.scripted import Reply, Text, ToolUse


def session_files(env: dict[str, str]) -> list[Path]:
    return sorted((Path(env["XDG_DATA_HOME"]) / "tui-agent" / "projects").glob("*/*.jsonl"))


def json_run(args: list[str], env: dict[str, str], cwd: Path) -> tuple[dict, subprocess.CompletedProcess[str]]:
    proc = run_cli([*args, "--output-format", "json"], env, cwd)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout), proc


class TestFlags:
    def test_continue_and_resume_carry_on_the_same_session_and_fork_makes_a_new_one(self, env, work):
        with serve([Reply([Text("one")]), Reply([Text("two")]), Reply([Text("three")]), Reply([Text("four")])], env) as server:
            first, _ = json_run(["-p", "first"], env, work)
            second, _ = json_run(["-p", "second", "-c"], env, work)
            third, _ = json_run(["-p", "third", "--resume", first["session_id"]], env, work)
            forked, _ = json_run(["-p", "fourth", "--resume", first["session_id"], "--fork-session"], env, work)
        assert first["session_id"] == second["session_id"] == third["session_id"] != forked["session_id"]
        sent = [[m["content"] if isinstance(m["content"], str) else m["content"][-1]["text"] for m in r["messages"]] for r in server.model.requests]
        assert sent[1] == ["first", "one", "second"]
        assert sent[2] == ["first", "one", "second", "two", "third"]
        assert sent[3] == ["first", "one", "second", "two", "third", "three", "fourth"]
        files = session_files(env)
        assert sorted(f.stem for f in files) == sorted([first["session_id"], forked["session_id"]])
        original = next(f for f in files if f.stem == first["session_id"])
        assert "fourth" not in original.read_text()  # the fork left the original untouched

    def test_an_unknown_id_exits_1_with_claude_codes_message(self, env, work):
        proc = run_cli(["-p", "x", "--resume", "no-such-session"], env, work)
        said = proc.stderr.strip().splitlines()
        assert proc.returncode == 1 and said[0] == "No conversation found with session ID: no-such-session"  # Claude Code's words
        assert said[1:] == ['"no-such-session" is not a session ID, and no session in this folder has that name '
                            "(tui-agent --resume without a value lists them)."]
        proc = run_cli(["-p", "x", "--continue"], env, work)
        assert proc.returncode == 1 and proc.stderr.strip() == "No conversation found to continue"

    def test_session_id_and_name(self, env, work):
        sid = "0b7a4d8e-1111-4222-8333-444455556666"
        with serve([Reply([Text("one")]), Reply([Text("two")])], env):
            first, _ = json_run(["-p", "first", "--session-id", sid, "-n", "release prep"], env, work)
            again, _ = json_run(["-p", "again", "--resume", "release prep"], env, work)
        assert first["session_id"] == again["session_id"] == sid


class TestKilledMidTool:
    def test_sigkill_during_a_shell_command_then_continue_gives_a_valid_conversation(self, env, work):
        marker = work / "started"
        script = [Reply([Text("Running it."), ToolUse("Bash", {"command": f"touch {marker}; sleep 30"}, id="b1")])]
        with serve(script, env):
            proc = subprocess.Popen(
                [sys.executable, "-m", "tui_agent", "-p", "run the thing", "--allowedTools", "Bash"],
                env=env, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            )
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and not (marker.exists() and session_files(env) and '"tool_use"' in session_files(env)[0].read_text()):
                time.sleep(0.05)
            tree = psutil.Process(proc.pid).children(recursive=True)
            proc.kill()  # SIGKILL: no cleanup of any kind
            proc.communicate(timeout=10)
            for child in tree:  # the orphaned shell is the test's to clean up
                try:
                    child.kill()
                except psutil.NoSuchProcess:
                    pass
        assert proc.returncode == -9
        with serve([Reply([Text("It was cut off; I will check.")])], env) as server:
            proc2 = run_cli(["-p", "what happened?", "--continue"], env, work)
        assert proc2.returncode == 0, proc2.stderr
        assert "may have run partway" in proc2.stderr  # the user is told what was repaired
        messages = server.model.requests[0]["messages"]
        assert_history_valid(messages)
        assert messages[1]["content"][0] == {"type": "text", "text": "Running it."}
        result = messages[2]["content"][0]
        assert result["tool_use_id"] == "b1" and result["is_error"] and "session ended while this tool was running" in result["content"]
        assert messages[2]["content"][-1]["text"] == "what happened?"
