"""The streaming executor and abort (DESIGN §1.7-1.9, §2), through the real SDK and the scripted model."""

from __future__ import annotations

import asyncio
import random

import pytest

from tests.core.support import assert_history_valid, sample_tools
from tui_agent.core.events import LoopEnded, PermissionAsked, TextDelta, ToolFinished, ToolQueued, ToolStarted
from tui_agent.core.permission_types import PermissionAnswer
from tui_agent.providers.scripted import Reply, Text, ToolUse


def spans(h):
    """tool_use id -> (start, end, lane, status) from the events."""
    started = {e.id: e for e in h.of(ToolStarted)}
    return {e.id: (started[e.id].t if e.id in started else None, e.t_end, e.lane, e.status) for e in h.of(ToolFinished)}


def abort_after(h, seconds: float) -> asyncio.TimerHandle:
    return asyncio.get_running_loop().call_later(seconds, h.agent.abort)


def on_event(h, matches, action) -> None:
    """Call `action` (soon, on the loop) the first time an emitted event `matches`: a state to act on,
    not a moment on the clock, so a slow machine changes nothing."""
    emit, fired = h.agent.emit, []

    def watching(event) -> None:
        emit(event)
        if not fired and matches(event):
            fired.append(event)
            asyncio.get_running_loop().call_soon(action)

    h.agent.emit = watching


class TestStreamingStart:
    async def test_a_tool_starts_at_its_block_stop_while_the_model_still_streams(self, make_harness):
        h = make_harness(
            [Reply([ToolUse("SleepRead", {"text": "x"}, id="a"), Text("still talking")], tail_delay=0.5), Reply([Text("ok")])],
            tools=sample_tools(),
        )
        await h.agent.run("go")
        start, end, _, _ = spans(h)["a"]
        assert end < h.model.response_end_times[0], "the tool finished before the response did"

    async def test_tools_arriving_apart_overlap_with_the_stream(self, make_harness):
        h = make_harness(
            [
                Reply(
                    [ToolUse("SleepRead", {"seconds": 0.3, "text": "1"}, id="a"), ToolUse("SleepRead", {"seconds": 0.3, "text": "2"}, id="b")],
                    block_delays={1: 0.3},
                    tail_delay=0.3,
                ),
                Reply([Text("ok")]),
            ],
            tools=sample_tools(),
        )
        await h.agent.run("go")
        # Each started while the response was still streaming (not after message_stop).
        started = {e.id: e.t for e in h.of(ToolStarted)}
        assert started["a"] < started["b"] < h.model.response_end_times[0]


class TestConcurrency:
    async def test_an_unsafe_tool_is_a_barrier_in_queue_order(self, make_harness):
        h = make_harness(
            [
                Reply([
                    ToolUse("SleepRead", {"seconds": 0.2}, id="r1"),
                    ToolUse("SleepWrite", {"seconds": 0.1}, id="w"),
                    ToolUse("SleepRead", {"seconds": 0.05}, id="r2"),
                ]),
                Reply([Text("ok")]),
            ],
            tools=sample_tools(),
            allowed_tools=["SleepWrite"],
        )
        await h.agent.run("go")
        s = spans(h)
        assert s["w"][0] >= s["r1"][1], "the writer waits for the running reader"
        assert s["r2"][0] >= s["w"][1], "the reader behind the writer waits for it"

    async def test_safe_tools_run_together(self, make_harness):
        h = make_harness(
            [Reply([ToolUse("SleepRead", {"seconds": 0.2}, id=f"r{i}") for i in range(4)]), Reply([Text("ok")])],
            tools=sample_tools(),
        )
        await h.agent.run("go")
        s = spans(h)
        assert max(v[0] for v in s.values()) < min(v[1] for v in s.values()), "all four overlapped"
        assert sorted(v[2] for v in s.values()) == [0, 1, 2, 3]

    async def test_the_concurrency_cap_holds_and_lanes_are_reused(self, make_harness):
        n = 7
        h = make_harness(
            [Reply([ToolUse("SleepRead", {"seconds": 0.05 + 0.02 * (i % 3)}, id=f"r{i}") for i in range(n)]), Reply([Text("ok")])],
            tools=sample_tools(),
            max_concurrency=2,
        )
        await h.agent.run("go")
        running, peak = 0, 0
        for e in h.events:
            if isinstance(e, ToolStarted):
                running += 1
                peak = max(peak, running)
            elif isinstance(e, ToolFinished) and e.lane >= 0:
                running -= 1
        assert peak == 2
        assert {e.lane for e in h.of(ToolStarted)} == {0, 1}
        assert len(h.of(ToolStarted)) == n

    async def test_results_keep_tool_use_order_whatever_order_tools_finish_in(self, make_harness):
        rng = random.Random(7)
        ids = [f"t{i}" for i in range(8)]
        blocks = [ToolUse("SleepRead", {"seconds": rng.random() * 0.15, "text": i}, id=i) for i in ids]
        h = make_harness([Reply(blocks), Reply([Text("ok")])], tools=sample_tools())
        await h.agent.run("go")
        finish_order = [e.id for e in h.of(ToolFinished)]
        assert finish_order != ids, "the tools really finished out of order"
        results = h.agent.history[2]["content"]
        assert [r["tool_use_id"] for r in results] == ids
        assert [r["content"] for r in results] == ids

    async def test_a_writer_waiting_for_its_answer_does_not_hold_up_safe_tools_behind_it(self, make_harness):
        gate = asyncio.Event()

        async def ask(request):
            await gate.wait()
            return PermissionAnswer("allow_once")

        h = make_harness(
            [
                Reply([ToolUse("SleepWrite", {"text": "w"}, id="w"), ToolUse("SleepRead", {"seconds": 0.05, "text": "r"}, id="r"), ToolUse("SleepWrite", {"text": "w2"}, id="w2")]),
                Reply([Text("ok")]),
            ],
            tools=sample_tools(),
            ask=ask,
        )
        on_event(h, lambda e: isinstance(e, ToolFinished) and e.id == "r", gate.set)
        await h.agent.run("go")
        s = spans(h)
        assert s["r"][1] < s["w"][0], "the reader ran while the writer waited for its answer"
        assert s["w2"][0] >= s["w"][1], "the second writer waited behind the first"

    async def test_a_writer_refused_after_the_others_ended_lets_the_writer_behind_it_run(self, make_harness):
        """A writer waiting for its answer holds back the writers behind it; when its answer (a refusal) comes
        after everything running has ended, nothing ends after it to look at the queue again: its own end
        must. (Found as a hung SDK session: the program's refusal arrived late on a loaded machine.)"""
        gate = asyncio.Event()

        async def ask(request):
            if request.tool_use_id == "asked":
                await gate.wait()
                return PermissionAnswer("deny")
            return PermissionAnswer("allow_once")

        h = make_harness(
            [
                Reply([ToolUse("SleepWrite", {"seconds": 0.01, "text": "w1"}, id="w1"), ToolUse("SleepWrite", {"text": "no"}, id="asked"),
                       ToolUse("SleepWrite", {"text": "w3"}, id="w3")]),
                Reply([Text("ok")]),
            ],
            tools=sample_tools(),
            ask=ask,
        )
        on_event(h, lambda e: isinstance(e, ToolFinished) and e.id == "w1", gate.set)
        ended = await asyncio.wait_for(h.agent.run("go"), 30)  # the old code waited here forever: fail instead
        assert ended.reason == "completed"
        s = spans(h)
        assert s["asked"][3] == "denied" and s["asked"][0] is None
        assert s["w3"][3] == "ok" and s["w3"][0] >= s["w1"][1]
        assert [r["content"] for r in h.agent.history[2]["content"] if r["tool_use_id"] == "w3"] == ["w3"]

    async def test_an_error_in_is_concurrency_safe_means_unsafe(self, make_harness):
        from tests.core.support import SleepRead

        class Flaky(SleepRead):
            name = "Flaky"
            aliases = ()

            def is_concurrency_safe(self, input):
                raise ValueError("cannot tell")

        h = make_harness([Reply([ToolUse("Flaky", {"text": "x"})]), Reply([Text("ok")])], tools=[*sample_tools(), Flaky()])
        await h.agent.run("go")
        assert h.of(ToolQueued)[0].safe is False


class TestAbort:
    async def test_abort_while_text_streams_keeps_the_text_so_far_and_ends_valid(self, make_harness):
        h = make_harness([Reply([Text("word " * 200)], chunk=5, delay=0.005)], tools=sample_tools())
        on_event(h, lambda e: isinstance(e, TextDelta), h.agent.abort)
        ended = await h.agent.run("go")
        assert ended.reason == "aborted"
        assistant = h.agent.history[1]
        streamed = "".join(d.text for d in h.of(TextDelta))
        assert assistant["content"] == [{"type": "text", "text": streamed}] and 0 < len(streamed) < 1000
        assert h.agent.history[-1]["content"][-1]["text"] == "[Request interrupted by user]"
        assert_history_valid(h.agent.history)

    async def test_a_half_streamed_tool_use_is_dropped_never_run(self, make_harness):
        h = make_harness([Reply([Text("a"), ToolUse("SleepRead", {"text": "x" * 90})], hang_after=7)], tools=sample_tools())
        abort_after(h, 0.2)
        ended = await h.agent.run("go")
        assert ended.reason == "aborted"
        assert h.agent.history[1]["content"] == [{"type": "text", "text": "a"}]
        assert not h.of(ToolQueued)
        assert_history_valid(h.agent.history)

    async def test_abort_while_tools_run_interrupts_them_and_starts_none_of_the_queued(self, make_harness):
        h = make_harness(
            [Reply([
                ToolUse("SleepRead", {"seconds": 0.0, "text": "quick"}, id="done"),
                ToolUse("SleepRead", {"seconds": 120}, id="slow"),
                ToolUse("SleepWrite", {"seconds": 0}, id="queued"),
            ])],
            tools=sample_tools(),
            allowed_tools=["SleepWrite"],
        )
        on_event(h, lambda e: isinstance(e, ToolFinished) and e.id == "done", h.agent.abort)
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        ended = await h.agent.run("go")
        assert loop.time() - t0 < 60, "the slow tool was interrupted, not waited for"
        assert ended.reason == "aborted"
        results = {r["tool_use_id"]: r for r in h.agent.history[2]["content"] if r["type"] == "tool_result"}
        assert results["done"]["content"] == "quick" and "is_error" not in results["done"]
        assert results["slow"]["is_error"] and results["slow"]["content"].startswith("Interrupted by user after")
        assert "sleeping 120" in results["slow"]["content"], "partial output is kept"
        assert results["queued"]["is_error"] and "did not run" in results["queued"]["content"]
        assert "queued" not in {e.id for e in h.of(ToolStarted)}
        assert {e.id: e.status for e in h.of(ToolFinished)} == {"done": "ok", "slow": "cancelled", "queued": "cancelled"}
        assert_history_valid(h.agent.history)

    async def test_abort_while_a_permission_answer_is_awaited(self, make_harness):
        cancelled = []

        async def ask(request):
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                cancelled.append(request.tool_use_id)
                raise

        h = make_harness([Reply([ToolUse("SleepWrite", {"text": "w"}, id="w")])], tools=sample_tools(), ask=ask)
        on_event(h, lambda e: isinstance(e, PermissionAsked), h.agent.abort)
        ended = await h.agent.run("go")
        assert ended.reason == "aborted" and cancelled == ["w"]
        assert h.of(PermissionAsked)
        assert h.agent.history[2]["content"][0]["is_error"]
        assert_history_valid(h.agent.history)

    async def test_the_next_prompt_continues_the_same_conversation(self, make_harness):
        h = make_harness([Reply([ToolUse("SleepRead", {"seconds": 120}, id="s")]), Reply([Text("after")])], tools=sample_tools())
        on_event(h, lambda e: isinstance(e, ToolStarted), h.agent.abort)
        await h.agent.run("first")
        ended = await h.agent.run("second")
        assert ended.result == "after"
        sent = h.requests[-1]["messages"]
        assert [m["role"] for m in sent] == ["user", "assistant", "user"]
        assert [b.get("text") for b in sent[-1]["content"][1:]] == ["[Request interrupted by user]", "second"]
        assert_history_valid(h.agent.history)

    async def test_one_tool_can_be_cancelled_alone(self, make_harness):
        h = make_harness(
            [Reply([ToolUse("SleepRead", {"seconds": 120}, id="cancel-me"), ToolUse("SleepRead", {"seconds": 0.4, "text": "kept"}, id="keep")]), Reply([Text("ok")])],
            tools=sample_tools(),
        )
        on_event(h, lambda e: isinstance(e, ToolStarted) and e.id == "cancel-me", lambda: h.agent.cancel_tool("cancel-me"))
        ended = await h.agent.run("go")
        assert ended.reason == "completed"
        a, b = h.agent.history[2]["content"]
        assert a["is_error"] and a["content"].startswith("Cancelled by user")
        assert b["content"] == "kept"

    @pytest.mark.parametrize("seed", range(12))
    async def test_abort_at_a_random_moment_always_leaves_a_valid_history(self, make_harness, seed):
        rng = random.Random(seed)
        script = [
            Reply(
                [Text("thinking out loud " * 5), ToolUse("SleepRead", {"seconds": 0.1, "text": "a"}), ToolUse("SleepWrite", {"seconds": 0.1}),
                 Text("more"), ToolUse("SleepRead", {"seconds": 0.2, "text": "b"})],
                chunk=6,
                delay=0.004,
            ),
            Reply([ToolUse("SleepRead", {"seconds": 0.1, "text": "c"})], delay=0.01),
            Reply([Text("the end " * 10)], chunk=4, delay=0.004),
        ]
        h = make_harness(script, tools=sample_tools(), allowed_tools=["SleepWrite"])
        timer = abort_after(h, rng.uniform(0.0, 0.9))
        ended = await h.agent.run("go")
        timer.cancel()  # a run that ended before the moment: the abort is for it, not for the next one
        assert ended.reason in ("aborted", "completed")
        assert_history_valid(h.agent.history)
        assert isinstance(h.events[-1], LoopEnded)
        leftovers = [t for t in asyncio.all_tasks() if t is not asyncio.current_task() and "Executor" in repr(t.get_coro())]
        assert not leftovers
        again = await h.agent.run("next")
        assert again.reason == "completed"
        assert_history_valid(h.agent.history)
