"""Subagents over the SDK: the real claude-agent-sdk driving the installed tui-agent against the scripted model.

Agents from `ClaudeAgentOptions.agents` (sent in `initialize`), the child's messages tagged with the Agent
call's tool_use id, the `task_*` system messages as the SDK's typed messages, a subagent's ask reaching
`can_use_tool` with its `agent_id`, `stop_task` for a subagent and for a background shell, and the same
task lines in `-p --output-format stream-json`. Shapes checked against Claude Code 2.1.197.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
from typing import Any

import psutil
from claude_agent_sdk import (
    AgentDefinition,
    AssistantMessage,
    ClaudeSDKClient,
    PermissionResultAllow,
    ResultMessage,
    SystemMessage,
    TaskNotificationMessage,
    TaskProgressMessage,
    TaskStartedMessage,
    ToolPermissionContext,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
    query,
)
from claude_agent_sdk._internal.message_parser import parse_message

from tests.core.support import assert_history_valid
from tests.e2e.sdk_support import result_text, tui_agent_cli
from tui_agent.providers.scripted import Conversations, Reply, Text, ToolUse

SLEEP = "sleep 27.1828"  # a command line no other process has


def sleepers() -> list[psutil.Process]:
    return [p for p in psutil.process_iter(["cmdline"]) if SLEEP in " ".join(p.info["cmdline"] or [])]


async def wait_for(predicate: Any, what: str, timeout: float = 60) -> None:
    """Wait for a state, never for a fixed time (the timeout is a safety net)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        assert asyncio.get_running_loop().time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.02)


def filled_later(steps: list[Reply]) -> Any:
    """A route whose replies are written once the run's folders exist (they name files in them)."""
    return lambda body, n: steps[n]


class TestAgentsFromOptions:
    async def test_the_programs_agent_runs_with_its_prompt_tools_and_model_and_its_messages_are_tagged(self, make_run):
        child: list[Reply] = []
        run = make_run(routes := Conversations({
            "MAIN": [Reply([ToolUse("Agent", {"description": "Read the readme", "prompt": "TASKA: read it", "subagent_type": "helper"}, id="toolu_a")]),
                     Reply([Text("All read.")])],
            "TASKA": filled_later(child),
        }))
        child += [Reply([ToolUse("Read", {"file_path": str(run.work / "README.md")}, id="toolu_a1")]), Reply([Text("It says hello.")])]
        # A project file of the same name: the program's definition wins, as Claude Code documents it.
        (run.work / ".claude" / "agents").mkdir(parents=True)
        (run.work / ".claude" / "agents" / "helper.md").write_text("---\nname: helper\ndescription: from a file\n---\nFILE PROMPT\n")
        agents = {"helper": AgentDefinition(description="Reads files for the caller", prompt="OPTIONS PROMPT", tools=["Read", "Glob"], model="haiku")}

        messages = [m async for m in query(prompt="MAIN read the readme", options=run.options(agents=agents))]

        init = messages[0]
        assert isinstance(init, SystemMessage) and init.subtype == "init" and "helper" in init.data["agents"]
        child_requests = routes.requests["TASKA"]
        system = json.dumps(child_requests[0]["system"])
        assert "OPTIONS PROMPT" in system and "FILE PROMPT" not in system
        assert sorted(t["name"] for t in child_requests[0]["tools"]) == ["Glob", "Read"]
        assert child_requests[0]["model"] == "claude-haiku-4-5"
        listing = next(t for t in routes.requests["MAIN"][0]["tools"] if t["name"] == "Agent")["description"]
        assert "- helper: Reads files for the caller (Tools: Read, Glob)" in listing

        started = [m for m in messages if isinstance(m, TaskStartedMessage)]
        assert len(started) == 1
        task = started[0]
        assert task.tool_use_id == "toolu_a" and task.task_type == "local_agent" and task.description == "Read the readme"
        assert task.data["subagent_type"] == "helper" and task.data["prompt"] == "TASKA: read it"
        progress = [m for m in messages if isinstance(m, TaskProgressMessage)]
        assert [(p.task_id, p.last_tool_name, p.usage["tool_uses"]) for p in progress] == [(task.task_id, "Read", 1)]
        done = [m for m in messages if isinstance(m, TaskNotificationMessage)]
        assert [(d.task_id, d.status, d.tool_use_id, d.output_file, d.summary) for d in done] == [
            (task.task_id, "completed", "toolu_a", "", "Read the readme")]
        assert done[0].usage is not None and done[0].usage["tool_uses"] == 1

        tagged = [m for m in messages if isinstance(m, (AssistantMessage, UserMessage)) and m.parent_tool_use_id == "toolu_a"]
        assert [type(m).__name__ for m in tagged] == ["UserMessage", "AssistantMessage", "UserMessage", "AssistantMessage"]
        assert tagged[0].content[0].text == "TASKA: read it"
        assert isinstance(tagged[1].content[0], ToolUseBlock) and tagged[1].content[0].id == "toolu_a1"
        assert isinstance(tagged[2].content[0], ToolResultBlock) and tagged[2].content[0].tool_use_id == "toolu_a1"
        # The order Claude Code writes them in: start, the child's traffic, the end, then the parent's result.
        order = [id(m) for m in messages]
        parent_result = next(m for m in messages if isinstance(m, UserMessage) and m.parent_tool_use_id is None)
        assert order.index(id(task)) < order.index(id(tagged[0])) < order.index(id(done[0])) < order.index(id(parent_result))
        result = messages[-1]
        assert isinstance(result, ResultMessage) and result.subtype == "success" and result.result == "All read."

    async def test_a_bad_definition_is_named_and_the_others_work(self, make_run):
        run = make_run(routes := Conversations({
            "MAIN": [Reply([ToolUse("Agent", {"description": "d", "prompt": "TASKB: go", "subagent_type": "good"}, id="toolu_b")]), Reply([Text("ok")])],
            "TASKB": [Reply([Text("good ran")])],
        }))
        agents = {
            "broken": AgentDefinition(description="", prompt="no description"),
            "good": AgentDefinition(description="Works", prompt="GOOD PROMPT", skills=["lint"]),
        }
        messages = [m async for m in query(prompt="MAIN go", options=run.options(agents=agents))]
        assert isinstance(messages[-1], ResultMessage) and messages[-1].result == "ok"
        assert "broken" not in messages[0].data["agents"] and "good" in messages[0].data["agents"]
        stderr = "\n".join(run.stderr)
        assert "agents.broken: description" in stderr and "good.skills" in stderr
        assert "GOOD PROMPT" in json.dumps(routes.requests["TASKB"][0]["system"])


class TestSubagentAsks:
    async def test_a_subagents_ask_reaches_can_use_tool_with_its_agent_id(self, make_run):
        child: list[Reply] = []
        run = make_run(Conversations({
            "MAIN": [Reply([ToolUse("Agent", {"description": "Write notes", "prompt": "TASKC: write"}, id="toolu_c")]), Reply([Text("Written.")])],
            "TASKC": filled_later(child),
        }))
        target = run.work / "notes.txt"
        child += [Reply([ToolUse("Write", {"file_path": str(target), "content": "hi\n"}, id="toolu_c1")]), Reply([Text("done")])]
        asks: list[tuple[str, dict[str, Any], ToolPermissionContext]] = []

        async def can_use_tool(name: str, tool_input: dict[str, Any], ctx: ToolPermissionContext) -> PermissionResultAllow:
            asks.append((name, tool_input, ctx))
            return PermissionResultAllow()

        async with ClaudeSDKClient(run.options(can_use_tool=can_use_tool)) as client:
            await client.query("MAIN write notes")
            messages = [m async for m in client.receive_response()]
        task = next(m for m in messages if isinstance(m, TaskStartedMessage))
        assert [(name, ctx.agent_id, ctx.tool_use_id, ctx.blocked_path) for name, _, ctx in asks] == [
            ("Write", task.task_id, "toolu_c1", str(target))]
        assert target.read_text() == "hi\n"
        assert isinstance(messages[-1], ResultMessage) and messages[-1].result == "Written."


class TestStopTask:
    async def test_stop_task_ends_a_running_subagent_and_the_turn_goes_on(self, make_run):
        run = make_run(routes := Conversations({
            "MAIN": [Reply([ToolUse("Agent", {"description": "Sleepy", "prompt": "TASKD: sleep"}, id="toolu_d")]), Reply([Text("after stop")])],
            "TASKD": [Reply([ToolUse("Bash", {"command": SLEEP, "description": "nap"}, id="toolu_d1")]), Reply([Text("woke")])],
        }))
        async with ClaudeSDKClient(run.options(allowed_tools=["Bash"])) as client:
            await client.query("MAIN sleep in a subagent")
            messages: list[Any] = []
            async for message in client.receive_response():
                messages.append(message)
                if isinstance(message, TaskProgressMessage) and message.last_tool_name == "Bash":
                    await wait_for(lambda: bool(sleepers()), "the subagent's shell to start")
                    await client.stop_task(message.task_id)
        task = next(m for m in messages if isinstance(m, TaskStartedMessage))
        ended = [m for m in messages if isinstance(m, TaskNotificationMessage)]
        assert [(m.task_id, m.status) for m in ended] == [(task.task_id, "stopped")]
        assert not sleepers(), "the stopped subagent's shell is gone"
        assert isinstance(messages[-1], ResultMessage) and messages[-1].subtype == "success" and messages[-1].result == "after stop"
        second = routes.requests["MAIN"][1]["messages"]
        stopped = next(b for b in second[-1]["content"] if b.get("tool_use_id") == "toolu_d")
        assert stopped["is_error"] and "Stopped by the program (stop_task)" in result_text(stopped)
        assert_history_valid(second)
        assert len(routes.requests["TASKD"]) == 1, "the subagent made no request after it was stopped"

    async def test_stop_task_kills_a_background_shell(self, make_run):
        run = make_run([
            Reply([ToolUse("Bash", {"command": SLEEP, "description": "long sleep", "run_in_background": True}, id="toolu_bg")]),
            Reply([Text("It runs in the background.")]),
        ])
        async with ClaudeSDKClient(run.options(allowed_tools=["Bash"])) as client:
            await client.query("start a long sleep in the background")
            first = [m async for m in client.receive_response()]
            shell = next(m for m in first if isinstance(m, TaskStartedMessage))
            assert shell.task_type == "local_bash" and shell.tool_use_id == "toolu_bg" and shell.description == "long sleep"
            assert sleepers(), "the background shell runs after the turn"
            await client.stop_task(shell.task_id)
            ended = None
            async for message in client.receive_messages():
                if isinstance(message, TaskNotificationMessage):
                    ended = message
                    break
            assert ended is not None and (ended.task_id, ended.status, ended.tool_use_id) == (shell.task_id, "stopped", "toolu_bg")
            assert not sleepers(), "stop_task killed the shell's process group"
            await client.stop_task(shell.task_id)  # a task that ended already: answered, as Claude Code does
        assert any("no running task" in line for line in run.stderr)


def test_the_same_task_messages_in_print_mode_stream_json(make_run):
    run = make_run(Conversations({
        "MAIN": [Reply([ToolUse("Agent", {"description": "Look", "prompt": "TASKE: look"}, id="toolu_e")]), Reply([Text("Looked.")])],
        "TASKE": [Reply([ToolUse("Glob", {"pattern": "*.md"}, id="toolu_e1")]), Reply([Text("README.md")])],
    }))
    proc = subprocess.run([tui_agent_cli(), "-p", "MAIN look", "--output-format", "stream-json", "--verbose"],
                          cwd=run.work, env={**_base_env(), **run.env}, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    # The subagent's lines and the task lines, each parsed by the SDK's own parser.
    parsed = [parse_message(line) for line in lines if line.get("parent_tool_use_id") or str(line.get("subtype", "")).startswith("task_")
              or line["type"] == "result"]
    kinds = [type(m).__name__ for m in parsed if isinstance(m, SystemMessage)]
    assert kinds == ["TaskStartedMessage", "TaskProgressMessage", "TaskUpdatedMessage", "TaskNotificationMessage"]
    started, progress, updated, done = (m for m in parsed if isinstance(m, SystemMessage))
    assert started.tool_use_id == done.tool_use_id == "toolu_e" and started.task_id == progress.task_id == updated.task_id == done.task_id
    assert progress.last_tool_name == "Glob" and updated.status == "completed" and (done.status, done.output_file) == ("completed", "")
    tagged = [m for m in parsed if isinstance(m, (AssistantMessage, UserMessage)) and m.parent_tool_use_id == "toolu_e"]
    assert [type(m).__name__ for m in tagged] == ["UserMessage", "AssistantMessage", "UserMessage", "AssistantMessage"]
    assert all(m.uuid for m in tagged)
    assert isinstance(parsed[-1], ResultMessage) and parsed[-1].result == "Looked."


def _base_env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "TMPDIR")}


async def test_a_background_shell_that_ends_by_itself_is_reported_completed(make_run):
    run = make_run([
        Reply([ToolUse("Bash", {"command": "sleep 0.3; echo done", "description": "short job", "run_in_background": True}, id="toolu_job")]),
        Reply([Text("Started the job.")]),
    ])
    async with ClaudeSDKClient(run.options(allowed_tools=["Bash"])) as client:
        await client.query("run the job in the background")
        first = [m async for m in client.receive_response()]
        shell = next(m for m in first if isinstance(m, TaskStartedMessage))
        ended = next(m for m in first if isinstance(m, TaskNotificationMessage)) if any(
            isinstance(m, TaskNotificationMessage) for m in first) else None
        if ended is None:
            async for message in client.receive_messages():
                if isinstance(message, TaskNotificationMessage):
                    ended = message
                    break
    assert ended is not None and (ended.task_id, ended.status, ended.summary) == (shell.task_id, "completed", "short job")


def test_bad_agents_and_stop_task_requests_are_named_and_the_session_goes_on(make_run):
    run = make_run([Reply([Text("still here")])])
    lines = [
        {"type": "control_request", "request_id": "r1", "request": {"subtype": "initialize", "agents": ["not", "an", "object"]}},
        {"type": "control_request", "request_id": "r2", "request": {"subtype": "stop_task"}},
        {"type": "control_request", "request_id": "r3", "request": {"subtype": "stop_task", "task_id": "a0000000000000000"}},
        {"type": "user", "message": {"role": "user", "content": "hello"}},
    ]
    proc = subprocess.run(
        [tui_agent_cli(), "--output-format", "stream-json", "--verbose", "--input-format", "stream-json"],
        input="".join(json.dumps(line) + "\n" for line in lines), capture_output=True, text=True, cwd=run.work,
        env={**_base_env(), **run.env}, timeout=60,
    )
    out = [json.loads(line) for line in proc.stdout.splitlines()]
    responses = {o["response"]["request_id"]: o["response"] for o in out if o["type"] == "control_response"}
    assert responses["r1"]["subtype"] == "success" and [a["name"] for a in responses["r1"]["response"]["agents"]] == ["general-purpose", "Explore", "Plan"]
    assert responses["r2"]["subtype"] == "error" and "task_id" in responses["r2"]["error"]
    assert responses["r3"]["subtype"] == "success"
    assert "initialize: agents: expected an object of name → definition, got list" in proc.stderr
    assert "stop_task: no running task 'a0000000000000000'" in proc.stderr
    assert out[-1]["type"] == "result" and out[-1]["result"] == "still here" and proc.returncode == 0
