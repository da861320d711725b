"""ESC at EVERY await point of a scripted turn (issue 10): the run ends within the limit, the history is
valid by the API's rules, every tool ends exactly once and no process is left.

The await points are enumerated, not sampled: every task created during the run is a pure-Python
task whose `__step` (one resumption of a coroutine: one await point passed) is counted, and a first
run without an abort gives their number. The turn is then replayed once per await point and aborted
right there. The core's events are enumerated too: an abort inside each event (the same tick) and in
the callback right after it (the instant a tool is queued, a permission is asked, a retry waits).

The turn: a first attempt fails midway after a read-only tool started (discarded, retry back-off);
the second streams a read-only tool, a writer that waits for a permission answer and a real shell
command; the third answers.
"""

from __future__ import annotations

import asyncio
import asyncio.tasks
import random
import time
from typing import Any, Callable

import psutil
import pytest

from tests.core.support import assert_history_valid, sample_tools
from tui_agent.core.events import LoopEnded, ToolFinished, ToolQueued, ToolStarted
from tui_agent.core.permission_types import PermissionAnswer
from tui_agent.providers.scripted import Reply, Text, ToolUse
from tui_agent.tools.bash import BashTool
from tui_agent.tools.processes import KILL_GRACE_S

# The limit from the issue (100 ms after the abort plus the process-kill grace), with room for a
# loaded machine: the point is "bounded", against runs that hang for ever or for a tool's whole life.
END_LIMIT_S = KILL_GRACE_S + 0.1 + 1.5


class _StepCounter:
    def __init__(self, at: int | None, action: Callable[[], None]) -> None:
        self.steps = 0
        self.at = at
        self.action = action

    def step(self) -> None:
        self.steps += 1
        if self.steps == self.at:
            self.action()


def counting_task_factory(counter: _StepCounter) -> Callable[..., asyncio.Task[Any]]:
    class CountingTask(asyncio.tasks._PyTask):  # type: ignore[name-defined,misc]
        def _Task__step(self, exc: BaseException | None = None) -> None:  # one await point resumes
            counter.step()
            super()._Task__step(exc)

    def factory(loop: asyncio.AbstractEventLoop, coro: Any, **kwargs: Any) -> asyncio.Task[Any]:
        return CountingTask(coro, loop=loop, **kwargs)

    return factory


def script(tag: str) -> list[Reply]:
    return [
        Reply([ToolUse("SleepRead", {"text": "early"}, id="r0"), Text("cut " * 6)], chunk=6, delay=0.001, error_after=8),
        Reply([
            Text("Working."),
            ToolUse("SleepRead", {"text": "read"}, id="r1"),
            ToolUse("SleepWrite", {"text": "wrote"}, id="w1"),
            ToolUse("Bash", {"command": f"sleep 0.2{tag}; echo done"}, id="b1"),
        ], chunk=8, delay=0.001),
        Reply([Text("All done.")]),
    ]


async def ask(request: Any) -> PermissionAnswer:
    for _ in range(3):  # the dialog takes a few await points to answer
        await asyncio.sleep(0)
    return PermissionAnswer("allow")


def processes_with(tag: str) -> list[int]:
    found = []
    for proc in psutil.process_iter(["cmdline", "status"]):
        if tag in " ".join(proc.info["cmdline"] or []) and proc.info["status"] != psutil.STATUS_ZOMBIE:
            found.append(proc.pid)
    return found


async def one_run(make_harness, *, step: int | None = None, event: int | None = None, same_tick: bool = True) -> dict[str, Any]:
    tag = f"{random.randrange(10**6):06d}"
    h = make_harness(script(tag), tools=[*sample_tools(), BashTool()], ask=ask, allowed_tools=["Bash"])
    await h.agent.model.client()
    loop = asyncio.get_running_loop()
    aborted_at: list[float] = []
    was_running: list[bool] = []

    def abort() -> None:
        if not aborted_at:
            aborted_at.append(time.monotonic())
            was_running.append(h.agent.running)
            h.agent.abort()

    events_seen = [0]

    def emit(e: Any) -> None:
        h.events.append(e)
        events_seen[0] += 1
        if events_seen[0] == event and not isinstance(e, LoopEnded):
            abort() if same_tick else loop.call_soon(abort)

    h.agent.emit = emit
    counter = _StepCounter(step, abort)
    previous = loop.get_task_factory()
    loop.set_task_factory(counting_task_factory(counter))
    try:
        ended = await asyncio.wait_for(h.agent.run("go"), 60)
    finally:
        loop.set_task_factory(previous)
    ended_at = time.monotonic()
    await h.agent.close()
    return {"h": h, "ended": ended, "steps": counter.steps, "events": events_seen[0], "tag": tag,
            "aborted_at": aborted_at[0] if aborted_at else None, "was_running": bool(was_running and was_running[0]),
            "ended_at": ended_at}


def check(run: dict[str, Any], where: str) -> None:
    h, ended = run["h"], run["ended"]
    if run["was_running"]:
        assert ended.reason == "aborted", f"{where}: {ended.reason} {ended.detail}"
        took = run["ended_at"] - run["aborted_at"]
        assert took < END_LIMIT_S, f"{where}: the run took {took:.2f}s to end after the abort"
    assert_history_valid(h.agent.history)
    queued = sorted(e.id for e in h.of(ToolQueued))
    finished = sorted(e.id for e in h.of(ToolFinished))
    assert queued == finished, f"{where}: every queued tool ends exactly once ({queued} vs {finished})"
    assert {e.id for e in h.of(ToolStarted)} <= set(finished), f"{where}: a started lane never ended"
    deadline = time.monotonic() + 5
    while processes_with(run["tag"]) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not processes_with(run["tag"]), f"{where}: a shell process was left running"


async def test_the_scripted_turn_without_abort_covers_every_state(make_harness):
    run = await one_run(make_harness)
    h = run["h"]
    assert run["ended"].reason == "completed" and run["ended"].result == "All done."
    names = {type(e).__name__ for e in h.events}
    assert {"Retrying", "PermissionAsked", "ToolQueued", "ToolStarted", "ToolFinished"} <= names
    assert run["steps"] > 20


async def test_an_abort_at_every_await_point_ends_valid(make_harness):
    full = await one_run(make_harness)
    total = full["steps"]
    hit = 0
    for step in range(1, total + 1):
        run = await one_run(make_harness, step=step)
        check(run, f"abort at await point {step}/{total}")
        hit += run["was_running"]
    assert hit >= total * 0.8, "the abort landed inside the run at (nearly) every await point"


@pytest.mark.parametrize("same_tick", [True, False], ids=["inside-the-event", "the-tick-after"])
async def test_an_abort_at_every_event_ends_valid(make_harness, same_tick):
    full = await one_run(make_harness)
    for event in range(1, full["events"]):
        run = await one_run(make_harness, event=event, same_tick=same_tick)
        check(run, f"abort at event {event}/{full['events']} ({type(run['h'].events[min(event, len(run['h'].events)) - 1]).__name__})")
