"""What the real claude-agent-sdk reads off a run besides the messages: partial messages (every raw
stream event), structured output (`output_format` / `--json-schema`), `modelUsage` on the result, and
`initialize` fields tui-agent does not act on. Shapes checked here are the ones Claude Code 2.1.197
writes against the same scripted model."""

from __future__ import annotations

import json
from typing import Any

import pytest
from claude_agent_sdk import ResultError, ResultMessage, StreamEvent, ToolResultBlock, UserMessage, query

from tests.e2e.sdk_support import result_text
from tests.e2e.test_headless import env, run_cli, serve, work  # noqa: F401  (fixtures)
from tui_agent.core.structured_output import ENFORCE
from tui_agent.providers.scripted import Conversations, Reply, Text, Thinking, ToolUse

SCHEMA = {"type": "object", "properties": {"answer": {"type": "integer"}}, "required": ["answer"], "additionalProperties": False}
MODEL_USAGE_FIELDS = {"inputTokens", "outputTokens", "cacheReadInputTokens", "cacheCreationInputTokens", "webSearchRequests",
                      "costUSD", "contextWindow", "maxOutputTokens"}


async def collect(prompt: str, options: Any) -> list[Any]:
    return [m async for m in query(prompt=prompt, options=options)]


def tool_results(messages: list[Any]) -> dict[str, ToolResultBlock]:
    return {b.tool_use_id: b for m in messages if isinstance(m, UserMessage) and isinstance(m.content, list)
            for b in m.content if isinstance(b, ToolResultBlock)}


def responses(events: list[StreamEvent]) -> list[list[dict[str, Any]]]:
    """The raw events, one list per response (message_start .. message_stop)."""
    out: list[list[dict[str, Any]]] = []
    for e in events:
        if e.event["type"] == "message_start":
            out.append([])
        out[-1].append(e.event)
    return out


class TestPartialMessages:
    async def test_every_raw_stream_event_of_a_tool_call_arrives_as_a_stream_event(self, make_run):
        """message_start, each block's start / deltas (thinking, signature, text, input_json) / stop,
        message_delta, message_stop: in stream order, parsed by the SDK as StreamEvent, with uuid and
        session_id, parent_tool_use_id null for the main conversation."""
        run = make_run([])
        readme = str(run.work / "README.md")
        run.model._script = [
            Reply([Thinking("Which file?", signature="sig-1"), Text("Reading."), ToolUse("Read", {"file_path": readme}, id="read")], json_chunks=4),
            Reply([Text("It says hello.")]),
        ]
        messages = await collect("read it", run.options(include_partial_messages=True))

        events = [m for m in messages if isinstance(m, StreamEvent)]
        first, second = responses(events)
        assert [(e["type"], e.get("delta", {}).get("type")) for e in first[:8]] == [
            ("message_start", None), ("content_block_start", None), ("content_block_delta", "thinking_delta"),
            ("content_block_delta", "signature_delta"), ("content_block_stop", None),
            ("content_block_start", None), ("content_block_delta", "text_delta"), ("content_block_stop", None),
        ]
        assert first[3]["delta"]["signature"] == "sig-1"
        tool = [e for e in first if e.get("index") == 2]
        assert tool[0] == {"type": "content_block_start", "index": 2, "content_block": {"type": "tool_use", "id": "read", "name": "Read", "input": {}}}
        chunks = [e["delta"]["partial_json"] for e in tool if e["type"] == "content_block_delta"]
        assert len(chunks) > 1 and all(e["delta"]["type"] == "input_json_delta" for e in tool[1:-1])
        assert json.loads("".join(chunks)) == {"file_path": readme}
        assert tool[-1] == {"type": "content_block_stop", "index": 2}
        assert first[-2]["type"] == "message_delta" and first[-2]["delta"]["stop_reason"] == "tool_use" and first[-1] == {"type": "message_stop"}
        assert first[0]["message"]["model"] == "claude-sonnet-4-6" and first[0]["message"]["usage"]["input_tokens"] > 0
        assert [e["type"] for e in second] == ["message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"]
        result = messages[-1]
        assert isinstance(result, ResultMessage) and result.result == "It says hello."
        assert all(e.parent_tool_use_id is None and e.session_id == result.session_id for e in events)
        assert len({e.uuid for e in events}) == len(events)

    async def test_a_subagents_stream_events_carry_the_agent_calls_id(self, make_run):
        run = make_run(Conversations({
            "MAIN": [Reply([ToolUse("Agent", {"description": "Find docs", "prompt": "TASK: find the docs"}, id="toolu_agent")]),
                     Reply([Text("Found.")])],
            "TASK": [Reply([ToolUse("Glob", {"pattern": "*.md"}, id="glob")]), Reply([Text("README.md")])],
        }))
        messages = await collect("MAIN look", run.options(include_partial_messages=True))

        events = [m for m in messages if isinstance(m, StreamEvent)]
        child = [e for e in events if e.parent_tool_use_id == "toolu_agent"]
        assert [e.event["type"] for e in child].count("message_start") == 2, "both of the subagent's responses"
        deltas = [e.event["delta"]["partial_json"] for e in child if e.event.get("delta", {}).get("type") == "input_json_delta"]
        assert json.loads("".join(deltas)) == {"pattern": "*.md"}
        main = [e for e in events if e.parent_tool_use_id is None]
        assert [e.event["type"] for e in main].count("message_start") == 2
        assert isinstance(messages[-1], ResultMessage) and messages[-1].result == "Found."


class TestStructuredOutput:
    async def test_a_call_that_misses_the_schema_is_sent_back_and_the_next_one_is_the_result(self, make_run):
        """output_format → `--json-schema`: the model gets a StructuredOutput tool whose input schema is
        the schema; an input that misses it comes back as an is_error result in Claude Code's (Ajv's)
        words; a conforming one ends the run at once, as structured_output and as compact JSON text."""
        run = make_run([
            Reply([Text("Answering."), ToolUse("StructuredOutput", {"wrong": 1}, id="so1")]),
            Reply([ToolUse("StructuredOutput", {"answer": 42}, id="so2")]),
        ])
        messages = await collect("what is the answer", run.options(output_format={"type": "json_schema", "schema": SCHEMA}))

        offered = [t for t in run.requests[0]["tools"] if t["name"] == "StructuredOutput"]
        assert offered == [{"name": "StructuredOutput", "input_schema": SCHEMA, "description": (
            "Use this tool to return your final response in the requested structured format. You MUST call this "
            "tool exactly once at the end of your response to provide the structured output.")}]
        results = tool_results(messages)
        assert results["so1"].is_error and results["so1"].content == (
            "Output does not match required schema: root: must have required property 'answer', root: must NOT have additional properties")
        assert not results["so2"].is_error and results["so2"].content == "Structured output provided successfully"
        assert len(run.requests) == 2, "a valid structured output ends the run without another request"
        result = messages[-1]
        assert isinstance(result, ResultMessage) and result.subtype == "success"
        assert result.structured_output == {"answer": 42} and result.result == '{"answer":42}'

    async def test_an_answer_in_prose_gets_one_reminder_to_call_the_tool(self, make_run):
        run = make_run([Reply([Text("The answer is 42.")]), Reply([ToolUse("StructuredOutput", {"answer": 42}, id="so")])])
        messages = await collect("what is the answer", run.options(output_format={"type": "json_schema", "schema": SCHEMA}))

        assert run.requests[1]["messages"][-1]["content"][-1]["text"] == ENFORCE
        assert isinstance(messages[-1], ResultMessage) and messages[-1].structured_output == {"answer": 42}

    async def test_too_many_failed_calls_end_the_run_with_error_max_structured_output_retries(self, make_run):
        run = make_run(lambda body, index: Reply([ToolUse("StructuredOutput", {"answer": "forty-two"}, id=f"so{index}")]))
        run.env["MAX_STRUCTURED_OUTPUT_RETRIES"] = "2"
        seen: list[Any] = []
        with pytest.raises(ResultError) as raised:
            async for m in query(prompt="answer", options=run.options(output_format={"type": "json_schema", "schema": SCHEMA})):
                seen.append(m)
        assert raised.value.subtype == "error_max_structured_output_retries"
        assert len(run.requests) == 2
        assert result_text(run.tool_results(1)["so0"]) == "Output does not match required schema: /answer: must be integer"
        result = seen[-1]
        assert isinstance(result, ResultMessage) and result.structured_output is None
        assert result.errors == ["Failed to provide valid structured output after 2 attempts"]

    def test_print_json_carries_structured_output_and_model_usage(self, env, work):  # noqa: F811
        """`-p --output-format json --json-schema`: the same tool and the same result fields."""
        with serve([Reply([ToolUse("StructuredOutput", {"answer": 7}, id="so")])], env):
            proc = run_cli(["-p", "answer", "--output-format", "json", "--json-schema", json.dumps(SCHEMA)], env, work)
        assert proc.returncode == 0, proc.stderr
        result = json.loads(proc.stdout)
        assert result["structured_output"] == {"answer": 7} and result["result"] == '{"answer":7}'
        assert set(result["modelUsage"]["claude-sonnet-4-6"]) == MODEL_USAGE_FIELDS

    def test_a_schema_that_is_not_json_is_refused_before_anything_starts(self, env, work):  # noqa: F811
        proc = run_cli(["-p", "answer", "--json-schema", "{not json"], env, work)
        assert proc.returncode == 1 and proc.stderr.startswith("Error: --json-schema is not valid JSON")


class TestModelUsage:
    async def test_the_result_carries_model_usage_per_model_in_claude_codes_shape(self, make_run):
        run = make_run([Reply([ToolUse("Glob", {"pattern": "*.md"}, id="g")], input_tokens=1000, output_tokens=10),
                        Reply([Text("One file.")], input_tokens=1200, output_tokens=5)])
        messages = await collect("look", run.options())

        result = messages[-1]
        assert isinstance(result, ResultMessage) and result.model_usage is not None
        usage = result.model_usage["claude-sonnet-4-6"]
        assert set(usage) == MODEL_USAGE_FIELDS
        assert (usage["inputTokens"], usage["outputTokens"]) == (2200, 15)
        assert usage["costUSD"] == pytest.approx(result.total_cost_usd) and usage["costUSD"] == pytest.approx((2200 * 3 + 15 * 15) / 1e6)
        assert (usage["contextWindow"], usage["maxOutputTokens"]) == (200_000, 32_000)


class TestInitialize:
    async def test_an_initialize_field_tui_agent_does_not_act_on_is_named_on_stderr_and_the_session_goes_on(self, make_run):
        run = make_run([Reply([Text("Hello.")])])
        messages = await collect("hi", run.options(skills=["deploy"]))

        assert isinstance(messages[-1], ResultMessage) and messages[-1].result == "Hello."
        named = [line for line in run.stderr if "initialize field 'skills'" in line]
        assert len(named) == 1 and "not supported" in named[0]
