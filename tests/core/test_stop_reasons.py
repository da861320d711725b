"""Finding 4 of issue 10: the loop reads `stop_reason` (max_tokens in text and in a tool call, refusal,
pause_turn), through the real SDK and the scripted model."""

from __future__ import annotations

import json

from tests.core.support import assert_history_valid, sample_tools
from tui_agent.core.events import Notice, ToolStarted
from tui_agent.core.stop_reasons import RESUME_PROMPT, SPLIT_THE_WORK, output_maximum
from tui_agent.headless import result_object
from tui_agent.providers.scripted import Reply, Text, ToolUse
from tui_agent.tools.registry import default_tools


def cut_write(path: str) -> ToolUse:
    """A Write whose input JSON stops midway, as a response cut by max_tokens leaves it."""
    return ToolUse("Write", raw_json=json.dumps({"file_path": path, "content": "x" * 200})[:60], id=None)


def system_lines(h) -> list[dict]:
    return [line["data"] for line in h.agent.session.read() if line["type"] == "system"]


class TestMaxTokensInText:
    async def test_a_cut_answer_is_resumed_and_the_answer_is_the_joined_text(self, make_harness):
        h = make_harness(
            [Reply([Text("Hello wor")], stop_reason="max_tokens"), Reply([Text("ld, and mo")], stop_reason="max_tokens"), Reply([Text("re.")])],
            tools=sample_tools(),
        )
        ended = await h.agent.run("go")
        assert ended.reason == "completed" and not ended.is_error
        assert ended.result == "Hello world, and more."
        sent = h.requests[1]["messages"]
        assert sent[-2] == {"role": "assistant", "content": [{"type": "text", "text": "Hello wor"}]}
        assert sent[-1]["content"][0]["text"] == RESUME_PROMPT
        assert_history_valid(h.agent.history)
        assert [d["action"] for d in system_lines(h)] == ["resume_text", "resume_text"]

    async def test_a_fourth_cut_ends_the_run_with_the_max_tokens_error(self, make_harness):
        h = make_harness([Reply([Text(f"part{i} ")], stop_reason="max_tokens") for i in range(6)], tools=sample_tools())
        ended = await h.agent.run("go")
        assert ended.reason == "max_tokens" and ended.is_error
        assert len(h.requests) == 4
        assert ended.result == "part0 part1 part2 part3 "
        out = result_object(ended, "s")
        assert out["is_error"] and out["reason"] == "max_tokens" and out["subtype"] == "error_during_execution"
        assert_history_valid(h.agent.history)
        assert system_lines(h)[-1]["reason"] == "max_tokens"


class TestMaxTokensInAToolCall:
    async def test_a_cut_write_never_runs_and_is_retried_once_with_the_output_maximum(self, make_harness, tmp_path):
        target = tmp_path / "work" / "big.txt"
        h = make_harness(
            [Reply([Text("Writing it."), cut_write(str(target))], stop_reason="max_tokens"),
             Reply([ToolUse("Write", {"file_path": str(target), "content": "whole"}, id="w")]),
             Reply([Text("written")])],
            tools=default_tools(), allowed_tools=["Write"],
        )
        ended = await h.agent.run("go")
        assert ended.reason == "completed" and ended.result == "written"
        assert h.requests[0]["max_tokens"] != output_maximum("claude-sonnet-4-6")
        assert h.requests[1]["max_tokens"] == output_maximum("claude-sonnet-4-6") == 64_000
        assert h.requests[2]["max_tokens"] == h.requests[0]["max_tokens"], "raised for that one retry only"
        assert h.requests[1]["messages"] == h.requests[0]["messages"], "the cut response was not kept"
        assert target.read_text() == "whole"
        assert [e.id for e in h.of(ToolStarted)] == ["w"]
        assert_history_valid(h.agent.history)

    async def test_cut_twice_the_model_is_told_to_split_the_work_and_the_file_never_appears(self, make_harness, tmp_path):
        target = tmp_path / "work" / "big.txt"
        h = make_harness(
            [Reply([cut_write(str(target))], stop_reason="max_tokens"),
             Reply([cut_write(str(target))], stop_reason="max_tokens"),
             Reply([Text("I will write it in parts.")])],
            tools=default_tools(), allowed_tools=["Write"],
        )
        ended = await h.agent.run("go")
        assert ended.reason == "completed"
        assert not target.exists(), "the file of a cut Write must not appear"
        assert not h.of(ToolStarted)
        result = h.requests[2]["messages"][-1]["content"][0]
        assert result["type"] == "tool_result" and result["is_error"] and SPLIT_THE_WORK in result["content"]
        assert any(isinstance(n, Notice) and "split" in n.text for n in h.events)
        assert_history_valid(h.agent.history)

    async def test_no_raised_retry_when_max_tokens_is_already_the_models_maximum(self, make_harness, tmp_path):
        target = tmp_path / "work" / "big.txt"
        h = make_harness([Reply([cut_write(str(target))], stop_reason="max_tokens"), Reply([Text("in parts then")])],
                         tools=default_tools(), allowed_tools=["Write"])
        h.agent.model.config.max_tokens = output_maximum("claude-sonnet-4-6")
        ended = await h.agent.run("go")
        assert ended.result == "in parts then" and len(h.requests) == 2
        assert SPLIT_THE_WORK in h.requests[1]["messages"][-1]["content"][0]["content"]
        assert not target.exists()

    async def test_cut_again_after_being_told_to_split_ends_the_run(self, make_harness, tmp_path):
        target = tmp_path / "work" / "big.txt"
        h = make_harness([Reply([cut_write(str(target))], stop_reason="max_tokens")] * 5 + [Reply([Text("never")])],
                         tools=default_tools(), allowed_tools=["Write"])
        ended = await h.agent.run("go")
        assert ended.reason == "max_tokens" and ended.is_error and len(h.requests) == 3
        assert not target.exists()
        assert_history_valid(h.agent.history)


class TestOtherStopReasons:
    async def test_refusal_ends_the_run_with_its_own_reason(self, make_harness):
        h = make_harness([Reply([Text("I can't help with that.")], stop_reason="refusal"), Reply([Text("never")])], tools=sample_tools())
        ended = await h.agent.run("go")
        assert ended.reason == "refusal" and ended.is_error and "declined" in ended.detail
        assert len(h.requests) == 1
        assert_history_valid(h.agent.history)

    async def test_pause_turn_sends_the_conversation_back_to_go_on(self, make_harness):
        h = make_harness([Reply([Text("Searching... ")], stop_reason="pause_turn"), Reply([Text("found it.")])], tools=sample_tools())
        ended = await h.agent.run("go")
        assert ended.reason == "completed" and ended.result == "Searching... found it."
        assert h.requests[1]["messages"][-1]["role"] == "assistant"
        assert_history_valid(h.agent.history)
