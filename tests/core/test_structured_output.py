"""--json-schema in the core (core/structured_output.py) and the result's modelUsage (core/model_usage.py):
a real Agent, the scripted model behind the real SDK."""

from __future__ import annotations

import pytest

from tests.core.support import assert_history_valid, sample_tools
from tui_agent.core.events import StreamMark
from tui_agent.core.structured_output import ENFORCE, SchemaProblem, install_structured_output, load_schema
from tui_agent.providers.scripted import Conversations, Reply, Text, ToolUse, first_user_text

SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string", "minLength": 2}, "tags": {"type": "array", "items": {"enum": ["a", "b"]}}},
    "required": ["name"],
}


class TestSchemaFlag:
    def test_a_valid_schema_loads(self):
        assert load_schema('{"type": "object"}') == {"type": "object"}

    @pytest.mark.parametrize("text, words", [
        ("{nope", "--json-schema is not valid JSON"),
        ("[1]", "--json-schema must be a JSON object"),
        ('{"type": "nonsense"}', "--json-schema is not a valid JSON Schema"),
    ])
    def test_a_bad_schema_is_refused_with_what_is_wrong(self, text, words):
        with pytest.raises(SchemaProblem, match=words):
            load_schema(text)


class TestTheLoop:
    async def test_each_problem_is_named_in_ajvs_words_and_a_valid_call_ends_the_run(self, make_harness):
        h = make_harness([
            Reply([ToolUse("StructuredOutput", {"name": "x", "tags": ["c"]}, id="bad")]),
            Reply([ToolUse("StructuredOutput", {"name": "xy", "tags": ["a"]}, id="good")]),
        ], tools=sample_tools())
        install_structured_output(h.agent, SCHEMA)
        ended = await h.agent.run("fill it in")

        first = h.requests[1]["messages"][-1]["content"][0]
        assert first["is_error"] and first["content"] == (
            "Output does not match required schema: /name: must NOT have fewer than 2 characters, "
            "/tags/0: must be equal to one of the allowed values")
        assert ended.reason == "completed" and ended.structured_output == {"name": "xy", "tags": ["a"]}
        assert ended.result == '{"name":"xy","tags":["a"]}' and len(h.requests) == 2
        assert_history_valid(h.agent.history)

    async def test_the_next_prompt_starts_afresh(self, make_harness):
        """A second prompt in the same conversation: its own reminder, its own value."""
        h = make_harness([
            Reply([ToolUse("StructuredOutput", {"name": "one"}, id="s1")]),
            Reply([Text("In prose.")]),
            Reply([Text("Still prose.")]),
        ], tools=sample_tools())
        install_structured_output(h.agent, SCHEMA)
        assert (await h.agent.run("first")).structured_output == {"name": "one"}
        second = await h.agent.run("second")
        assert h.requests[2]["messages"][-1]["content"][-1]["text"] == ENFORCE
        assert second.reason == "completed" and second.structured_output is None and second.result == "Still prose."
        assert len(h.requests) == 3, "one reminder per prompt, then the prose answer stands"

    async def test_a_subagent_neither_sees_the_tool_nor_gets_reminded(self, make_harness):
        routes = Conversations({
            "MAIN": [Reply([ToolUse("Agent", {"description": "Look", "prompt": "CHILD look"}, id="agent")]),
                     Reply([ToolUse("StructuredOutput", {"name": "done"}, id="so")])],
            "CHILD": [Reply([Text("child answer in prose")])],
        })
        h = make_harness(routes)
        install_structured_output(h.agent, SCHEMA)
        ended = await h.agent.run("MAIN go")

        child = [r for r in h.requests if first_user_text(r).startswith("CHILD")]
        assert len(child) == 1 and "StructuredOutput" not in [t["name"] for t in child[0].get("tools", [])]
        assert ended.structured_output == {"name": "done"}

    async def test_input_json_and_signature_deltas_reach_the_front_ends_as_stream_marks(self, make_harness):
        h = make_harness([Reply([ToolUse("SleepRead", {"text": "abc"}, id="t")], json_chunks=3), Reply([Text("ok")])], tools=sample_tools())
        await h.agent.run("go")
        deltas = [m.event["delta"] for m in h.of(StreamMark) if m.event["type"] == "content_block_delta"]
        assert [d["type"] for d in deltas] == ["input_json_delta"] * 3
        assert "".join(d["partial_json"] for d in deltas) == '{"text": "abc"}'


class TestModelUsage:
    async def test_usage_per_model_sums_every_response_with_the_models_limits(self, make_harness):
        h = make_harness([Reply([ToolUse("SleepRead", {"text": "a"}, id="t")], input_tokens=100, output_tokens=7),
                          Reply([Text("ok")], input_tokens=150, output_tokens=3)], tools=sample_tools())
        ended = await h.agent.run("go")
        assert ended.model_usage == {"claude-sonnet-4-6": {
            "inputTokens": 250, "outputTokens": 10, "cacheReadInputTokens": 0, "cacheCreationInputTokens": 0,
            "webSearchRequests": 0, "costUSD": pytest.approx((250 * 3 + 10 * 15) / 1e6),
            "contextWindow": 200_000, "maxOutputTokens": 32_000,
        }}
