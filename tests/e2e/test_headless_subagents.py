"""Subagents in `tui-agent -p --output-format stream-json`: a real process, the scripted model on a loopback port."""

from __future__ import annotations

import json

from tests.core.support import assert_history_valid
from tests.e2e.test_headless import env, run_cli, work  # noqa: F401  (fixtures)
from tui_agent.providers.scripted import Conversations, Reply, ScriptedModel, ScriptedServer, Text, ToolUse


def test_stream_json_lines_carry_the_parent_tool_use_id(env, work):  # noqa: F811
    routes = Conversations({
        "MAIN": [Reply([
            ToolUse("Agent", {"description": "Find docs", "prompt": "TASKA: find the docs"}, id="toolu_a"),
            ToolUse("Agent", {"description": "Count files", "prompt": "TASKB: count", "subagent_type": "Explore"}, id="toolu_b"),
        ]), Reply([Text("All found.")])],
        "TASKA": [Reply([ToolUse("Glob", {"pattern": "*.md"}, id="toolu_a1")]), Reply([Text("README.md")])],
        "TASKB": [Reply([Text("3 files")])],
    })
    with ScriptedServer(ScriptedModel(routes)) as server:
        env["ANTHROPIC_BASE_URL"] = server.url
        proc = run_cli(["-p", "MAIN look", "--output-format", "stream-json", "--verbose"], env, work)
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    top = [line for line in lines if line["type"] in ("assistant", "user") and line["parent_tool_use_id"] is None]
    assert [line["type"] for line in top] == ["assistant", "user", "assistant"]
    results = top[1]["message"]["content"]
    assert [r["tool_use_id"] for r in results] == ["toolu_a", "toolu_b"]
    assert results[0]["content"][0]["text"] == "README.md" and "<usage>subagent_tokens: " in results[0]["content"][1]["text"]
    of_a = [line for line in lines if line.get("parent_tool_use_id") == "toolu_a"]
    assert [line["type"] for line in of_a] == ["user", "assistant", "user", "assistant"]
    assert of_a[0]["message"]["content"][0]["text"] == "TASKA: find the docs"
    assert of_a[1]["message"]["content"][0]["id"] == "toolu_a1" and of_a[1]["subagent_type"] == "general-purpose"
    assert_history_valid([line["message"] for line in of_a])
    started = [line for line in lines if line.get("subtype") == "task_started"]
    assert {line["tool_use_id"] for line in started} == {"toolu_a", "toolu_b"}
    done = [line for line in lines if line.get("subtype") == "task_notification"]
    assert {(line["tool_use_id"], line["status"]) for line in done} == {("toolu_a", "completed"), ("toolu_b", "completed")}
    assert lines[-1]["type"] == "result" and lines[-1]["result"] == "All found."
