"""ESC at every await point of a Bash call keeps what the command printed before it was stopped.

The command prints two lines and touches a marker at once, then works for a long time. The call is
replayed once per await point passed after its lane started (counted as test_abort_everywhere.py counts
them), and aborted right there — but only once the shell has printed, whenever a shell exists by then
(the loop is held while it does), so every abort that lands after the fork finds output to keep. That
includes the window inside the spawn (the shell runs before `spawn_shell` returns): a stop there used to
kill the shell and drop what it had printed, which a busy machine hit now and then.
"""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path
from typing import Any

import psutil

from tests.core.support import assert_history_valid
from tests.core.test_abort_everywhere import _StepCounter, counting_task_factory
from tests.core.test_partial_output import bash_harness, results
from tui_agent.core.events import ToolStarted
from tui_agent.providers.scripted import ToolUse

SAFETY_NET_S = 30.0  # only a broken build waits this long: each wait below ends on a state


def _shell_started(marker: Path) -> bool:
    """A child of this process runs the call's bash (forked: its command names the call's marker)."""
    return any(p.name() == "bash" for p in _children(str(marker)))


def _children(*marks: str) -> list[psutil.Process]:
    """This process's living descendants whose command line holds one of `marks`: the call's own. The worker runs
    other tests' processes too, and one of their shells held a stop here for its 30 s safety net."""
    alive = []
    for p in psutil.Process().children(recursive=True):
        try:
            if p.status() != psutil.STATUS_ZOMBIE and any(mark in " ".join(p.cmdline()) for mark in marks):
                alive.append(p)
        except psutil.NoSuchProcess:
            pass
    return alive


async def one_call(make_harness: Any, work: Path, step: int | None) -> dict[str, Any]:
    """The call stopped at its `step`-th await point; with None (or when this run has fewer), stopped once it
    printed and every task is idle (waiting for the command), which counts the await points there are before
    the long wait."""
    work.mkdir()
    marker, tag = work / "printed", f"{random.randrange(10**6):06d}"
    # The sleep is found by its tag. It outlives every wait here: a stop that leaves it running fails the test
    # (with 30 s, as long as the safety nets, the run waited for it to end and passed).
    command = f"echo one; echo two; touch {marker}; sleep 300.{tag}"
    h = bash_harness(make_harness, [ToolUse("Bash", {"command": command}, id="b")])
    loop = asyncio.get_running_loop()
    aborted: list[bool] = []

    def abort() -> None:
        if _shell_started(marker):  # hold the loop until the shell has printed: the state this test is about
            deadline = time.monotonic() + SAFETY_NET_S
            while not marker.exists() and time.monotonic() < deadline:
                time.sleep(0.002)
        aborted.append(counter.steps)  # the await points passed before the stop
        h.agent.abort()

    counter = _StepCounter(None, abort)
    previous = loop.get_task_factory()
    loop.set_task_factory(counting_task_factory(counter))

    def emit(event: Any) -> None:
        h.events.append(event)
        if isinstance(event, ToolStarted):  # count the call's own await points from here
            counter.steps, counter.at = 0, step

    h.agent.emit = emit
    # Not a counted task (asyncio.Task, not the loop's factory): it does not move the count. With a `step`, it
    # stops the call if the count never gets there: a run may pass fewer await points than the one that counted
    # them (one read of the output where that run had two), and its stop then waited for the command's end.
    watcher = asyncio.Task(_stop_when_idle(counter, marker, lambda: None if aborted else abort()))
    try:
        ended = await asyncio.wait_for(h.agent.run("go"), SAFETY_NET_S * 2)
    finally:
        watcher.cancel()
        loop.set_task_factory(previous)
    await h.agent.close()
    return {"ended": ended, "result": results(h).get("b"), "printed": marker.exists(), "aborted": bool(aborted),
            "steps": aborted[0] if aborted else counter.steps, "history": h.agent.history,
            "marks": (str(marker), f"300.{tag}")}


async def _stop_when_idle(counter: _StepCounter, marker: Path, abort: Any) -> None:
    """Once the shell printed and no counted task has moved for many loop turns (all wait on the command)."""
    still = 0
    last = -1
    while still < 200:
        await asyncio.sleep(0)
        still = still + 1 if counter.steps == last and marker.exists() else 0
        last = counter.steps
    abort()


async def test_a_stop_at_every_await_point_of_a_bash_call_keeps_what_it_printed(make_harness, tmp_path):
    full = await one_call(make_harness, tmp_path / "full", step=None)
    assert full["aborted"] and full["printed"] and "one\ntwo" in full["result"]["content"]
    total = full["steps"]
    assert total > 5
    kept = 0
    for step in range(1, total + 2):  # the last is past them all: the idle watcher's stop
        run = await one_call(make_harness, tmp_path / f"s{step}", step)
        where = f"stop at await point {step}/{total}"
        assert run["aborted"], where
        assert run["ended"].reason == "aborted", f"{where}: {run['ended'].reason}"
        assert_history_valid(run["history"])
        result = run["result"]
        assert result is not None and result["is_error"], where
        if run["printed"]:  # it printed before it was stopped: the model gets it
            assert "one\ntwo" in result["content"], f"{where}: {result['content']!r}"
            kept += 1
        deadline = time.monotonic() + SAFETY_NET_S
        while _children(*run["marks"]) and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        assert not _children(*run["marks"]), f"{where}: a process was left running"
    assert kept >= total // 2, "most stops landed after the shell printed"
