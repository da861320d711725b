"""ESC during compaction, at EVERY await point (the counting technique of test_abort_everywhere): the
compaction ends as aborted, the history is exactly as it was, the transcript has no boundary, and the
PreCompact hook's process is gone."""

from __future__ import annotations

import asyncio
import copy
import json
import random
import time
from pathlib import Path
from typing import Any, Awaitable, TypeVar

from tests.core.context.scripts import conversation, read_turn, summary_reply
from tests.core.support import assert_history_valid, sample_tools
from tests.core.test_abort_everywhere import _StepCounter, counting_task_factory, processes_with
from tui_agent.core.events import CompactionFinished, CompactionStarted
from tui_agent.core.history import INTERRUPT_NOTE
from tui_agent.providers.scripted import Reply, Text, fault

OLD = "o" * 8_000
T = TypeVar("T")


def _hook_settings(tmp_path: Path, tag: str) -> Path:
    settings = tmp_path / f"settings-{tag}.json"
    command = f"sleep 0.05 # {tag}\ncat > /dev/null"
    settings.write_text(json.dumps({"hooks": {"PreCompact": [{"matcher": "manual|auto", "hooks": [{"type": "command", "command": command}]}]}}))
    return settings


async def counting(counter: _StepCounter, work: Awaitable[T]) -> T:
    """`work`, with every task it creates counting its await points in `counter`."""
    loop = asyncio.get_running_loop()
    previous = loop.get_task_factory()
    loop.set_task_factory(counting_task_factory(counter))
    try:
        return await asyncio.wait_for(work, 60)
    finally:
        loop.set_task_factory(previous)


def _boundaries(h: Any) -> int:
    return sum(1 for l in h.agent.session.read() if l.get("subtype") == "compact_boundary")


async def _manual(make_harness, tmp_path: Path, step: int | None) -> dict[str, Any]:
    tag = f"pc{random.randrange(10**6):06d}"
    # The summary streams in pieces and its first attempt fails (a retry's wait is an await point too).
    summaries = [fault(529, "overloaded"), Reply(summary_reply().blocks, chunk=16, delay=0.001)]
    handler, seen = conversation([read_turn(OLD, 30_000), Reply([Text("answered")])], summary=lambda body, n: summaries[min(n, 1)])
    h = make_harness(handler, tools=sample_tools(), settings_file=_hook_settings(tmp_path, tag))
    assert (await h.agent.run("first")).reason == "completed"
    before = copy.deepcopy(h.agent.history)
    objects = list(h.agent.history)
    aborted = []

    def abort() -> None:
        if not aborted:
            aborted.append(h.agent.running)
            h.agent.abort()

    counter = _StepCounter(step, abort)
    finished = await counting(counter, h.agent.compact("keep the widget"))
    await h.agent.close()
    return {"h": h, "finished": finished, "before": before, "objects": objects, "steps": counter.steps, "aborted": bool(aborted and aborted[0]), "tag": tag}


def _no_process(tag: str) -> None:
    deadline = time.monotonic() + 5
    while processes_with(tag) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not processes_with(tag)


async def test_manual_compaction_without_abort_compacts(make_harness, tmp_path: Path) -> None:
    run = await _manual(make_harness, tmp_path, None)
    assert run["finished"].outcome == "compacted"
    assert _boundaries(run["h"]) == 1 and run["steps"] > 10


async def test_esc_at_every_await_point_of_a_compaction_leaves_the_history_as_it_was(make_harness, tmp_path: Path) -> None:
    total = (await _manual(make_harness, tmp_path, None))["steps"]
    hit = 0
    for step in range(1, total + 1):
        run = await _manual(make_harness, tmp_path, step)
        h, where = run["h"], f"abort at await point {step}/{total}"
        if run["aborted"]:
            hit += 1
            assert run["finished"].outcome == "aborted", where
            assert h.agent.history == run["before"], where
            assert all(a is b for a, b in zip(h.agent.history, run["objects"])), where
            assert _boundaries(h) == 0, where
        assert not h.agent.running, where
        assert_history_valid(h.agent.history)
        _no_process(run["tag"])
    assert hit >= total * 0.8


async def _auto(make_harness, step: int | None) -> dict[str, Any]:
    """A run whose second request is preceded by an automatic compaction; the abort at `step` is
    made only while that compaction is under way."""
    handler, seen = conversation(
        [read_turn(OLD, 166_000), Reply([Text("after")])],
        summary=lambda body, n: Reply(summary_reply().blocks, chunk=16, delay=0.001),
    )
    h = make_harness(handler, tools=sample_tools())
    snapshot: list[Any] = []

    def abort() -> None:
        compacting = h.of(CompactionStarted) and not h.of(CompactionFinished)
        if compacting and not snapshot:
            snapshot.append(copy.deepcopy(h.agent.history))
            h.agent.abort()

    counter = _StepCounter(step, abort)
    ended = await counting(counter, h.agent.run("go"))
    await h.agent.close()
    return {"h": h, "ended": ended, "steps": counter.steps, "snapshot": snapshot}


async def test_esc_during_an_automatic_compaction_ends_the_run_with_the_history_as_it_was(make_harness) -> None:
    total = (await _auto(make_harness, None))["steps"]
    inside = 0
    for step in range(1, total + 1):
        run = await _auto(make_harness, step)
        h, where = run["h"], f"abort at await point {step}/{total}"
        assert_history_valid(h.agent.history)
        if not run["snapshot"]:
            continue  # the abort point fell before the compaction started: not this test's case
        inside += 1
        assert run["ended"].reason == "aborted", where
        assert h.of(CompactionFinished)[-1].outcome == "aborted", where
        assert h.agent.history[:-1] == run["snapshot"][0], where
        assert h.agent.history[-1]["content"] == [{"type": "text", "text": INTERRUPT_NOTE}], where
        assert _boundaries(h) == 0, where
    assert inside >= 5, "the abort landed inside the compaction at several await points"
