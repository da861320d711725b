"""Findings 1-3 of issue 10: an abort always lands, and a failed attempt never hides or repeats a tool."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.core.support import SleepInput, SleepRead, assert_history_valid, sample_tools
from tui_agent.core.attempt import CUT_NOTE
from tui_agent.core.events import LoopEnded, PermissionAsked, Retrying, ToolFinished, ToolQueued, ToolStarted
from tui_agent.core.permission_types import PermissionAnswer
from tui_agent.providers.scripted import Reply, Text, ToolUse
from tui_agent.tools.base import ToolOutput
from tui_agent.tools.processes import KILL_GRACE_S


class Stubborn(SleepRead):
    """A tool that ignores its cancel for a while (a blocking library call, a buggy tool)."""

    name = "Stubborn"
    aliases = ()

    async def call(self, input: SleepInput, ctx: Any) -> ToolOutput:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            await asyncio.sleep(3)
        return ToolOutput("too late")


def abort_when(h, kind: type, later: bool = True) -> None:
    """Abort the run at the event `kind`: in the next callback of the loop (`later`) or right inside."""
    loop = asyncio.get_running_loop()
    fired: list[bool] = []

    def emit(event: Any) -> None:
        h.events.append(event)
        if isinstance(event, kind) and not fired:
            fired.append(True)
            loop.call_soon(h.agent.abort) if later else h.agent.abort()

    h.agent.emit = emit


def one_final_state_per_tool(h) -> None:
    queued = [e.id for e in h.of(ToolQueued)]
    finished = [e.id for e in h.of(ToolFinished)]
    assert sorted(queued) == sorted(finished), "every queued tool ends exactly once"
    assert {e.id for e in h.of(ToolStarted)} <= set(finished), "every started lane gets a final state"


class TestAbortAlwaysLands:
    async def test_abort_in_the_tick_a_tool_is_queued_ends_the_run(self, make_harness):
        # The abort runs before the tool's freshly created task has taken its first step.
        h = make_harness([Reply([ToolUse("SleepRead", {"seconds": 5}, id="a"), Text("more " * 50)], chunk=5)], tools=sample_tools())
        abort_when(h, ToolQueued)
        ended = await asyncio.wait_for(h.agent.run("go"), 30)
        assert ended.reason == "aborted"
        one_final_state_per_tool(h)
        assert_history_valid(h.agent.history)
        result = h.agent.history[2]["content"][0]
        assert result["tool_use_id"] == "a" and result["is_error"]

    async def test_an_answer_that_arrives_after_the_abort_never_starts_the_tool(self, make_harness):
        async def ask(request):  # a dialog that says "yes" as it is torn down
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                return PermissionAnswer("allow")

        h = make_harness([Reply([ToolUse("SleepWrite", {"text": "w"}, id="w")])], tools=sample_tools(), ask=ask)
        abort_when(h, PermissionAsked)
        ended = await asyncio.wait_for(h.agent.run("go"), 30)
        assert ended.reason == "aborted"
        assert not h.of(ToolStarted)
        one_final_state_per_tool(h)
        assert_history_valid(h.agent.history)

    async def test_a_tool_that_ignores_its_cancel_cannot_hold_the_run(self, make_harness):
        h = make_harness([Reply([ToolUse("Stubborn", {}, id="s")])], tools=[*sample_tools(), Stubborn()])
        abort_when(h, ToolStarted)
        ended = await asyncio.wait_for(h.agent.run("go"), 30)
        assert ended.reason == "aborted"
        # The stubborn tool would take 3 s more; the run ends at the kill grace plus a little.
        assert ended.duration_ms / 1000 < KILL_GRACE_S + 1.5
        one_final_state_per_tool(h)
        assert h.agent.history[2]["content"][0]["is_error"]


class TestFailedAttempts:
    async def test_abort_during_the_retry_back_off_leaves_a_valid_history(self, make_harness):
        h = make_harness(
            [Reply([ToolUse("SleepRead", {"text": "r"}, id="x"), Text("cut " * 40)], chunk=4, delay=0.002, error_after=12), Reply([Text("never")])],
            tools=sample_tools(),
        )
        h.agent.model.config.retry_base_delay = 30  # ESC lands during the back-off
        abort_when(h, Retrying)
        ended = await asyncio.wait_for(h.agent.run("go"), 30)
        assert ended.reason == "aborted"
        assert_history_valid(h.agent.history)
        ids = {b.get("tool_use_id") for m in h.agent.history if isinstance(m["content"], list) for b in m["content"]}
        assert "x" not in ids, "no result for a tool_use that is not in the history"
        one_final_state_per_tool(h)

    async def test_a_discarded_attempts_lanes_all_end_before_the_retry(self, make_harness):
        h = make_harness(
            [Reply([ToolUse("SleepRead", {"seconds": 5}, id="x"), Text("cut " * 40)], chunk=4, delay=0.002, drop_after=14), Reply([Text("done")])],
            tools=sample_tools(),
        )
        ended = await asyncio.wait_for(h.agent.run("go"), 30)
        assert ended.result == "done" and len(h.requests) == 2
        assert [e.status for e in h.of(ToolFinished)] == ["cancelled"]
        one_final_state_per_tool(h)
        assert_history_valid(h.agent.history)

    async def test_a_tool_with_effects_that_ran_is_kept_and_reported_not_repeated(self, make_harness):
        h = make_harness(
            [
                Reply([Text("Writing."), ToolUse("SleepWrite", {"text": "wrote it"}, id="w"), Text("and then " * 40)],
                      chunk=4, delay=0.003, drop_after=30),
                Reply([Text("done")]),
            ],
            tools=sample_tools(),
            allowed_tools=["SleepWrite"],
        )
        ended = await asyncio.wait_for(h.agent.run("go"), 30)
        assert ended.reason == "completed" and ended.result == "done"
        assert [e.id for e in h.of(ToolStarted)] == ["w"], "the tool ran once"
        assert not h.of(Retrying), "the kept attempt replaces the retry"
        history = h.agent.history
        assert history[1] == {"role": "assistant", "content": [
            {"type": "text", "text": "Writing."},
            {"type": "tool_use", "id": "w", "name": "SleepWrite", "input": {"text": "wrote it"}},
        ]}, "complete blocks are kept, the half-streamed one is dropped"
        assert history[2]["content"] == [
            {"type": "tool_result", "tool_use_id": "w", "content": "wrote it"},
            {"type": "text", "text": CUT_NOTE},
        ]
        assert h.requests[1]["messages"][-1]["content"][0]["tool_use_id"] == "w", "the model learns what ran"
        assert_history_valid(history)
        one_final_state_per_tool(h)
        assert isinstance(h.events[-1], LoopEnded)
        recorded = [line["data"] for line in h.agent.session.read() if line["type"] == "system"]
        assert recorded and recorded[0]["subtype"] == "response_cut" and "connection dropped" in recorded[0]["detail"]
