"""The history repair: when the run itself is cancelled mid-tool (the app quitting, a driver's task
cancelled — not ESC), every tool_use of the last assistant message still gets exactly one result: the real
one when the tool had ended, else an is_error filler; the next request is one the API accepts."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from tests.core.support import assert_history_valid, sample_tools
from tui_agent.core.events import ToolFinished, ToolStarted
from tui_agent.core.history import history_problems, repair_message, results_message
from tui_agent.core.session import load
from tui_agent.providers.scripted import Reply, Text, ToolUse


def assistant(*ids: str) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "text", "text": "on it"}, *({"type": "tool_use", "id": i, "name": "T", "input": {}} for i in ids)]}


def result(tool_id: str, text: str = "ok") -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": tool_id, "content": text}


def test_a_tool_use_without_a_result_gets_an_error_filler_in_its_place() -> None:
    message = results_message(assistant("a", "b", "c"), [result("c", "C"), result("a", "A")], notes=["note"], missing="Stopped")
    blocks = message["content"]
    assert message["role"] == "user"
    assert [b.get("tool_use_id") for b in blocks] == ["a", "b", "c", None]
    assert blocks[0] == result("a", "A") and blocks[2] == result("c", "C")
    assert blocks[1]["is_error"] is True and "Stopped" in json.dumps(blocks[1]["content"])
    assert blocks[3] == {"type": "text", "text": "note"}


def test_a_result_without_its_tool_use_is_dropped() -> None:
    assert results_message(assistant("a"), [result("zz"), result("a")])["content"] == [result("a")]


def test_repair_fills_every_tool_use_and_keeps_a_known_result() -> None:
    history = [{"role": "user", "content": "go"}, assistant("a", "b")]
    message = repair_message(history, "Interrupted by user", known=lambda i: result(i, "real") if i == "a" else None)
    assert message is not None
    assert message["content"][0] == result("a", "real")
    assert message["content"][1]["tool_use_id"] == "b" and message["content"][1]["is_error"] is True
    assert not history_problems([*history, message])


def test_nothing_to_repair_without_a_pending_tool_use() -> None:
    assert repair_message([], "x") is None
    assert repair_message([{"role": "user", "content": "go"}], "x") is None
    assert repair_message([{"role": "user", "content": "go"}, {"role": "assistant", "content": [{"type": "text", "text": "hi"}]}], "x") is None


async def until_event(events: list[Any], predicate: Any) -> None:
    while not any(predicate(e) for e in events):
        await asyncio.sleep(0.005)


@pytest.mark.parametrize("finished_first", [False, True], ids=["one-tool-running", "one-ended-one-running"])
async def test_a_cancelled_run_leaves_each_tool_use_answered_and_the_next_request_valid(make_harness, finished_first: bool) -> None:
    uses = [ToolUse("SleepRead", {"seconds": 60, "text": "never"}, id="toolu_slow")]
    if finished_first:
        uses.insert(0, ToolUse("SleepRead", {"seconds": 0, "text": "quick answer"}, id="toolu_quick"))
    h = make_harness([Reply([Text("Looking."), *uses]), Reply([Text("Fresh start.")])], tools=sample_tools())
    task = asyncio.create_task(h.agent.run("first"))
    await asyncio.wait_for(until_event(h.events, lambda e: isinstance(e, ToolStarted) and e.id == "toolu_slow"), 60)
    if finished_first:
        await asyncio.wait_for(until_event(h.events, lambda e: isinstance(e, ToolFinished) and e.id == "toolu_quick"), 60)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    history = h.agent.history
    assert_history_valid(history)
    answer = history[-1]
    assert answer["role"] == "user" and answer["content"], "the results message is never empty"
    by_id = {b["tool_use_id"]: b for b in answer["content"] if b.get("type") == "tool_result"}
    assert set(by_id) == {u.id for u in uses}
    assert by_id["toolu_slow"]["is_error"] is True and "Interrupted by user" in json.dumps(by_id["toolu_slow"]["content"])
    if finished_first:
        assert "quick answer" in json.dumps(by_id["toolu_quick"]["content"]) and not by_id["toolu_quick"].get("is_error")

    ended = await asyncio.wait_for(h.agent.run("second"), 60)
    assert ended.reason == "completed" and ended.result == "Fresh start."
    sent = h.requests[-1]["messages"]
    assert not history_problems(sent)
    assert all(m["content"] for m in sent), "no message of the next request is empty"
    assert_history_valid(h.agent.history)
    # what a resume reads back is the same answered history
    assert_history_valid(load(h.agent.session.transcript_path).history)
