"""Warm starts (tests/warm_start) are fresh starts: what the imports read, what a run prints and does, its
exit code and signals, and the fallbacks to a fresh start."""

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

from tests.mcp.conftest import SERVER
from tests.warm_start import TUI_AGENT, fresh_command, python_script_command, tui_agent_command, zygote_report
from tui_agent.providers.scripted import Reply, ScriptedModel, ScriptedServer, Text, ToolUse

PROGRAMS = [
    TUI_AGENT,
    ("script", str(SERVER.resolve())),
    ("script", str((Path(__file__).parent / "mcp" / "resource_server.py").resolve())),
    ("script", str((Path(__file__).parent / "core" / "progress_mcp_server.py").resolve())),
]
PROBE = "echo mark=$WARM_MARK; pwd; umask; ps -o args= -p $PPID; echo $PPID > pid; cat -"
"""What the run's Bash tool shows: a variable of the start, its folder and umask, the process running it."""


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "HOME": str(tmp_path / "home"), "ANTHROPIC_API_KEY": "sk-test", "WARM_MARK": tmp_path.name}


def bash_run(command: str) -> ScriptedModel:
    return ScriptedModel([Reply([ToolUse("Bash", {"command": command}, id="toolu_probe")]), Reply([Text("done")])])


def start(argv: list[str], env: dict[str, str], cwd: Path, model: ScriptedModel, server: ScriptedServer) -> subprocess.Popen[str]:
    return subprocess.Popen([*argv, "-p", "go", "--allowedTools", "Bash", "--output-format", "json"], cwd=cwd, text=True,
                            env={**env, "ANTHROPIC_BASE_URL": server.url}, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=lambda: os.umask(0o027))


def run(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[dict[str, Any], str]:
    model = bash_run(PROBE)
    with ScriptedServer(model) as server:
        proc = start(argv, env, cwd, model, server)
        out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    result = json.loads(out)
    tool_result = model.requests[1]["messages"][-1]["content"][0]["content"]
    return result, tool_result if isinstance(tool_result, str) else tool_result[0]["text"]


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: Path(p[1]).name)
def test_what_the_imports_read_is_compared_at_each_start_and_nothing_else(program: tuple[str, str]) -> None:
    report = zygote_report(program)
    assert report["files"] == [] and report["whole_environment"] == [], report
    assert report["pure"], report
    assert not [f for f in report["failed"] if "ModuleNotFoundError" not in f], report["failed"]


def test_a_warm_run_prints_and_does_what_a_fresh_run_does(env: dict[str, str], tmp_path: Path) -> None:
    runs = {}
    for name, argv in (("warm", tui_agent_command()), ("fresh", fresh_command(TUI_AGENT))):
        work = tmp_path / name
        work.mkdir()
        runs[name] = (work, *run(argv, env, work))
    for name, (work, result, shown) in runs.items():
        lines = shown.splitlines()
        assert lines[:3] == [f"mark={tmp_path.name}", str(work), "0027"], shown
        assert ("zygote.py" in lines[3]) == (name == "warm"), lines[3]  # the warm one was a zygote's child
    volatile = {"session_id", "duration_ms", "duration_api_ms", "uuid", "total_cost_usd", "usage", "modelUsage"}
    warm, fresh = ({k: v for k, v in r.items() if k not in volatile} for _, r, _ in runs.values())
    assert warm == fresh


@pytest.mark.parametrize("variable", ["ANTHROPIC_LOG", "PYTHONHASHSEED"])
def test_a_start_whose_environment_differs_on_what_the_imports_read_runs_fresh(variable: str, env: dict[str, str], tmp_path: Path) -> None:
    _, shown = run(tui_agent_command(), {**env, variable: "0" if variable == "PYTHONHASHSEED" else "info"}, tmp_path)
    assert "-m tui_agent" in shown.splitlines()[3] and "zygote.py" not in shown


def running_child(env: dict[str, str], tmp_path: Path, server: ScriptedServer, model: ScriptedModel) -> tuple[subprocess.Popen[str], psutil.Process]:
    """A warm run whose Bash tool waits on its stdin (never closed): the launcher and the zygote's child."""
    launcher = start(tui_agent_command(), env, tmp_path, model, server)
    pid_file = tmp_path / "pid"
    deadline = time.monotonic() + 60
    while not (pid_file.exists() and pid_file.read_text().strip()):
        assert launcher.poll() is None and time.monotonic() < deadline, launcher.stderr.read() if launcher.stderr else ""
        time.sleep(0.02)
    child = psutil.Process(int(pid_file.read_text()))
    assert "zygote.py" in " ".join(child.cmdline())
    return launcher, child


def test_a_signal_to_the_launcher_reaches_the_program_and_its_exit_code_comes_back(env: dict[str, str], tmp_path: Path) -> None:
    model = bash_run("echo $PPID > pid; sleep 60")
    with ScriptedServer(model) as server:
        launcher, child = running_child(env, tmp_path, server, model)
        launcher.send_signal(signal.SIGINT)
        launcher.communicate(timeout=60)
    assert launcher.returncode == 130  # what tui-agent -p exits with when interrupted
    assert not child.is_running() or child.status() == psutil.STATUS_ZOMBIE


def test_killing_the_launcher_kills_the_program(env: dict[str, str], tmp_path: Path) -> None:
    model = bash_run("echo $PPID > pid; sleep 60")
    with ScriptedServer(model) as server:
        launcher, child = running_child(env, tmp_path, server, model)
        launcher.kill()
        launcher.communicate(timeout=60)
        child.wait(timeout=60)  # gone, as a fresh process killed would be


def test_a_script_runs_warm_with_its_arguments_and_exit_code(tmp_path: Path) -> None:
    script = tmp_path / "prog.py"
    script.write_text("import os, sys\nprint(sys.argv[1:], os.getcwd(), __name__, __file__)\nsys.exit(int(sys.argv[1]))\n")
    outs = []
    for argv in (python_script_command(script), [sys.executable, str(script)]):
        proc = subprocess.run([*argv, "7", "x"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
        outs.append((proc.returncode, proc.stdout, proc.stderr))
    assert outs[0] == outs[1] == (7, f"['7', 'x'] {tmp_path} __main__ {script}\n", "")


def test_the_probe_of_a_new_program_runs_without_the_asking_tests_variables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Finding a program's imports runs it once: not for the test that asked first (an MCP test server probed in a
    test's environment wrote "server pid" into that test's log, and a test that no server may start failed)."""
    script = tmp_path / "prog.py"
    script.write_text("import os\nlog = os.environ.get('WARM_TEST_LOG')\nif log:\n    open(log, 'a').write('ran\\n')\n")
    log = tmp_path / "log"
    monkeypatch.setenv("WARM_TEST_LOG", str(log))
    command = python_script_command(script)  # the zygote's first start: the probe runs here
    assert not log.exists()
    subprocess.run(command, cwd=tmp_path, capture_output=True, timeout=60, check=True)
    assert log.read_text() == "ran\n"  # the variable does reach the test's own start


def test_a_connection_with_nothing_or_half_a_request_leaves_the_zygote_serving(tmp_path: Path) -> None:
    import socket

    script = tmp_path / "prog.py"
    script.write_text("import os\nprint(open(f'/proc/{os.getppid()}/cmdline').read().replace(chr(0), ' '))\n")
    (launcher,) = python_script_command(script)
    for send in (b"", b"\x00\x00"):  # nothing at all, then half a request without the descriptors
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.connect(str(Path(launcher).with_name("socket")))
            conn.sendall(send)
    proc = subprocess.run([launcher], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "zygote.py" in proc.stdout, proc.stdout + proc.stderr  # served warm, by the zygote
