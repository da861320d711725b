"""The protocol's edges without a process: stdin lines parsed into typed messages (bad ones named),
core events mapped to Claude Code's stream-json shapes, and the front end's place in the house."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from tui_agent.core.events import AssistantMessageFinished, LoopEnded, Notice, RunStarted, TextDelta, ToolResultsSent
from tui_agent.protocol.asker import PermissionReply, suggestion_updates
from tui_agent.protocol.flags import settings_flag
from tui_agent.protocol.mapping import PROTOCOL_VERSION, MessageMapper
from tui_agent.protocol.wire import (
    ControlRequestLine,
    ControlResponseLine,
    InitializeRequest,
    LineError,
    OtherRequest,
    UserLine,
    parse_line,
    parse_request,
)
from tui_agent.core.permission_types import PermissionRequest


class TestParseLine:
    def test_a_prompt_with_blocks_and_unknown_extra_fields(self):
        line = parse_line(json.dumps({"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": "hi"}]},
                                      "parent_tool_use_id": None, "session_id": "default", "client_composed": True}))
        assert isinstance(line, UserLine) and line.message.content == [{"type": "text", "text": "hi"}]

    def test_initialize_with_hook_matchers(self):
        line = parse_line(json.dumps({"type": "control_request", "request_id": "r", "request": {
            "subtype": "initialize", "hooks": {"PreToolUse": [{"matcher": "Bash", "hookCallbackIds": ["hook_0"], "timeout": 5}]}}}))
        assert isinstance(line, ControlRequestLine)
        request = parse_request(line)
        assert isinstance(request, InitializeRequest)
        [matcher] = request.hooks["PreToolUse"]
        assert (matcher.matcher, matcher.hookCallbackIds, matcher.timeout) == ("Bash", ["hook_0"], 5)

    def test_a_request_we_do_not_serve_is_typed_so_it_can_be_refused(self):
        line = parse_line(json.dumps({"type": "control_request", "request_id": "r", "request": {"subtype": "rewind_files", "user_message_id": "u"}}))
        assert isinstance(parse_request(line), OtherRequest)

    def test_an_answer_to_our_request(self):
        line = parse_line(json.dumps({"type": "control_response", "response": {"subtype": "error", "request_id": "x", "error": "boom"}}))
        assert isinstance(line, ControlResponseLine) and line.response.error == "boom"

    @pytest.mark.parametrize(("text", "words", "request_id"), [
        ("{", "not JSON", None),
        ("[]", "expected a JSON object, got list", None),
        ('{"type": "nope", "request_id": "q"}', "unknown message type 'nope'", "q"),
        ('{"type": "user", "message": {}}', "invalid user message: message.content: Field required", None),
        ('{"type": "control_request", "request": {"subtype": "interrupt"}}', "invalid control_request message: request_id", None),
    ])
    def test_bad_lines_say_what_is_wrong(self, text, words, request_id):
        with pytest.raises(LineError) as caught:
            parse_line(text)
        assert words in str(caught.value) and caught.value.request_id == request_id

    def test_a_known_request_with_bad_fields_names_its_request_id(self):
        line = parse_line(json.dumps({"type": "control_request", "request_id": "r9", "request": {"subtype": "set_permission_mode", "mode": 3}}))
        with pytest.raises(LineError) as caught:
            parse_request(line)
        assert caught.value.request_id == "r9" and "mode" in str(caught.value)


class TestMapping:
    def mapper(self, partial: bool = False) -> MessageMapper:
        return MessageMapper("s-1", partial_messages=partial, permission_mode=lambda: "plan", api_key_source="ANTHROPIC_API_KEY")

    def test_init_names_tools_model_mode_cwd_session_and_protocol_version(self):
        [init] = self.mapper().map(RunStarted("s-1", "claude-x", "hi", ("Read", "Bash"), "/w"))
        assert (init["type"], init["subtype"], init["tools"], init["model"], init["permissionMode"], init["cwd"], init["session_id"]) == (
            "system", "init", ["Read", "Bash"], "claude-x", "plan", "/w", "s-1")
        assert init["claude_code_version"] == PROTOCOL_VERSION and init["uuid"]

    def test_assistant_carries_id_model_stop_reason_usage_and_parent(self):
        m = self.mapper()
        m.map(RunStarted("s-1", "claude-x", "hi", (), "/w"))
        content = [{"type": "text", "text": "hello"}]
        [out] = m.map(AssistantMessageFinished({"role": "assistant", "content": content}, "end_turn", "msg_1", "", {"input_tokens": 3}))
        assert out["type"] == "assistant" and out["parent_tool_use_id"] is None and out["session_id"] == "s-1"
        msg = out["message"]
        assert (msg["id"], msg["model"], msg["content"], msg["stop_reason"], msg["usage"]) == ("msg_1", "claude-x", content, "end_turn", {"input_tokens": 3})

    def test_tool_results_are_a_user_message(self):
        message = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "ok"}]}
        [out] = self.mapper().map(ToolResultsSent(message))
        assert out["type"] == "user" and out["message"] == message

    def test_text_deltas_become_stream_events_only_when_asked(self):
        assert self.mapper().map(TextDelta("a", 0)) == []
        [out] = self.mapper(partial=True).map(TextDelta("a", 2))
        assert out["type"] == "stream_event" and out["event"] == {"type": "content_block_delta", "index": 2, "delta": {"type": "text_delta", "text": "a"}}

    @pytest.mark.parametrize(("reason", "subtype"), [("completed", "success"), ("max_turns", "error_max_turns"),
                                                      ("aborted", "error_during_execution"), ("model_error", "error_during_execution")])
    def test_results_carry_the_sdk_fields(self, reason, subtype):
        m = self.mapper()
        m.map(AssistantMessageFinished({"role": "assistant", "content": []}, "end_turn"))
        [out] = m.map(LoopEnded(reason, "why" if reason != "completed" else "", "text", 2, 10, 5, 0.01))
        assert out["type"] == "result" and out["subtype"] == subtype and out["is_error"] == (reason != "completed")
        for key in ("duration_ms", "duration_api_ms", "num_turns", "session_id", "total_cost_usd", "usage", "permission_denials", "stop_reason", "uuid"):
            assert key in out
        assert ("errors" in out) == (reason != "completed")

    def test_notices_go_to_stderr_not_to_the_program(self):
        assert self.mapper().map(Notice("warning", "settings file is broken")) == ["[warning] settings file is broken"]


class TestPermissionShapes:
    def test_suggestions_are_sdk_permission_updates(self):
        request = PermissionRequest("i", "t", "Bash", {}, "", False, suggestions=("Bash(npm run test *)", "Read"))
        assert suggestion_updates(request) == [
            {"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "npm run test *"}], "behavior": "allow", "destination": "localSettings"},
            {"type": "addRules", "rules": [{"toolName": "Read"}], "behavior": "allow", "destination": "localSettings"},
        ]

    def test_an_answer_without_behavior_is_not_understood(self):
        with pytest.raises(ValidationError, match="behavior"):
            PermissionReply.model_validate({"updatedInput": {}})


class TestSettingsFlag:
    def test_a_json_string_is_parsed_in_memory(self):
        errors: list[str] = []
        value = settings_flag('{"permissions": {"allow": ["Read"]}}', errors.append)
        assert not errors and value == {"permissions": {"allow": ["Read"]}}

    def test_bad_json_is_named(self):
        errors: list[str] = []
        settings_flag("{not json", errors.append)
        assert errors and "not valid JSON" in errors[0]


def test_the_protocol_front_end_never_imports_textual_and_the_core_never_imports_it():
    code = (
        "import sys, tui_agent.protocol, tui_agent.protocol.session, tui_agent.protocol.mapping;"
        "bad=[m for m in sys.modules if m == 'textual' or m.startswith('textual.')];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    core = Path(__file__).resolve().parents[2] / "tui_agent" / "core"
    imports_protocol = re.compile(r"^\s*(from|import)\s+(tui_agent|\.+)[\w.]*\bprotocol\b", re.M)
    offenders = [p for p in core.rglob("*.py") if imports_protocol.search(p.read_text())]
    assert offenders == [], "the core knows nothing of the protocol front end"
