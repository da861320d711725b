"""`tui-agent -p` with MCP servers, as a script runs it: a real process, the scripted model on loopback."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from tests.warm_start import tui_agent_command
from tests.mcp.conftest import stdio_entry, write_mcp_json
from tui_agent.providers.scripted import Reply, ScriptedModel, ScriptedServer, Text, ToolUse


@pytest.fixture
def env(tmp_path: Path, log_file: Path) -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "MCP_", "ENABLE_TOOL_SEARCH"))}
    e.update({
        "HOME": str(tmp_path / "home"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_CONFIG_HOME": str(tmp_path / "home" / ".config"),
        "ANTHROPIC_API_KEY": "sk-test",
        "MCP_TEST_LOG": str(log_file),
    })
    return e


def run_cli(args: list[str], env: dict[str, str], cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*tui_agent_command(), *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def serve(script, env) -> ScriptedServer:
    server = ScriptedServer(ScriptedModel(script)).start()
    env["ANTHROPIC_BASE_URL"] = server.url
    return server


def stream_lines(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


class TestProjectServers:
    def test_unapproved_project_servers_are_skipped_with_one_line_each(self, env, work):
        write_mcp_json(work, {"repo-tool": stdio_entry(), "other": stdio_entry()})
        with serve([Reply([Text("hello")])], env) as server:
            proc = run_cli(["-p", "hi", "--output-format", "stream-json", "--verbose"], env, work)
        assert proc.returncode == 0, proc.stderr
        skipped = [l for l in proc.stderr.splitlines() if "was not started" in l]
        assert len(skipped) == 2
        assert 'MCP server "repo-tool"' in skipped[0] and "enabledMcpjsonServers" in skipped[0]
        init = stream_lines(proc.stdout)[0]
        assert init["mcp_servers"] == [{"name": "repo-tool", "status": "needs-approval"}, {"name": "other", "status": "needs-approval"}]
        assert not any(t["name"].startswith("mcp__") for t in server.model.requests[0]["tools"])

    def test_allowed_project_servers_run_before_the_first_request_and_tools_need_a_rule(self, env, work):
        write_mcp_json(work, {"repo-tool": stdio_entry(), "off": stdio_entry()})
        (work / ".claude").mkdir()
        (work / ".claude" / "settings.local.json").write_text(json.dumps({"enabledMcpjsonServers": ["repo-tool"], "disabledMcpjsonServers": ["off"]}))
        script = [Reply([ToolUse("mcp__repo-tool__echo", {"text": "a"}), ToolUse("mcp__repo-tool__add", {"a": 1, "b": 2})]), Reply([Text("done")])]
        with serve(script, env) as server:
            proc = run_cli(["-p", "go", "--output-format", "stream-json", "--verbose", "--allowedTools", "mcp__repo-tool__echo"], env, work)
        assert proc.returncode == 0, proc.stderr
        lines = stream_lines(proc.stdout)
        assert lines[0]["mcp_servers"] == [{"name": "repo-tool", "status": "connected"}, {"name": "off", "status": "disabled"}]
        assert "mcp__repo-tool__echo" in lines[0]["tools"]
        assert "was not started" not in proc.stderr  # a disabled server is the user's choice, not a skip
        assert any(t["name"] == "mcp__repo-tool__add" for t in server.model.requests[0]["tools"])
        result = lines[-1]
        assert [d["tool_name"] for d in result["permission_denials"]] == ["mcp__repo-tool__add"]
        results = [l for l in lines if l["type"] == "user"][0]["message"]["content"]
        assert results[0]["content"] == '{"result":"echo: a"}' and results[1]["is_error"]


class TestLifecycle:
    def test_a_failed_server_is_reported_once_and_the_run_goes_on(self, env, work):
        config = json.dumps({"mcpServers": {"broken": stdio_entry("--exit"), "fine": stdio_entry()}})
        with serve([Reply([Text("ok")])], env):
            proc = run_cli(["-p", "hi", "--output-format", "stream-json", "--verbose", "--mcp-config", config], env, work)
        assert proc.returncode == 0, proc.stderr
        assert stream_lines(proc.stdout)[0]["mcp_servers"] == [{"name": "broken", "status": "failed"}, {"name": "fine", "status": "connected"}]
        reports = [l for l in proc.stderr.splitlines() if "MCP server 'broken' failed" in l]
        assert len(reports) == 1
        assert "missing configuration TESTSRV_TOKEN" in proc.stderr

    def test_a_bad_mcp_config_flag_is_a_clear_error(self, env, work):
        proc = run_cli(["-p", "hi", "--mcp-config", "nope.json"], env, work)
        assert proc.returncode == 2 and "--mcp-config nope.json: no such file" in proc.stderr

    def test_sigterm_during_an_mcp_call_leaves_no_server_process_or_child(self, env, work, log_file):
        config = json.dumps({"mcpServers": {"s": stdio_entry(fresh=True)}})
        script = [Reply([ToolUse("mcp__s__spawn_child", {})]), Reply([ToolUse("mcp__s__slow", {"seconds": 120})]), Reply([Text("never")])]
        with serve(script, env):
            proc = subprocess.Popen(
                [sys.executable, "-m", "tui_agent", "-p", "go", "--output-format", "stream-json", "--mcp-config", config, "--allowedTools", "mcp__s"],
                env=env, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            )
            deadline = time.monotonic() + 120
            while "slow started" not in log_file.read_text() and time.monotonic() < deadline:
                time.sleep(0.05)
            log = log_file.read_text()
            pids = [int(line.split()[-1]) for line in log.splitlines() if line.startswith(("server pid", "child"))]
            assert len(pids) == 2
            proc.send_signal(signal.SIGTERM)
            out, err = proc.communicate(timeout=60)
        assert proc.returncode == 143, err
        assert stream_lines(out)[-1]["type"] == "result"
        for pid in pids:
            assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE

    def test_sigint_while_waiting_for_a_server_to_start_ends_at_once_and_leaves_nothing(self, env, work, log_file):
        env["MCP_TIMEOUT"] = "600000"
        config = json.dumps({"mcpServers": {"hang": stdio_entry("--hang", fresh=True)}})
        with serve([Reply([Text("never")])], env) as server:
            proc = subprocess.Popen([sys.executable, "-m", "tui_agent", "-p", "go", "--mcp-config", config], env=env, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            deadline = time.monotonic() + 120
            while "server pid" not in log_file.read_text() and time.monotonic() < deadline:
                time.sleep(0.05)
            pid = int(log_file.read_text().split()[-1])
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=60)
            assert server.model.requests == []  # no request went out
        assert proc.returncode == 130, err
        assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE


class TestHostileRepository:
    """Issue 24 item 3: only the user's own files, a flag or the app's dialog approve a project server."""

    def test_a_committed_settings_file_does_not_approve_its_own_server(self, env, work, log_file):
        write_mcp_json(work, {"repo-tool": stdio_entry()})
        (work / ".claude").mkdir()
        (work / ".claude" / "settings.json").write_text(json.dumps({"enableAllProjectMcpServers": True, "enabledMcpjsonServers": ["repo-tool"]}))
        with serve([Reply([Text("hello")])], env) as server:
            proc = run_cli(["-p", "hi", "--output-format", "stream-json", "--verbose"], env, work)
        assert proc.returncode == 0, proc.stderr
        assert "server pid" not in log_file.read_text()  # the program never ran
        assert stream_lines(proc.stdout)[0]["mcp_servers"] == [{"name": "repo-tool", "status": "needs-approval"}]
        assert not any(t["name"].startswith("mcp__") for t in server.model.requests[0]["tools"])
        assert "enableAllProjectMcpServers" in proc.stderr  # says why the committed setting did not count

    def test_the_users_own_settings_still_approve_it(self, env, work, log_file):
        write_mcp_json(work, {"repo-tool": stdio_entry()})
        (Path(env["HOME"]) / ".claude").mkdir(parents=True)
        (Path(env["HOME"]) / ".claude" / "settings.json").write_text(json.dumps({"enableAllProjectMcpServers": True}))
        with serve([Reply([Text("hello")])], env):
            proc = run_cli(["-p", "hi", "--output-format", "stream-json", "--verbose"], env, work)
        assert proc.returncode == 0, proc.stderr
        assert stream_lines(proc.stdout)[0]["mcp_servers"] == [{"name": "repo-tool", "status": "connected"}]

    def test_setting_sources_without_project_reads_no_mcp_json(self, env, work, log_file):
        write_mcp_json(work, {"repo-tool": stdio_entry()})
        (work / ".claude").mkdir()
        (work / ".claude" / "settings.local.json").write_text(json.dumps({"enabledMcpjsonServers": ["repo-tool"]}))
        with serve([Reply([Text("hello")])], env):
            proc = run_cli(["-p", "hi", "--output-format", "stream-json", "--verbose", "--setting-sources", "user,local"], env, work)
        assert proc.returncode == 0, proc.stderr
        assert stream_lines(proc.stdout)[0]["mcp_servers"] == []
        assert "server pid" not in log_file.read_text()
