"""Extended thinking (issue 13 item 6): where the request's thinking config comes from, and thinking,
signatures and redacted thinking kept exactly as received — through the real SDK, the transcript and ESC."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tests.core.support import assert_history_valid, sample_tools
from tui_agent.core.events import Notice, ThinkingDelta
from tui_agent.core.session import load
from tui_agent.core.thinking import INTERLEAVED_BETA, ThinkingChoice, ThinkingError, choose, thinking_config
from tui_agent.providers.scripted import RedactedThinking, Reply, Text, Thinking, ToolUse

# Awkward on purpose: unicode, blank lines, trailing spaces, split across deltas mid-character-run.
THOUGHT = "Let me look at the file first.\n\n  Then — ünïcode, \"quotes\", tabs\t and trailing spaces   \n"
SIGNATURE = "EqQBCkYIBRgCKkD0c2lnbmF0dXJlLWJ5dGVz+/=="
REDACTED = "EmwKAhgBEgy3va3pzLcj7MG0BxkaDPmm1bJaEAJ0vtoUSSIw8b7gbXT+AlzLYfKyqQLrJtONP9g9e5OTHNg=="


def thinking_of(request: dict) -> dict | None:
    return request.get("thinking")


class TestWhereThinkingComesFrom:
    async def test_off_unless_asked_and_then_no_thinking_key_is_sent(self, make_harness):
        h = make_harness([Reply([Text("hi")])], model="claude-sonnet-4-5")
        await h.agent.run("hi")
        assert "thinking" not in h.requests[0] and h.requests[0]["max_tokens"] == 16_000

    async def test_the_flag_sends_an_enabled_budget_and_the_interleaved_beta_with_tools(self, make_harness):
        h = make_harness([Reply([Text("hi")])], tools=sample_tools(), model="claude-sonnet-4-5", max_thinking_tokens=5000)
        await h.agent.run("hi")
        req = h.requests[0]
        assert req["thinking"] == {"type": "enabled", "budget_tokens": 5000}
        assert req["max_tokens"] == 16_000 and "temperature" not in req
        assert INTERLEAVED_BETA in h.model.request_headers[0]["anthropic-beta"].split(",")

    async def test_the_environment_budget_raises_max_tokens_above_it(self, make_harness, monkeypatch):
        monkeypatch.setenv("MAX_THINKING_TOKENS", "20000")
        h = make_harness([Reply([Text("hi")])], tools=[], model="claude-sonnet-4-5")
        await h.agent.run("hi")
        req = h.requests[0]
        assert req["thinking"] == {"type": "enabled", "budget_tokens": 20_000}
        assert req["max_tokens"] > 20_000
        assert "anthropic-beta" not in h.model.request_headers[0]  # no tools offered: no interleaving

    async def test_settings_always_thinking_enabled_turns_it_on_adaptive_on_a_4_6_model(self, make_harness, tmp_path):
        project = tmp_path / "work" / ".claude"
        project.mkdir(parents=True)
        (project / "settings.json").write_text(json.dumps({"alwaysThinkingEnabled": True}))
        h = make_harness([Reply([Text("hi")])], model="claude-sonnet-4-6")
        await h.agent.run("hi")
        assert h.requests[0]["thinking"] == {"type": "adaptive"}

    async def test_the_flag_zero_wins_over_the_environment_and_settings(self, make_harness, tmp_path, monkeypatch):
        monkeypatch.setenv("MAX_THINKING_TOKENS", "8000")
        home = Path(tmp_path / "home" / ".claude")
        home.mkdir(parents=True)
        (home / "settings.json").write_text(json.dumps({"alwaysThinkingEnabled": True}))
        h = make_harness([Reply([Text("hi")])], model="claude-sonnet-4-5", max_thinking_tokens=0)
        await h.agent.run("hi")
        assert "thinking" not in h.requests[0]

    async def test_a_bad_environment_value_is_named_and_thinking_stays_off(self, make_harness, monkeypatch):
        monkeypatch.setenv("MAX_THINKING_TOKENS", "lots")
        h = make_harness([Reply([Text("hi")])], model="claude-sonnet-4-5")
        await h.agent.run("hi")
        assert "thinking" not in h.requests[0]
        assert any("MAX_THINKING_TOKENS" in n.text for n in h.of(Notice))

    async def test_a_toggle_applies_from_the_next_run_not_inside_a_running_tool_loop(self, make_harness):
        h = make_harness([Reply([ToolUse("SleepRead", {"text": "a"})]), Reply([Text("one")]), Reply([Text("two")])],
                         tools=sample_tools(), model="claude-sonnet-4-5")
        run = asyncio.ensure_future(h.agent.run("first"))
        while not h.requests:
            await asyncio.sleep(0.001)
        assert h.agent.thinking.toggle() is True
        await run
        assert [thinking_of(r) for r in h.requests] == [None, None]
        await h.agent.run("second")
        assert thinking_of(h.requests[2]) == {"type": "enabled", "budget_tokens": 31_999}


class TestTheMapping:
    def test_precedence_flag_then_environment_then_settings(self):
        assert choose(max_thinking_tokens=3000, env={"MAX_THINKING_TOKENS": "0"}, always_enabled=False) == ThinkingChoice(True, 3000, source="flag")
        assert choose(env={"MAX_THINKING_TOKENS": "0"}, always_enabled=True).on is False
        assert choose(env={}, always_enabled=True) == ThinkingChoice(True, source="settings")
        assert choose(thinking="disabled", max_thinking_tokens=4000, env={}).on is False
        assert choose(thinking="adaptive", env={}).adaptive is True
        with pytest.raises(ThinkingError, match="--thinking-display"):
            choose(display="loud", env={})

    def test_models_without_thinking_get_none_and_later_models_only_adaptive(self):
        on = ThinkingChoice(True, 2000)
        assert thinking_config(on, "claude-3-5-haiku-20241022", 8192) == (None, 8192)
        assert thinking_config(on, "claude-opus-4-7", 16_000)[0] == {"type": "adaptive"}
        assert thinking_config(on, "claude-3-7-sonnet-20250219", 16_000)[0] == {"type": "enabled", "budget_tokens": 2000}
        assert thinking_config(ThinkingChoice(True, 500), "claude-sonnet-4-5", 16_000)[0] == {"type": "enabled", "budget_tokens": 1024}
        config, max_tokens = thinking_config(ThinkingChoice(True, 100_000), "claude-sonnet-4-5", 16_000)
        assert config["budget_tokens"] < max_tokens <= 64_000


class TestThinkingBlocksRoundTrip:
    def script(self):
        return [
            Reply([Thinking(THOUGHT, SIGNATURE), RedactedThinking(REDACTED), Text("Reading."), ToolUse("SleepRead", {"text": "a"}, id="toolu_1")], chunk=7),
            Reply([Thinking("Now answer.", "sig-2"), Text("Done.")]),
            Reply([Text("again")]),
        ]

    def expected_first(self) -> list[dict]:
        return [
            {"type": "thinking", "thinking": THOUGHT, "signature": SIGNATURE},
            {"type": "redacted_thinking", "data": REDACTED},
            {"type": "text", "text": "Reading."},
        ]

    async def test_thinking_signature_and_redacted_blocks_go_back_byte_for_byte(self, make_harness):
        h = make_harness(self.script(), tools=sample_tools(), model="claude-sonnet-4-5", max_thinking_tokens=4000)
        ended = await h.agent.run("go")
        assert ended.reason == "completed"
        sent = h.requests[1]["messages"][1]
        assert sent["role"] == "assistant"
        assert json.dumps(sent["content"][:3]) == json.dumps(self.expected_first())
        assert sent["content"][3]["type"] == "tool_use" and sent["content"][3]["id"] == "toolu_1"
        assert "".join(e.text for e in h.of(ThinkingDelta))[: len(THOUGHT)] == THOUGHT

    async def test_they_survive_the_transcript_and_a_resume(self, make_harness):
        h = make_harness(self.script()[:2], tools=sample_tools(), model="claude-sonnet-4-5", max_thinking_tokens=4000)
        await h.agent.run("go")
        await h.agent.close()
        conv = load(h.agent.session.transcript_path)
        assert conv.history == h.agent.history
        h2 = make_harness([Reply([Text("again")])], tools=sample_tools(), model="claude-sonnet-4-5",
                          max_thinking_tokens=4000, resume=h.agent.session.id)
        await h2.agent.run("more")
        await h2.agent.close()
        resent = h2.requests[0]["messages"]
        assert json.dumps(resent[1]["content"][:3]) == json.dumps(self.expected_first())
        assert resent[3]["content"][0] == {"type": "thinking", "thinking": "Now answer.", "signature": "sig-2"}
        assert_history_valid(h2.agent.history)


class TestEscDuringThinking:
    async def abort_on(self, h, predicate) -> None:
        while not predicate():
            await asyncio.sleep(0.001)
        h.agent.abort()

    async def test_esc_mid_thinking_drops_the_unsigned_block_and_the_next_request_is_valid(self, make_harness):
        h = make_harness([Reply([Thinking("x" * 400, "sig"), Text("never")], chunk=10, hang_after=8), Reply([Text("ok")])],
                         model="claude-sonnet-4-5", max_thinking_tokens=4000)
        run = asyncio.ensure_future(h.agent.run("go"))
        await self.abort_on(h, lambda: len(h.of(ThinkingDelta)) >= 3)
        ended = await run
        assert ended.reason == "aborted"
        assert [m["role"] for m in h.agent.history] == ["user", "user"]  # no assistant message: thinking alone is no answer
        assert_history_valid(h.agent.history)
        await h.agent.run("again")
        assert_history_valid(h.agent.history)
        assert not any(b.get("type") == "thinking" for m in h.requests[1]["messages"] for b in m["content"])

    async def test_esc_after_the_signature_keeps_the_signed_block_with_the_partial_text(self, make_harness):
        # Events: message_start, ping, thinking start, 1 delta, signature, stop, text start, 2 deltas → hang.
        h = make_harness([Reply([Thinking("plan", "sig-keep"), Text("partial answer that goes on")], chunk=8, hang_after=9), Reply([Text("ok")])],
                         model="claude-sonnet-4-5", max_thinking_tokens=4000)
        run = asyncio.ensure_future(h.agent.run("go"))
        await self.abort_on(h, lambda: _text_seen(h))
        await run
        assistant = h.agent.history[1]
        assert assistant["content"][0] == {"type": "thinking", "thinking": "plan", "signature": "sig-keep"}
        assert assistant["content"][1]["type"] == "text" and assistant["content"][1]["text"].startswith("partial")
        assert_history_valid(h.agent.history)


def _text_seen(h) -> bool:
    from tui_agent.core.events import TextDelta

    return len(h.of(TextDelta)) >= 2


def test_an_aborted_response_of_signed_thinking_alone_leaves_no_assistant_message():
    """ESC right after a thinking block closed, before any answer: the API strips past thinking, so
    keeping it would leave an empty assistant message; a complete answer keeps it."""
    from types import SimpleNamespace as NS

    from tui_agent.core.model import MessageAssembler

    a = MessageAssembler(lambda *x: None, lambda *x: None, lambda *x: None)
    a.feed(NS(type="content_block_start", index=0, content_block=NS(type="thinking", signature="")))
    a.feed(NS(type="content_block_delta", index=0, delta=NS(type="thinking_delta", thinking="plan")))
    a.feed(NS(type="content_block_delta", index=0, delta=NS(type="signature_delta", signature="sig")))
    a.feed(NS(type="content_block_stop", index=0))
    a.feed(NS(type="content_block_start", index=1, content_block=NS(type="redacted_thinking", data="enc")))
    a.feed(NS(type="content_block_stop", index=1))
    assert a.content(complete_only=True) == []
    assert a.content() == [{"type": "thinking", "thinking": "plan", "signature": "sig"}, {"type": "redacted_thinking", "data": "enc"}]


def thinking_turn() -> list[Reply]:
    return [
        Reply([Thinking("step one, then two", "sig-a"), RedactedThinking("ENC=="), Text("Reading."), ToolUse("SleepRead", {"text": "a"}, id="r1")], chunk=5),
        Reply([Thinking("now answer", "sig-b"), Text("Done here.")], chunk=5),
        Reply([Text("next prompt answered")]),
    ]


def thinking_is_whole(history: list[dict]) -> None:
    for message in history:
        content = message["content"]
        if message["role"] != "assistant" or isinstance(content, str):
            continue
        assert any(b["type"] not in ("thinking", "redacted_thinking") for b in content), "thinking alone is no answer"
        for b in content:
            if b["type"] == "thinking":
                assert b["signature"] and set(b) == {"type", "thinking", "signature"}


@pytest.mark.parametrize("same_tick", [True, False], ids=["inside-the-event", "the-tick-after"])
async def test_an_abort_at_every_event_of_a_thinking_turn_leaves_whole_thinking_and_a_valid_history(make_harness, same_tick):
    async def run(at: int | None) -> tuple[int, list[dict], list[dict]]:
        h = make_harness(thinking_turn(), tools=sample_tools(), model="claude-sonnet-4-5", max_thinking_tokens=4000)
        seen = [0]
        loop = asyncio.get_running_loop()

        first_run = [True]

        def abort() -> None:
            if first_run[0]:  # a tick-after abort must not reach the next run
                h.agent.abort()

        def emit(e) -> None:
            h.events.append(e)
            seen[0] += 1
            if seen[0] == at:
                abort() if same_tick else loop.call_soon(abort)

        h.agent.emit = emit
        await h.agent.run("go")
        history, first, sent = list(h.agent.history), seen[0], len(h.requests)
        first_run[0] = False
        seen[0] = -10**6  # no abort in the next run
        await h.agent.run("again")  # the next request is built from what the abort left
        await h.agent.close()
        return first, history, h.requests[sent:]

    total, _, _ = await run(None)
    for at in range(1, total):
        _, history, requests = await run(at)
        assert_history_valid(history)
        thinking_is_whole(history)
        last = requests[0]["messages"]
        assert last[-1]["role"] == "user" and last[-1]["content"][-1].get("text") == "again", (at, last[-1], history)


async def test_thinking_switched_on_after_an_interrupted_tool_call_waits_for_a_request_the_api_accepts(make_harness):
    """The prompt after an ESC rides in the same user message as the cancelled call's result, so the API
    sees a tool loop whose assistant message did not start with thinking: that request goes without."""
    h = make_harness([Reply([ToolUse("SleepRead", {"seconds": 30, "text": "a"}, id="slow")]),
                      Reply([Thinking("ok", "sig"), ToolUse("SleepRead", {"text": "b"}, id="fast")]), Reply([Text("done")])],
                     tools=sample_tools(), model="claude-sonnet-4-5")
    run = asyncio.ensure_future(h.agent.run("first"))
    while not h.agent.running or h.agent._executor is None or not h.agent._executor.has_tools:
        await asyncio.sleep(0.001)
    h.agent.abort()
    await run
    h.agent.thinking.set(True)
    await h.agent.run("again")
    assert [thinking_of(r) is not None for r in h.requests] == [False, False, True]
    assert_history_valid(h.agent.history)
