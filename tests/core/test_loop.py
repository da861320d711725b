"""The loop contract (DESIGN §1), through the real SDK and the scripted model."""

from __future__ import annotations

import json

from tests.core.support import SleepRead, SleepWrite, Checked, assert_history_valid, sample_tools
from tui_agent.core.events import (
    AssistantMessageFinished,
    LoopEnded,
    PermissionAsked,
    Retrying,
    TextDelta,
    ToolFinished,
    UsageUpdated,
)
from tui_agent.core.permission_types import PermissionAnswer
from tui_agent.providers.scripted import Reply, Text, Thinking, ToolUse, fault


class TestHistory:
    async def test_assistant_message_is_stored_whole_and_sent_back(self, make_harness):
        """Thinking, text and tool_use blocks are kept in order and the next request carries them."""
        h = make_harness(
            [
                Reply([Thinking("let me think"), Text("Looking."), ToolUse("SleepRead", {"text": "r1"}, id="toolu_a"), Text("and more")]),
                Reply([Text("done")]),
            ],
            tools=sample_tools(),
        )
        ended = await h.agent.run("hi")
        assert ended.reason == "completed" and ended.result == "done"
        sent = h.requests[1]["messages"][1]
        assert sent["role"] == "assistant"
        assert [b["type"] for b in sent["content"]] == ["thinking", "text", "tool_use", "text"]
        assert sent["content"][0]["signature"] == "scripted-signature"
        assert sent["content"][2] == {"type": "tool_use", "id": "toolu_a", "name": "SleepRead", "input": {"text": "r1"}}
        assert_history_valid(h.agent.history)

    async def test_each_request_carries_the_whole_history(self, make_harness):
        h = make_harness([Reply([Text("one")]), Reply([Text("two")])], tools=sample_tools())
        await h.agent.run("first")
        await h.agent.run("second")
        texts = [m["content"][0].get("text") for m in h.requests[1]["messages"]]
        assert texts == ["first", "one", "second"]

    async def test_tool_input_is_kept_exactly_as_received(self, make_harness):
        """No defaults filled in, key order and values as the model sent them."""
        raw = '{"limit": 3, "path": "/ok/x"}'
        h = make_harness([Reply([ToolUse("Checked", raw_json=raw)]), Reply([Text("ok")])], tools=sample_tools())
        await h.agent.run("go")
        block = h.agent.history[1]["content"][0]
        assert json.dumps(block["input"]) == raw
        h2 = make_harness([Reply([ToolUse("Checked", {"path": "/ok/y"})]), Reply([Text("ok")])], tools=sample_tools())
        await h2.agent.run("go")
        assert h2.agent.history[1]["content"][0]["input"] == {"path": "/ok/y"}  # `limit` default not added

    async def test_prompt_caching_marks_system_and_last_message_only_in_the_request(self, make_harness):
        h = make_harness([Reply([ToolUse("SleepRead", {"text": "x"})]), Reply([Text("ok")])], tools=sample_tools())
        await h.agent.run("go")
        req = h.requests[1]
        assert req["system"][-1]["cache_control"] == {"type": "ephemeral"}
        assert req["messages"][-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}
        assert sum("cache_control" in b for m in req["messages"] for b in m["content"]) == 1
        assert all("cache_control" not in b for m in h.agent.history if isinstance(m["content"], list) for b in m["content"])

    async def test_transcript_has_lines_per_finished_message_and_the_run_end(self, make_harness):
        h = make_harness([Reply([ToolUse("SleepRead", {"text": "x"})]), Reply([Text("ok")])], tools=sample_tools())
        await h.agent.run("go")
        lines = h.agent.session.read()
        assert [l["type"] for l in lines] == ["user", "assistant", "user", "assistant", "tui-agent-run"]
        assert [l["message"]["content"] for l in lines[1:4]] == [m["content"] for m in h.agent.history[1:]]
        assert lines[0]["message"] == h.agent.history[0]
        assert lines[-1]["reason"] == "completed"
        assert h.agent.session.transcript_path.parent == h.agent.session.dir.parent


class TestContinuation:
    async def test_tool_use_block_continues_even_when_stop_reason_says_end_turn(self, make_harness):
        h = make_harness([Reply([ToolUse("SleepRead", {"text": "x"})], stop_reason="end_turn"), Reply([Text("fin")])], tools=sample_tools())
        ended = await h.agent.run("go")
        assert ended.num_turns == 2 and ended.result == "fin"

    async def test_no_tool_use_ends_even_when_stop_reason_says_tool_use(self, make_harness):
        h = make_harness([Reply([Text("only words")], stop_reason="tool_use")], tools=sample_tools())
        ended = await h.agent.run("go")
        assert ended.reason == "completed" and ended.num_turns == 1 and len(h.requests) == 1


class TestResults:
    async def test_every_tool_use_gets_one_result_in_order_in_one_message(self, make_harness):
        h = make_harness(
            [
                Reply([
                    ToolUse("SleepRead", {"seconds": 0.15, "text": "slow"}, id="t1"),
                    ToolUse("SleepRead", {"seconds": 0.0, "text": "fast"}, id="t2"),
                    ToolUse("Missing", {}, id="t3"),
                    ToolUse("Checked", {"path": "/nope"}, id="t4"),
                ]),
                Reply([Text("ok")]),
            ],
            tools=sample_tools(),
        )
        await h.agent.run("go")
        results = h.agent.history[2]["content"]
        assert [b["tool_use_id"] for b in results] == ["t1", "t2", "t3", "t4"]
        assert results[0]["content"] == "slow" and results[1]["content"] == "fast"
        assert_history_valid(h.agent.history)

    async def test_unknown_tool_gets_the_exact_error(self, make_harness):
        h = make_harness([Reply([ToolUse("Frobnicate", {"a": 1})]), Reply([Text("ok")])], tools=sample_tools())
        await h.agent.run("go")
        result = h.agent.history[2]["content"][0]
        assert result["content"] == "<tool_use_error>Error: No such tool available: Frobnicate</tool_use_error>"
        assert result["is_error"] is True

    async def test_alias_finds_the_tool(self, make_harness):
        h = make_harness([Reply([ToolUse("Nap", {"text": "zz"})]), Reply([Text("ok")])], tools=sample_tools())
        await h.agent.run("go")
        assert h.agent.history[2]["content"][0]["content"] == "zz"

    async def test_invalid_input_is_explained_one_line_per_problem(self, make_harness):
        h = make_harness([Reply([ToolUse("Checked", {"limit": "5", "content": "x"})]), Reply([Text("ok")])], tools=sample_tools())
        await h.agent.run("go")
        text = h.agent.history[2]["content"][0]["content"]
        assert "The required parameter `path` is missing" in text
        assert "An unexpected parameter `content` was provided" in text
        assert "The parameter `limit` type is expected as `number` but provided as `string`" in text
        assert text.startswith("<tool_use_error>") and h.agent.history[2]["content"][0]["is_error"]

    async def test_invalid_json_input_is_an_error_result_and_history_stays_valid(self, make_harness):
        h = make_harness([Reply([ToolUse("Checked", raw_json='{"path": "/ok", ')]), Reply([Text("ok")])], tools=sample_tools())
        ended = await h.agent.run("go")
        assert ended.reason == "completed"
        assert "not valid JSON" in h.agent.history[2]["content"][0]["content"]
        assert_history_valid(h.agent.history)

    async def test_business_check_failure_never_runs_the_tool(self, make_harness):
        h = make_harness([Reply([ToolUse("Checked", {"path": "/etc"})]), Reply([Text("ok")])], tools=sample_tools())
        await h.agent.run("go")
        result = h.agent.history[2]["content"][0]
        assert result["content"] == "<tool_use_error>Path /etc is not allowed</tool_use_error>" and result["is_error"]

    async def test_tool_exceptions_become_error_results_not_crashes(self, make_harness):
        h = make_harness(
            [Reply([ToolUse("SleepRead", {"fail": True, "text": "nope"}), ToolUse("SleepRead", {"crash": True})]), Reply([Text("ok")])],
            tools=sample_tools(),
        )
        ended = await h.agent.run("go")
        a, b = h.agent.history[2]["content"]
        assert a["content"] == "failed: nope" and a["is_error"]
        assert b["content"] == "Error: RuntimeError: boom" and b["is_error"]
        assert ended.reason == "completed"

    async def test_empty_output_says_the_tool_completed_with_no_output(self, make_harness):
        h = make_harness([Reply([ToolUse("SleepRead", {})]), Reply([Text("ok")])], tools=sample_tools())
        await h.agent.run("go")
        assert h.agent.history[2]["content"][0]["content"] == "(SleepRead completed with no output)"


class TestPermissions:
    async def test_headless_has_no_one_to_ask_so_writers_are_denied_and_recorded(self, make_harness):
        h = make_harness([Reply([ToolUse("SleepWrite", {"text": "w"}, id="w1")]), Reply([Text("ok")])], tools=sample_tools())
        ended = await h.agent.run("go")
        result = h.agent.history[2]["content"][0]
        assert result["is_error"] and "not granted" in result["content"]
        assert ended.permission_denials == ({"tool_name": "SleepWrite", "tool_use_id": "w1", "tool_input": {"text": "w"}},)

    async def test_ask_allowed_runs_the_tool(self, make_harness):
        asked = []

        async def ask(request):
            asked.append(request)
            return PermissionAnswer("allow_once")

        h = make_harness([Reply([ToolUse("SleepWrite", {"text": "w"})]), Reply([Text("ok")])], tools=sample_tools(), ask=ask)
        await h.agent.run("go")
        assert asked[0].tool_name == "SleepWrite" and not asked[0].read_only
        assert h.agent.history[2]["content"][0]["content"] == "w"
        assert len(h.of(PermissionAsked)) == 1

    async def test_denial_with_words_reaches_the_model_and_the_turn_goes_on(self, make_harness):
        async def ask(request):
            return PermissionAnswer("deny", words="use the other file")

        h = make_harness([Reply([ToolUse("SleepWrite", {"text": "w"}, id="w1")]), Reply([Text("ok")])], tools=sample_tools(), ask=ask)
        ended = await h.agent.run("go")
        result = h.requests[1]["messages"][-1]["content"][0]
        assert result["is_error"] and result["content"].endswith("The user said:\nuse the other file")
        assert ended.reason == "completed" and ended.permission_denials[0]["tool_use_id"] == "w1"
        assert [f.status for f in h.of(ToolFinished)] == ["denied"]

    async def test_allowed_tools_flag_allows_without_asking(self, make_harness):
        h = make_harness([Reply([ToolUse("SleepWrite", {"text": "w"})]), Reply([Text("ok")])], tools=sample_tools(), allowed_tools=["SleepWrite"])
        await h.agent.run("go")
        assert h.agent.history[2]["content"][0]["content"] == "w"

    async def test_plan_mode_denies_writers_with_an_explanation(self, make_harness):
        h = make_harness([Reply([ToolUse("SleepWrite", {"text": "w"})]), Reply([Text("ok")])], tools=sample_tools(), permission_mode="plan")
        await h.agent.run("go")
        assert "lan mode" in h.agent.history[2]["content"][0]["content"]


class TestTermination:
    async def test_max_turns_counts_model_requests(self, make_harness):
        loop_reply = Reply([ToolUse("SleepRead", {"text": "again"})])
        h = make_harness([loop_reply] * 5, tools=sample_tools(), max_turns=2)
        ended = await h.agent.run("go")
        assert ended.reason == "max_turns" and ended.num_turns == 2 and len(h.requests) == 2
        assert_history_valid(h.agent.history)

    async def test_max_budget_ends_the_run_with_the_history_valid(self, make_harness):
        big = Reply([ToolUse("SleepRead", {"text": "x"})], input_tokens=1_000_000, output_tokens=10)
        h = make_harness([big, big, big], tools=sample_tools(), max_budget_usd=2.0)
        ended = await h.agent.run("go")
        assert ended.reason == "max_budget_usd" and ended.num_turns == 1
        assert ended.total_cost_usd is not None and ended.total_cost_usd >= 2.0
        assert_history_valid(h.agent.history)

    async def test_bad_request_is_a_clear_model_error_and_not_retried(self, make_harness):
        h = make_harness([fault(400, "messages: bad thing")], tools=sample_tools())
        ended = await h.agent.run("go")
        assert ended.reason == "model_error" and "400" in ended.detail and "bad thing" in ended.detail
        assert len(h.requests) == 1 and not h.of(Retrying)
        assert_history_valid(h.agent.history)

    async def test_prompt_too_long_has_its_own_reason(self, make_harness):
        h = make_harness([fault(400, "prompt is too long: 250000 tokens > 200000 maximum")], tools=sample_tools())
        ended = await h.agent.run("go")
        assert ended.reason == "prompt_too_long"

    async def test_completed_result_is_the_last_text(self, make_harness):
        h = make_harness([Reply([Text("The answer is 42.")])], tools=sample_tools())
        ended = await h.agent.run("q")
        assert (ended.reason, ended.result, ended.is_error) == ("completed", "The answer is 42.", False)
        assert isinstance(h.events[-1], LoopEnded)


class TestRetries:
    async def test_529_then_429_then_success_honours_retry_after(self, make_harness):
        h = make_harness(
            [fault(529, "Overloaded", retry_after=0.05), fault(429, "slow down", retry_after_ms=30), Reply([Text("finally")])],
            tools=sample_tools(),
        )
        ended = await h.agent.run("go")
        assert ended.result == "finally" and len(h.requests) == 3
        retries = h.of(Retrying)
        assert [r.attempt for r in retries] == [1, 2]
        assert retries[0].delay == 0.05 and abs(retries[1].delay - 0.03) < 1e-9
        assert "529" in retries[0].why and "429" in retries[1].why

    async def test_a_stream_that_errors_midway_is_not_half_applied(self, make_harness):
        h = make_harness(
            [
                Reply([Text("partial answer that will vanish"), ToolUse("SleepRead", {"text": "x"})], chunk=5, error_after=6),
                Reply([Text("clean answer")]),
            ],
            tools=sample_tools(),
        )
        ended = await h.agent.run("go")
        assert ended.result == "clean answer"
        assert h.agent.history[1] == {"role": "assistant", "content": [{"type": "text", "text": "clean answer"}]}
        assert len(h.agent.history) == 2
        assert "overloaded_error" in h.of(Retrying)[0].why

    async def test_a_dropped_connection_after_a_tool_started_is_retried_and_the_tool_discarded(self, make_harness):
        h = make_harness(
            [
                Reply([ToolUse("SleepRead", {"seconds": 5, "text": "never"}, id="lost"), Text("more text " * 20)], chunk=4, drop_after=12),
                Reply([ToolUse("SleepRead", {"text": "kept"}, id="kept")]),
                Reply([Text("done")]),
            ],
            tools=sample_tools(),
        )
        ended = await h.agent.run("go")
        assert ended.result == "done"
        ids = [b.get("id") or b.get("tool_use_id") for m in h.agent.history if isinstance(m["content"], list) for b in m["content"]]
        assert "lost" not in ids and "kept" in ids
        assert_history_valid(h.agent.history)
        assert "connection dropped" in h.of(Retrying)[0].why

    async def test_retries_exhausted_end_with_model_error(self, make_harness):
        h = make_harness([fault(529, "Overloaded", retry_after=0)] * 10, tools=sample_tools(), max_retries=2)
        ended = await h.agent.run("go")
        assert ended.reason == "model_error" and "529" in ended.detail and len(h.requests) == 3

    async def test_non_retryable_stream_error_is_final(self, make_harness):
        h = make_harness([Reply([Text("x" * 50)], chunk=5, error_after=4, error_type="invalid_request_error")], tools=sample_tools())
        ended = await h.agent.run("go")
        assert ended.reason == "model_error" and "invalid_request_error" in ended.detail and len(h.requests) == 1


class TestUsage:
    async def test_cost_is_tracked_per_model(self, make_harness):
        h = make_harness([Reply([Text("x")], input_tokens=1000, output_tokens=100)], tools=sample_tools())
        ended = await h.agent.run("go")
        assert abs(ended.total_cost_usd - (1000 * 3 + 100 * 15) / 1e6) < 1e-12
        usage = h.of(UsageUpdated)[-1]
        assert usage.input_tokens == 1000 and usage.output_tokens == 100
        assert h.agent.totals.cost_by_model["claude-sonnet-4-6"] == ended.total_cost_usd

    async def test_unknown_model_counts_tokens_and_marks_cost_unknown(self, make_harness):
        h = make_harness([Reply([Text("x")], input_tokens=10, output_tokens=5)], tools=sample_tools(), model="my-local-llm")
        ended = await h.agent.run("go")
        assert ended.total_cost_usd is None and ended.usage["input_tokens"] == 10


class TestStreamingEvents:
    async def test_text_arrives_as_deltas_then_the_whole_message(self, make_harness):
        h = make_harness([Reply([Text("abcdefghij")], chunk=3)], tools=sample_tools())
        await h.agent.run("go")
        assert "".join(d.text for d in h.of(TextDelta)) == "abcdefghij"
        assert len(h.of(TextDelta)) == 4
        assert h.of(AssistantMessageFinished)[0].stop_reason == "end_turn"


def test_the_core_never_imports_textual():
    """Import every core module in a fresh interpreter and check Textual did not come along."""
    import subprocess
    import sys

    code = (
        "import sys, tui_agent.core.loop, tui_agent.core.executor, tui_agent.core.model, tui_agent.factory, "
        "tui_agent.headless, tui_agent.providers.scripted, tui_agent.providers.demo, tui_agent.tools.registry;"
        "import tui_agent.tools.registry as r; r.default_tools();"
        "bad=[m for m in sys.modules if m == 'textual' or m.startswith('textual.')];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_sample_tools_are_distinct():
    assert {t.name for t in sample_tools()} == {SleepRead.name, SleepWrite.name, Checked.name}


class TestRequestShape:
    async def test_tools_flag_restricts_the_offered_tools_and_the_system_prompt_can_be_extended(self, make_harness):
        h = make_harness([Reply([Text("ok")])], tools=sample_tools(), append_system_prompt="Answer in French.")
        h.agent.registry = h.agent.registry.restricted(["SleepRead", "Nap"])
        await h.agent.run("go")
        request = h.requests[0]
        assert [t["name"] for t in request["tools"]] == ["SleepRead"]
        assert request["system"][0]["text"].endswith("\n\nAnswer in French.")
        schema = request["tools"][0]["input_schema"]
        assert schema["additionalProperties"] is False and "seconds" in schema["properties"]
