"""`ClaudeSDKClient` of the real claude-agent-sdk driving tui-agent: a session of several prompts,
interrupt, live permission-mode and model changes; and raw protocol lines, bad ones included."""

from __future__ import annotations

import asyncio
import json
import subprocess
from typing import Any

import psutil
import pytest
from claude_agent_sdk import AssistantMessage, ClaudeSDKClient, ResultMessage, ToolUseBlock

from tests.core.support import assert_history_valid
from tests.e2e.sdk_support import result_text, tui_agent_cli
from tui_agent.providers.scripted import Reply, Text, ToolUse, fault

SLEEP = "sleep 31.4159"  # a command line no other process has


def sleepers() -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        if SLEEP in " ".join(proc.info["cmdline"] or []):
            found.append(proc)
    return found


async def wait_for(predicate: Any, what: str, timeout: float = 60) -> None:
    """Wait for a state, never for a fixed time (the timeout is a safety net)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        assert asyncio.get_running_loop().time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.02)


async def until_result(client: ClaudeSDKClient) -> list[Any]:
    return [m async for m in client.receive_response()]


class TestSession:
    async def test_interrupt_while_a_shell_sleeps_ends_the_turn_and_the_next_prompt_continues(self, make_run):
        run = make_run([
            Reply([Text("Sleeping."), ToolUse("Bash", {"command": SLEEP}, id="sh")]),
            Reply([Text("Back again, after the interruption.")]),
        ])
        async with ClaudeSDKClient(run.options(allowed_tools=["Bash"])) as client:
            await client.query("sleep for a while")
            first: list[Any] = []
            async for message in client.receive_messages():
                first.append(message)
                if isinstance(message, AssistantMessage) and any(isinstance(b, ToolUseBlock) for b in message.content):
                    await wait_for(lambda: bool(sleepers()), "the shell to start")
                    await client.interrupt()
                if isinstance(message, ResultMessage):
                    break
            result = first[-1]
            assert result.subtype == "error_during_execution" and result.is_error
            assert not sleepers(), "the interrupted shell is gone when the turn has its result"
            assert len(run.requests) == 1

            await client.query("are you there?")
            second = await until_result(client)
            assert second[-1].subtype == "success" and second[-1].result == "Back again, after the interruption."
            assert second[-1].session_id == result.session_id

        history = run.requests[1]["messages"]
        assert [m["role"] for m in history] == ["user", "assistant", "user"]
        interrupted = next(b for b in history[2]["content"] if b.get("type") == "tool_result")
        assert interrupted["tool_use_id"] == "sh" and interrupted["is_error"] and "Interrupted" in result_text(interrupted)
        assert history[2]["content"][-1]["text"] == "are you there?"
        assert_history_valid(history)

    async def test_interrupt_when_idle_is_answered_and_changes_nothing(self, make_run):
        run = make_run([Reply([Text("still fine")])])
        async with ClaudeSDKClient(run.options()) as client:
            await client.interrupt()
            await client.query("hello")
            messages = await until_result(client)
        assert messages[-1].subtype == "success" and messages[-1].result == "still fine"

    async def test_set_permission_mode_and_set_model_apply_to_the_next_turn(self, make_run):
        run = make_run([])
        target = run.work / "edited.txt"
        run.model._script = [
            Reply([ToolUse("Write", {"file_path": str(target), "content": "accepted\n"}, id="w")]),
            Reply([Text("written")]),
        ]
        async with ClaudeSDKClient(run.options()) as client:
            await client.set_permission_mode("acceptEdits")
            await client.set_model("claude-opus-4-1")
            await client.query("write it")
            messages = await until_result(client)
            with pytest.raises(Exception, match="Invalid permission mode"):
                await client.set_permission_mode("yolo")  # type: ignore[arg-type]
        assert messages[-1].subtype == "success"
        assert target.read_text() == "accepted\n", "acceptEdits lets the write run without asking"
        assert messages[0].data["permissionMode"] == "acceptEdits"
        assert [r["model"] for r in run.requests] == ["claude-opus-4-1", "claude-opus-4-1"]

    async def test_unsupported_control_requests_get_an_error_not_silence(self, make_run):
        run = make_run([Reply([Text("ok")])])
        async with ClaudeSDKClient(run.options()) as client:
            with pytest.raises(Exception, match="Unsupported control request subtype: no_such_request"):
                await client._query._send_control_request({"subtype": "no_such_request"})  # type: ignore[union-attr]
            await client.query("still there?")
            messages = await until_result(client)
        assert messages[-1].result == "ok"


    async def test_get_context_usage_answers_with_the_context_breakdown(self, make_run):
        run = make_run([Reply([Text("ok")])])
        async with ClaudeSDKClient(run.options()) as client:
            await client.query("measure me")
            await until_result(client)
            usage = await client.get_context_usage()
        names = [c["name"] for c in usage["categories"]]
        assert names[0] == "System prompt" and "Messages" in names and names[-2:] == ["Free space", "Autocompact buffer"]
        assert usage["rawMaxTokens"] == 200_000 and usage["isAutoCompactEnabled"] is True
        assert 0 < usage["totalTokens"] < usage["maxTokens"] == usage["autoCompactThreshold"]


class TestRawLines:
    """The protocol without the SDK: what a program that gets a line wrong sees."""

    def test_bad_lines_are_named_and_the_session_goes_on(self, make_run):
        run = make_run([Reply([Text("answered")])])
        lines = [
            "this is not json",
            json.dumps([1, 2]),
            json.dumps({"type": "shout", "request_id": "r0"}),
            json.dumps({"type": "control_request", "request_id": "r1", "request": {"subtype": "set_permission_mode"}}),
            json.dumps({"type": "control_request", "request_id": "r2", "request": {"subtype": "initialize", "hooks": None}}),
            json.dumps({"type": "user", "message": {"role": "user"}}),
            json.dumps({"type": "control_response", "response": {"subtype": "success", "request_id": "nobody"}}),
            json.dumps({"type": "user", "message": {"role": "user", "content": "hello"}, "parent_tool_use_id": None, "session_id": ""}),
        ]
        proc = subprocess.run(
            [tui_agent_cli(), "--output-format", "stream-json", "--verbose", "--input-format", "stream-json"],
            input="\n".join(lines) + "\n", capture_output=True, text=True, cwd=run.work, env={**_base_env(), **run.env}, timeout=60,
        )
        out = [json.loads(line) for line in proc.stdout.splitlines()]
        responses = {o["response"]["request_id"]: o["response"] for o in out if o["type"] == "control_response"}
        assert responses["r0"]["subtype"] == "error" and "unknown message type 'shout'" in responses["r0"]["error"]
        assert responses["r1"]["subtype"] == "error" and "mode" in responses["r1"]["error"]
        assert responses["r2"]["subtype"] == "success"
        err = proc.stderr
        for number, words in [(1, "not JSON"), (2, "expected a JSON object"), (3, "unknown message type"),
                              (4, "invalid set_permission_mode request"), (6, "invalid user message"), (7, "nothing waits for")]:
            assert f"stdin line {number}: {words}" in err or (f"stdin line {number}:" in err and words in err), (number, err)
        result = out[-1]
        assert result["type"] == "result" and result["subtype"] == "success" and result["result"] == "answered"
        assert proc.returncode == 0

    def test_input_format_stream_json_needs_stream_json_output(self, make_run):
        run = make_run([])
        proc = subprocess.run([tui_agent_cli(), "--input-format", "stream-json"], input="", capture_output=True, text=True,
                              cwd=run.work, env={**_base_env(), **run.env}, timeout=60)
        assert proc.returncode == 2 and "--input-format stream-json needs --output-format stream-json" in proc.stderr

    def test_the_last_result_being_an_error_exits_1(self, make_run):
        run = make_run([fault(400, "the request is malformed")])
        line = json.dumps({"type": "user", "message": {"role": "user", "content": "hi"}})
        proc = subprocess.run([tui_agent_cli(), "--output-format", "stream-json", "--input-format", "stream-json"],
                              input=line + "\n", capture_output=True, text=True, cwd=run.work, env={**_base_env(), **run.env}, timeout=60)
        result = json.loads(proc.stdout.splitlines()[-1])
        assert result["type"] == "result" and result["is_error"] and "the request is malformed" in result["errors"][0]
        assert proc.returncode == 1


def _base_env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}


class TestBadSettings:
    async def test_a_malformed_settings_file_is_reported_and_the_session_runs(self, make_run):
        run = make_run([Reply([Text("still here")])])
        (run.work / ".claude").mkdir()
        (run.work / ".claude" / "settings.json").write_text("{ not json")
        async with ClaudeSDKClient(run.options()) as client:
            await client.query("hi")
            messages = await until_result(client)
        assert messages[-1].result == "still here"
        assert any("settings.json" in line for line in run.stderr), run.stderr


class TestCompactPrompt:
    async def test_compact_as_a_prompt_compacts_and_the_next_prompt_carries_on_from_the_summary(self, make_run):
        from claude_agent_sdk import SystemMessage

        from tests.core.context.scripts import conversation, custom_instructions
        from tui_agent.core.context.summary import CONTINUED

        handler, seen = conversation([Reply([Text("first answer")]), Reply([Text("after compaction")])])
        run = make_run(handler)
        async with ClaudeSDKClient(run.options()) as client:
            await client.query("hello")
            first = await until_result(client)
            await client.query("/compact keep the greeting")
            compacted = await until_result(client)
            await client.query("and now?")
            after = await until_result(client)
        assert "compact" in first[0].data["slash_commands"]
        boundary = next(m for m in compacted if isinstance(m, SystemMessage) and m.subtype == "compact_boundary")
        assert boundary.data["compact_metadata"]["trigger"] == "manual" and boundary.data["compact_metadata"]["pre_tokens"] > 0
        result = compacted[-1]
        assert isinstance(result, ResultMessage) and result.subtype == "success" and not result.is_error
        assert result.session_id == first[-1].session_id
        assert custom_instructions(seen["summaries"][0]) == "keep the greeting"
        assert after[-1].result == "after compaction"
        texts = json.dumps(seen["turns"][-1])
        assert CONTINUED in texts and "first answer" not in texts

    async def test_compact_as_the_first_prompt_is_an_error_result_and_the_session_goes_on(self, make_run):
        run = make_run([Reply([Text("still here")])])
        async with ClaudeSDKClient(run.options()) as client:
            await client.query("/compact")
            refused = await until_result(client)
            await client.query("hello")
            after = await until_result(client)
        assert refused[-1].is_error and refused[-1].result == "Not enough messages to compact."
        assert after[-1].result == "still here"
