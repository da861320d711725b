"""Every hook event through the real claude-agent-sdk's `HookMatcher` callbacks, driving the installed
`tui-agent` (core/hook_events.py: one dispatcher for program callbacks and settings command hooks)."""

from __future__ import annotations

import json
from typing import Any

from claude_agent_sdk import (
    ClaudeSDKClient,
    HookMatcher,
    PermissionResultAllow,
    ResultMessage,
    ToolPermissionContext,
    types as sdk_types,
)

from tests.core.context.scripts import is_summary_request, summary_reply
from tests.e2e.sdk_support import result_text
from tui_agent.core.hook_events import HOOK_EVENTS
from tui_agent.providers.scripted import Conversations, Reply, Text, ToolUse

# The SDK's TypedDict for each event it types (SessionStart / SessionEnd it leaves untyped).
SDK_INPUTS = {
    "PreToolUse": sdk_types.PreToolUseHookInput,
    "PostToolUse": sdk_types.PostToolUseHookInput,
    "PostToolUseFailure": sdk_types.PostToolUseFailureHookInput,
    "UserPromptSubmit": sdk_types.UserPromptSubmitHookInput,
    "Stop": sdk_types.StopHookInput,
    "SubagentStart": sdk_types.SubagentStartHookInput,
    "SubagentStop": sdk_types.SubagentStopHookInput,
    "PreCompact": sdk_types.PreCompactHookInput,
    "Notification": sdk_types.NotificationHookInput,
    "PermissionRequest": sdk_types.PermissionRequestHookInput,
}


class Recorder:
    """One callback per event that records what it was given; `answers[event]` is what it says back."""

    def __init__(self) -> None:
        self.seen: list[dict[str, Any]] = []
        self.answers: dict[str, dict[str, Any]] = {}

    def hooks(self, events: tuple[str, ...] = HOOK_EVENTS) -> dict[str, list[HookMatcher]]:
        def callback(event: str) -> Any:
            async def hook(hook_input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
                self.seen.append({**hook_input, "__tool_use_id": tool_use_id})
                return self.answers.get(event, {})

            return hook

        return {e: [HookMatcher(matcher=None, hooks=[callback(e)])] for e in events}

    def of(self, event: str) -> list[dict[str, Any]]:
        return [h for h in self.seen if h["hook_event_name"] == event]


async def responses(client: ClaudeSDKClient, prompt: str) -> list[Any]:
    await client.query(prompt)
    return [m async for m in client.receive_response()]


class TestEveryEvent:
    async def test_every_event_reaches_an_sdk_callback_with_the_sdks_input_fields(self, make_run):
        """One session: a Write the program allows with its own input (asked through can_use_tool, so
        Notification and PermissionRequest fire first), a failing Bash, a subagent, then `/compact`."""
        run = make_run([])
        target = run.work / "w.txt"
        routes = Conversations({
            "MAIN": [
                Reply([ToolUse("Write", {"file_path": str(target), "content": "the model's\n"}, id="w"),
                       ToolUse("Bash", {"command": "exit 3"}, id="b"),
                       ToolUse("Agent", {"description": "Look", "prompt": "TASK: please"}, id="ag")]),
                Reply([Text("all done")]),
            ],
            "TASK": [Reply([Text("sub report")])],
        })
        run.model._script = lambda body, index: summary_reply() if is_summary_request(body) else routes(body, index)
        recorder = Recorder()

        async def can_use_tool(name: str, tool_input: dict[str, Any], ctx: ToolPermissionContext) -> Any:
            if name == "Write":
                return PermissionResultAllow(updated_input={**tool_input, "content": "the program's\n"})
            return PermissionResultAllow()

        async with ClaudeSDKClient(run.options(hooks=recorder.hooks(), can_use_tool=can_use_tool)) as client:
            first = await responses(client, "MAIN: go")
            compacted = await responses(client, "/compact")
        assert isinstance(first[-1], ResultMessage) and first[-1].result == "all done"
        assert isinstance(compacted[-1], ResultMessage) and not compacted[-1].is_error

        assert {e["hook_event_name"] for e in recorder.seen} == set(HOOK_EVENTS) - {"SessionEnd"}, (
            "SessionEnd fires as the session closes, after the SDK closed stdin: no callback can answer then")
        for event in recorder.seen:
            name = event["hook_event_name"]
            required = SDK_INPUTS[name].__required_keys__ if name in SDK_INPUTS else {"session_id", "transcript_path", "cwd"}
            assert required <= event.keys(), (name, required - event.keys())
            assert event["session_id"] == first[-1].session_id and event["cwd"] == str(run.work) and event["permission_mode"] == "default"

        session_start = recorder.of("SessionStart")
        assert [s["source"] for s in session_start] == ["startup", "compact"]
        assert recorder.of("UserPromptSubmit")[0]["prompt"] == "MAIN: go"
        pre = {p["tool_use_id"]: p for p in recorder.of("PreToolUse")}
        assert pre["w"]["tool_input"]["content"] == "the model's\n" and pre["w"]["__tool_use_id"] == "w"
        notification, request = recorder.of("Notification")[0], recorder.of("PermissionRequest")[0]
        assert notification["notification_type"] == "permission_prompt" and "Write" in notification["message"]
        assert request["tool_name"] == "Write" and request["tool_input"]["file_path"] == str(target) and request["__tool_use_id"] == "w"
        post = {p["tool_use_id"]: p for p in recorder.of("PostToolUse")}
        assert post["w"]["tool_input"]["content"] == "the program's\n", "PostToolUse sees the input that ran"
        assert target.read_text() == "the program's\n"
        [failure] = recorder.of("PostToolUseFailure")
        assert (failure["tool_use_id"], failure["tool_input"]) == ("b", {"command": "exit 3"}) and failure["error"]
        start, stop = recorder.of("SubagentStart")[0], recorder.of("SubagentStop")[0]
        assert start["agent_id"] == stop["agent_id"] and start["agent_type"] == "general-purpose"
        assert stop["last_assistant_message"] == "sub report" and stop["stop_hook_active"] is False
        assert "agent_id" not in post["ag"], "the Agent call itself is the main thread's"
        [stop_main] = recorder.of("Stop")
        assert stop_main["stop_hook_active"] is False and stop_main["last_assistant_message"] == "all done"
        [pre_compact] = recorder.of("PreCompact")
        assert pre_compact["trigger"] == "manual" and pre_compact["custom_instructions"] is None


class TestOutputs:
    async def test_continue_false_stops_the_run_with_the_stop_reason(self, make_run):
        """As Claude Code 2.1.197 answers it: the call's result stands, no further request, no Stop hook, a
        success result with terminal_reason "hook_stopped"; the reason is shown (stderr)."""
        run = make_run([])
        run.model._script = [Reply([ToolUse("Read", {"file_path": str(run.work / "README.md")}, id="rd")]), Reply([Text("next prompt answered")])]
        recorder = Recorder()
        recorder.answers["PostToolUse"] = {"continue_": False, "stopReason": "The program has seen enough."}
        async with ClaudeSDKClient(run.options(hooks=recorder.hooks(("PostToolUse", "Stop")))) as client:
            messages = await responses(client, "read")
            result = messages[-1]
            assert isinstance(result, ResultMessage) and result.subtype == "success" and not result.is_error
            assert result.terminal_reason == "hook_stopped" and len(run.requests) == 1
            assert not recorder.of("Stop")
            assert any("The program has seen enough." in line for line in run.stderr)
            again = await responses(client, "and now?")
            assert again[-1].result == "next prompt answered", "the session goes on"

    async def test_a_callback_that_answers_garbage_is_named_and_decides_nothing(self, make_run):
        run = make_run([])
        run.model._script = [Reply([ToolUse("Read", {"file_path": str(run.work / "README.md")}, id="rd")]), Reply([Text("read it")])]
        recorder = Recorder()
        recorder.answers["PreToolUse"] = {"continue_": "perhaps", "decision": ["block"]}
        async with ClaudeSDKClient(run.options(hooks=recorder.hooks(("PreToolUse",)))) as client:
            messages = await responses(client, "read")
        assert messages[-1].result == "read it"
        assert "Demo project" in result_text(run.tool_results(1)["rd"])
        assert any("PreToolUse hook (program callback) answered with an invalid output" in line for line in run.stderr)

    async def test_an_event_tui_agent_does_not_fire_is_named_once(self, make_run):
        run = make_run([Reply([Text("ok")])])

        async def never(hook_input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
            raise AssertionError("never called")

        async with ClaudeSDKClient(run.options(hooks={"PostToolBatch": [HookMatcher(hooks=[never])]})) as client:
            messages = await responses(client, "hi")
        assert messages[-1].result == "ok"
        assert sum("hook event 'PostToolBatch' is not supported" in line for line in run.stderr) == 1

    async def test_a_user_prompt_submit_context_and_a_settings_stop_hook_share_the_dispatcher(self, make_run, tmp_path):
        """A program callback and a settings command hook on the same run: both are heard."""
        import shlex
        import sys

        marker = tmp_path / "stop-hook-ran.json"
        script = tmp_path / "stop_hook.py"
        script.write_text(f"import sys\nopen({str(marker)!r}, 'w').write(sys.stdin.read())\n")
        settings = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"}]}]}}
        run = make_run([Reply([Text("hello")])])
        recorder = Recorder()
        recorder.answers["UserPromptSubmit"] = {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "From the program."}}
        async with ClaudeSDKClient(run.options(hooks=recorder.hooks(("UserPromptSubmit", "Stop")), settings=json.dumps(settings))) as client:
            await responses(client, "hi")
        assert [b["text"] for b in run.requests[0]["messages"][0]["content"]] == ["hi", "From the program."]
        from_settings = json.loads(marker.read_text())
        assert from_settings["hook_event_name"] == "Stop" and from_settings == {k: v for k, v in recorder.of("Stop")[0].items() if k != "__tool_use_id"}
