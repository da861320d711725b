"""`tui-agent -p` as scripts use it: a real process, the real SDK, the scripted model on a loopback port."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psutil
import pytest

from tests.warm_start import tui_agent_command
from tests.core.support import assert_history_valid, count_sleeping
from tui_agent.providers.scripted import Reply, ScriptedModel, ScriptedServer, Text, ToolUse, fault


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    e.update({
        "HOME": str(tmp_path / "home"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_CONFIG_HOME": str(tmp_path / "home" / ".config"),
        "ANTHROPIC_API_KEY": "sk-test",
        "TUI_AGENT_MAX_RETRIES": "4",
    })
    return e


@pytest.fixture
def work(tmp_path: Path) -> Path:
    w = tmp_path / "work"
    (w / "pkg").mkdir(parents=True)
    (w / "README.md").write_text("# Demo project\nhello\n")
    (w / "pkg" / "a.py").write_text("def a():\n    return 1  # TODO tidy\n")
    (w / "pkg" / "b.py").write_text("print('b')\n")
    return w


def run_cli(args: list[str], env: dict[str, str], cwd: Path, stdin: str | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*tui_agent_command(), *args], env=env, cwd=cwd, input=stdin, capture_output=True, text=True, timeout=timeout)


def serve(script: list[Any], env: dict[str, str]) -> ScriptedServer:
    server = ScriptedServer(ScriptedModel(script)).start()
    env["ANTHROPIC_BASE_URL"] = server.url
    return server


class TestConversation:
    def test_every_request_keeps_the_invariants_through_faults(self, env, work):
        """Parallel reads, an unknown tool, invalid input, 529 then 429, a mid-stream error and a dropped
        connection: the run still ends with the right answer and every request sent was valid."""
        readme = str(work / "README.md")
        script = [
            fault(529, "Overloaded", retry_after=0),
            fault(429, "Too many requests", retry_after_ms=20),
            Reply([
                Text("Reading in parallel."),
                ToolUse("Read", {"file_path": readme}, id="read"),
                ToolUse("Grep", {"pattern": "TODO"}, id="grep"),
                ToolUse("Glob", {"pattern": "**/*.py"}, id="glob"),
                ToolUse("Teleport", {"to": "mars"}, id="unknown"),
                ToolUse("Read", {"path": readme}, id="invalid"),
            ]),
            Reply([Text("half an answer " * 10)], chunk=8, error_after=6),
            Reply([Text("another half " * 10)], chunk=8, drop_after=6),
            Reply([Text("Done: 2 Python files, 1 TODO.")]),
        ]
        with serve(script, env) as server:
            proc = run_cli(["-p", "look around", "--output-format", "json"], env, work)
        assert proc.returncode == 0, proc.stderr
        result = json.loads(proc.stdout)
        assert result["type"] == "result" and result["subtype"] == "success" and not result["is_error"]
        assert result["result"] == "Done: 2 Python files, 1 TODO."
        assert result["num_turns"] == 2
        requests = server.model.requests
        assert len(requests) == 6
        for req in requests:
            assert_history_valid(req["messages"])
        results = {b["tool_use_id"]: b for b in requests[-1]["messages"][2]["content"]}
        assert "# Demo project" in results["read"]["content"]
        assert "a.py" in results["grep"]["content"] and "a.py" in results["glob"]["content"] and "b.py" in results["glob"]["content"]
        assert results["unknown"]["content"] == "<tool_use_error>Error: No such tool available: Teleport</tool_use_error>"
        assert "The required parameter `file_path` is missing" in results["invalid"]["content"]
        assert "retrying" in proc.stderr

    def test_stream_json_prints_init_each_message_and_the_result(self, env, work):
        script = [Reply([ToolUse("Glob", {"pattern": "*.md"}, id="g")]), Reply([Text("one README")])]
        with serve(script, env):
            proc = run_cli(["-p", "find docs", "--output-format", "stream-json", "--verbose", "--tools", "Glob,Read"], env, work)
        lines = [json.loads(l) for l in proc.stdout.splitlines()]
        assert [l["type"] for l in lines] == ["system", "assistant", "user", "assistant", "result"]
        assert lines[0]["subtype"] == "init" and lines[0]["tools"] == ["Glob", "Read"]
        assert lines[2]["message"]["content"][0]["tool_use_id"] == "g"
        assert lines[-1]["result"] == "one README" and proc.returncode == 0

    def test_text_output_prints_the_answer(self, env, work):
        with serve([Reply([Text("plain answer")])], env):
            proc = run_cli(["-p", "hi"], env, work)
        assert proc.stdout == "plain answer\n" and proc.returncode == 0

    def test_prompt_from_stdin(self, env, work):
        with serve([Reply([Text("got it")])], env) as server:
            proc = run_cli(["-p"], env, work, stdin="from a pipe")
        assert proc.returncode == 0 and server.model.requests[0]["messages"][0]["content"][0]["text"] == "from a pipe"


class TestEndings:
    def test_max_turns_is_an_error_result(self, env, work):
        again = Reply([ToolUse("Glob", {"pattern": "*"})])
        with serve([again] * 5, env) as server:
            proc = run_cli(["-p", "loop", "--max-turns", "2", "--output-format", "json"], env, work)
        result = json.loads(proc.stdout)
        assert result["subtype"] == "error_max_turns" and result["is_error"] and result["num_turns"] == 2
        assert len(server.model.requests) == 2 and proc.returncode == 1

    def test_a_400_ends_with_the_apis_message(self, env, work):
        with serve([fault(400, "messages.0.content: bad block")], env):
            proc = run_cli(["-p", "x", "--output-format", "json"], env, work)
        result = json.loads(proc.stdout)
        assert result["is_error"] and "bad block" in result["result"] and result["subtype"] == "error_during_execution"
        assert proc.returncode == 1

    def test_denied_writes_are_listed_in_permission_denials(self, env, work):
        target = str(work / "new.txt")
        script = [Reply([ToolUse("Write", {"file_path": target, "content": "x"}, id="w")]), Reply([Text("could not write")])]
        with serve(script, env):
            proc = run_cli(["-p", "write", "--output-format", "json"], env, work)
        result = json.loads(proc.stdout)
        assert result["permission_denials"] == [{"tool_name": "Write", "tool_use_id": "w", "tool_input": {"file_path": target, "content": "x"}}]
        assert not (work / "new.txt").exists() and proc.returncode == 0

    def test_allowed_tools_lets_a_write_through(self, env, work):
        target = str(work / "new.txt")
        script = [Reply([ToolUse("Write", {"file_path": target, "content": "x"})]), Reply([Text("wrote")])]
        with serve(script, env):
            proc = run_cli(["-p", "write", "--allowedTools", "Write", "--output-format", "json"], env, work)
        assert json.loads(proc.stdout)["permission_denials"] == [] and (work / "new.txt").read_text() == "x"


class TestBadInput:
    def test_a_bad_flag_is_one_line_and_exit_2(self, env, work):
        proc = run_cli(["-p", "x", "--output-format", "yaml"], env, work)
        assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1 and "output-format" in proc.stderr

    def test_no_key_and_no_demo_is_one_line_and_exit_2(self, env, work):
        env.pop("ANTHROPIC_API_KEY")
        proc = run_cli(["-p", "x"], env, work)
        assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1 and "ANTHROPIC_API_KEY" in proc.stderr

    def test_an_unreachable_endpoint_is_one_clear_error(self, env, work):
        import socket

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        env["ANTHROPIC_BASE_URL"] = f"http://127.0.0.1:{port}"
        proc = run_cli(["-p", "x"], env, work)
        assert proc.returncode == 1 and "cannot connect" in proc.stderr and "Traceback" not in proc.stderr

    def test_the_demo_runs_without_a_key(self, env, work):
        env.pop("ANTHROPIC_API_KEY")
        proc = run_cli(["-p", "what is here?", "--demo", "--output-format", "json"], env, work)
        result = json.loads(proc.stdout)
        assert result["subtype"] == "success" and "demo model" in result["result"]
        assert "Files" in result["result"] and result["total_cost_usd"] == 0  # no API: nothing to pay, not "unknown"
        # The demo's one non-read-only command is denied headless, and says so.
        assert [d["tool_name"] for d in result["permission_denials"]] == ["Bash"]


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def _descendants_gone(pids: list[int]) -> bool:
    """Every one of `pids` is gone: a SIGKILL'd process takes a moment to go on a busy machine, so this waits
    for that state (a safety net of 30 s, never reached when the kill was sent)."""
    deadline = time.monotonic() + 30
    while not all(_gone(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.02)
    return all(_gone(p) for p in pids)


# `python -m tui_agent` with a two-minute kill grace period: a run that ends well within it shows the
# processes died of SIGTERM (or of the second Ctrl+C's SIGKILL), not of waiting it out, however slow
# the machine is.
LONG_GRACE = [sys.executable, "-c", "import sys; from tui_agent.tools import processes; processes.KILL_GRACE_S = 120; "
              "from tui_agent.cli import main; sys.exit(main())"]


class TestSignals:
    @pytest.mark.parametrize("signum,code", [(signal.SIGTERM, 143), (signal.SIGINT, 130), (signal.SIGHUP, 143)])
    def test_a_signal_stops_every_tool_and_ends_the_output_valid(self, env, work, signum, code):
        script = [Reply([
            # Its own process group and a grandchild in its own session: both must die.
            ToolUse("Bash", {"command": "setsid sleep 301 & sleep 300; wait"}, id="b1"),
            ToolUse("Bash", {"command": "sleep 299"}, id="b2"),  # queued behind b1: never starts
        ])]
        with serve(script, env):
            proc = subprocess.Popen(
                [*LONG_GRACE, "-p", "sleep", "--output-format", "stream-json", "--allowedTools", "Bash"],
                env=env, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            )
            deadline = time.monotonic() + 300
            sleepers: list[int] = []
            tree: list[psutil.Process] = []
            while time.monotonic() < deadline and count_sleeping(tree) < 2:
                time.sleep(0.05)
                try:
                    tree = psutil.Process(proc.pid).children(recursive=True)
                except psutil.NoSuchProcess:
                    break
            sleepers = [p.pid for p in tree]
            assert count_sleeping(tree) == 2, "both shell commands started"
            t0 = time.monotonic()
            proc.send_signal(signum)
            out, err = proc.communicate(timeout=300)
            elapsed = time.monotonic() - t0
        assert proc.returncode == code, err
        assert elapsed < 60, "the tools were stopped, not waited for"
        assert _descendants_gone(sleepers), "no tool process survives"
        lines = [json.loads(l) for l in out.splitlines()]
        assert lines[-1]["type"] == "result" and lines[-1]["subtype"] == "error_during_execution" and lines[-1]["reason"] == "aborted"
        used = {b["id"] for l in lines if l["type"] == "assistant" for b in l["message"]["content"] if b["type"] == "tool_use"}
        answered = {b["tool_use_id"] for l in lines if l["type"] == "user" for b in l["message"]["content"] if b["type"] == "tool_result"}
        assert used == answered == {"b1", "b2"}
        transcript = next((Path(env["XDG_DATA_HOME"]) / "tui-agent" / "projects").glob("*/*.jsonl"))
        kinds = [json.loads(l)["type"] for l in transcript.read_text().splitlines()]
        # Claude Code's shape: a line per tool_use block, a line per result, the note, then our run end.
        assert kinds == ["user", "assistant", "assistant", "user", "user", "user", "tui-agent-run"]

    def test_a_second_sigint_during_cleanup_kills_what_is_left_at_once(self, env, work):
        # The command ignores SIGTERM, so the first abort has to wait out the grace period.
        script = [Reply([ToolUse("Bash", {"command": "trap '' TERM; sleep 300 & wait; sleep 300"}, id="stubborn")])]
        with serve(script, env):
            proc = subprocess.Popen(
                [*LONG_GRACE, "-p", "x", "--output-format", "stream-json", "--allowedTools", "Bash"],
                env=env, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            )
            deadline = time.monotonic() + 300
            tree: list[psutil.Process] = []
            while time.monotonic() < deadline and not count_sleeping(tree):
                time.sleep(0.05)
                tree = psutil.Process(proc.pid).children(recursive=True)
            proc.send_signal(signal.SIGINT)
            time.sleep(0.05)
            t0 = time.monotonic()
            proc.send_signal(signal.SIGINT)
            proc.communicate(timeout=300)
            elapsed = time.monotonic() - t0
        assert proc.returncode == 130
        assert elapsed < 60, "the second Ctrl+C does not wait for the (two-minute) grace period"
        assert _descendants_gone([p.pid for p in tree])


class TestSettingsFiles:
    def test_a_malformed_settings_file_is_named_and_ignored(self, env, work):
        settings = Path(env["HOME"]) / ".claude" / "settings.json"
        settings.parent.mkdir(parents=True)
        settings.write_text('{"permissions": {"allow": ["Write"]')  # cut short
        target = str(work / "new.txt")
        script = [Reply([ToolUse("Write", {"file_path": target, "content": "x"}, id="w")]), Reply([Text("done")])]
        with serve(script, env):
            proc = run_cli(["-p", "write", "--output-format", "json"], env, work)
        assert proc.returncode == 0 and json.loads(proc.stdout)["result"] == "done"
        assert str(settings) in proc.stderr and "Traceback" not in proc.stderr
        # Nothing of the broken file applied: the write still needed permission, and was denied.
        assert [d["tool_use_id"] for d in json.loads(proc.stdout)["permission_denials"]] == ["w"]
