"""`tui-agent -p` in a folder whose name is not UTF-8 (issue 26 B), then `-c -p`: no crash, every request the
model gets is JSON the API accepts, and a file whose name is not UTF-8 is found, read and listed."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from tests.warm_start import tui_agent_command
from tests.e2e.test_headless import env  # noqa: F401  (fixture)
from tui_agent.providers.scripted import Reply, ScriptedModel, ScriptedServer, Step, Text, ToolUse


def api_valid(body: dict[str, Any]) -> bool:
    """What the API needs of a body: UTF-8 JSON, so no lone surrogate anywhere."""
    try:
        json.dumps(body, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def run(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([*tui_agent_command(), *args], env=env, cwd=cwd, capture_output=True, timeout=300)


def results_of(body: dict[str, Any]) -> dict[str, str]:
    last = body["messages"][-1]["content"]
    return {b["tool_use_id"]: b["content"] for b in last if isinstance(b, dict) and b.get("type") == "tool_result"}


def test_a_session_in_a_folder_named_with_byte_0xff_runs_and_continues(env, tmp_path):  # noqa: F811
    work = Path(os.fsdecode(os.fsencode(tmp_path) + b"/w\xffrk"))
    work.mkdir()
    Path(os.fsdecode(os.fsencode(work) + b"/caf\xe9.txt")).write_text("inside the odd file\n")
    shown = os.fsencode(work).decode("utf-8", "backslashreplace")  # the folder as the model sees it: w\xffrk
    odd_file = shown + "/caf\\xe9.txt"
    script: list[Step] = [
        Reply([ToolUse("Glob", {"pattern": "*.txt"}, id="glob"), ToolUse("Read", {"file_path": odd_file}, id="read"),
               ToolUse("Bash", {"command": "ls"}, id="bash")]),
        Reply([Text("read it")]),
        Reply([Text("still here")]),
    ]
    with ScriptedServer(ScriptedModel(script)).start() as server:
        env["ANTHROPIC_BASE_URL"] = server.url
        first = run(["-p", "read the odd file", "--allowedTools", "Bash(ls)", "--output-format", "json"], env, work)
        again = run(["-c", "-p", "and now?", "--output-format", "stream-json", "--verbose"], env, work)
    assert first.returncode == 0, first.stderr.decode(errors="replace")
    assert json.loads(first.stdout)["result"] == "read it"
    assert again.returncode == 0, again.stderr.decode(errors="replace")
    lines = [json.loads(line) for line in again.stdout.decode("utf-8").splitlines()]
    assert lines[0]["subtype"] == "init" and lines[0]["cwd"] == str(work), "the folder's bytes survive the JSON line"
    assert lines[-1]["result"] == "still here"

    requests = server.model.requests
    assert len(requests) == 3 and all(api_valid(r) for r in requests)
    assert f"Working directory: {shown}" in requests[0]["system"][0]["text"]
    results = results_of(requests[1])
    assert results["glob"] == odd_file, "Glob shows the byte the way Read takes it back"
    assert "inside the odd file" in results["read"]
    assert results["bash"] == "caf\\xe9.txt"
    # -c carried the conversation on: the third request holds the first run's tool results whole.
    assert results_of(requests[2] | {"messages": requests[2]["messages"][:-2]}) == results
