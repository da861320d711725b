"""TodoWrite in `-p --output-format stream-json` as Claude Code emits it: the assistant message with the
tool_use, then the user message with its tool_result and `tool_use_result: {oldTodos, newTodos}`
(sdk-tools.d.ts `TodoWriteOutput`). A real process, the scripted model on a loopback port, and the real
claude-agent-sdk reading the same lines."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from claude_agent_sdk import UserMessage, query

from tests.e2e.test_headless import run_cli, serve
from tui_agent.providers.scripted import Reply, Text, ToolUse

FIRST = [
    {"content": "Read the code", "status": "in_progress", "activeForm": "Reading the code"},
    {"content": "Run the tests", "status": "pending", "activeForm": "Running the tests"},
]
SECOND = [
    {"content": "Read the code", "status": "completed", "activeForm": "Reading the code"},
    {"content": "Run the tests", "status": "in_progress", "activeForm": "Running the tests"},
]


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    e.update({"HOME": str(tmp_path / "home"), "XDG_DATA_HOME": str(tmp_path / "data"),
              "XDG_CONFIG_HOME": str(tmp_path / "home" / ".config"), "ANTHROPIC_API_KEY": "sk-test"})
    return e


@pytest.fixture
def work(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "README.md").write_text("# Demo project\n")
    return folder


def stream_lines(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines()]


class TestTodoWriteInStreamJson:
    def test_each_result_line_carries_the_list_before_and_after(self, env, work):
        script = [
            Reply([ToolUse("TodoWrite", {"todos": FIRST}, id="t1")]),
            Reply([ToolUse("TodoWrite", {"todos": SECOND}, id="t2")]),
            Reply([Text("Working through the list.")]),
        ]
        with serve(script, env):
            proc = run_cli(["-p", "plan it", "--output-format", "stream-json", "--verbose", "--tools", "TodoWrite"], env, work)
        assert proc.returncode == 0, proc.stderr
        lines = stream_lines(proc.stdout)
        assert [line["type"] for line in lines] == ["system", "assistant", "user", "assistant", "user", "assistant", "result"]
        use = lines[1]["message"]["content"][0]
        assert use["type"] == "tool_use" and use["name"] == "TodoWrite" and use["input"] == {"todos": FIRST}
        first, second = lines[2], lines[4]
        assert first["message"]["content"][0]["tool_use_id"] == "t1"
        assert first["message"]["content"][0]["content"].startswith("Todos have been modified successfully.")
        assert first["tool_use_result"] == {"oldTodos": [], "newTodos": FIRST}
        assert second["tool_use_result"] == {"oldTodos": FIRST, "newTodos": SECOND}

    def test_an_invalid_list_gets_its_error_and_no_tool_use_result(self, env, work):
        """A malformed input from the model (no activeForm): the model is told, the line has no list, the run goes on."""
        script = [
            Reply([ToolUse("TodoWrite", {"todos": [{"content": "Read", "status": "pending"}]}, id="bad")]),
            Reply([Text("Fixed nothing.")]),
        ]
        with serve(script, env) as server:
            proc = run_cli(["-p", "plan it", "--output-format", "stream-json", "--verbose", "--tools", "TodoWrite"], env, work)
        assert proc.returncode == 0, proc.stderr
        user = next(line for line in stream_lines(proc.stdout) if line["type"] == "user")
        assert "tool_use_result" not in user
        result = user["message"]["content"][0]
        assert result["is_error"] and "activeForm" in result["content"]
        assert len(server.model.requests) == 2


class TestTodoWriteThroughTheSdk:
    async def test_the_sdk_reads_old_and_new_todos(self, make_run):
        run = make_run([
            Reply([ToolUse("TodoWrite", {"todos": FIRST}, id="t1")]),
            Reply([Text("Listed.")]),
        ])
        messages = [m async for m in query(prompt="plan it", options=run.options(allowed_tools=["TodoWrite"]))]
        users = [m for m in messages if isinstance(m, UserMessage)]
        assert [m.tool_use_result for m in users] == [{"oldTodos": [], "newTodos": FIRST}]
