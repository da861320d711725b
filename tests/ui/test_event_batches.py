"""Core events reach the app in batches: text deltas joined, nothing lost or reordered, at most one post a frame."""

from __future__ import annotations

import asyncio
import queue
import random
import threading
import time

from tui_agent.core.events import Event, Notice, TextDelta, ThinkingDelta, ToolStarted
from tui_agent.ui.messages import AgentEvents, EventBatcher


def _stream(rng: random.Random, count: int) -> list[Event]:
    events: list[Event] = []
    for n in range(count):
        roll = rng.random()
        if roll < 0.6:
            events.append(TextDelta(f"t{n};", rng.choice((0, 0, 1))))
        elif roll < 0.8:
            events.append(ThinkingDelta(f"h{n};", 0))
        elif roll < 0.9:
            events.append(ToolStarted(f"tool{n}", "Bash", 0, 0.0))
        else:
            events.append(Notice("info", f"n{n}"))
    return events


def _canonical(events: list[Event]) -> list[tuple[str, object, str]]:
    """The events with runs of deltas of one kind and block joined: what must arrive, in order."""
    out: list[tuple[str, object, str]] = []
    for event in events:
        if isinstance(event, (TextDelta, ThinkingDelta)):
            key = (type(event).__name__, event.index)
            if out and out[-1][:2] == key:
                out[-1] = (*key, out[-1][2] + event.text)
            else:
                out.append((*key, event.text))
        else:
            out.append((type(event).__name__, repr(event), ""))
    return out


def test_batches_taken_while_events_stream_lose_and_reorder_nothing() -> None:
    rng = random.Random(11)
    sent = _stream(rng, 20_000)
    posted: queue.Queue[AgentEvents] = queue.Queue()
    batcher = EventBatcher(posted.put, min_gap=0)
    received: list[Event] = []

    def ui() -> None:  # takes batches as they come, like the app's message loop
        while True:
            message = posted.get(timeout=30)
            received.extend(batcher.take(message))
            if received and received[-1] is DONE:
                return

    DONE = Notice("info", "done")
    reader = threading.Thread(target=ui)
    reader.start()
    for event in sent:
        batcher(event)
    batcher(DONE)
    reader.join(60)
    assert not reader.is_alive()
    assert received.pop() is DONE
    assert _canonical(received) == _canonical(sent)
    assert "".join(e.text for e in received if isinstance(e, TextDelta) and e.index == 0) == "".join(
        e.text for e in sent if isinstance(e, TextDelta) and e.index == 0
    )
    assert len(received) < len(sent), "consecutive deltas of one block were joined"


def test_a_text_delta_after_another_block_is_not_joined_across_it() -> None:
    posted: list[AgentEvents] = []
    batcher = EventBatcher(posted.append, min_gap=0)
    for event in (TextDelta("a", 0), TextDelta("b", 0), ThinkingDelta("x", 0), TextDelta("c", 0), TextDelta("d", 1), TextDelta("e", 1)):
        batcher(event)
    assert len(posted) == 1
    assert batcher.take(posted[0]) == [TextDelta("ab", 0), ThinkingDelta("x", 0), TextDelta("c", 0), TextDelta("de", 1)]
    batcher(TextDelta("f", 1))  # a new batch: the taken one is not touched again
    assert posted[0].events[-1] == TextDelta("de", 1)
    assert batcher.take(posted[1]) == [TextDelta("f", 1)]


def test_batches_are_posted_at_most_once_a_frame_from_the_core_loop() -> None:
    posted: list[AgentEvents] = []
    gap = 0.02

    async def stream() -> float:
        batcher = EventBatcher(posted.append, min_gap=gap)
        started = time.monotonic()
        for n in range(400):
            batcher(TextDelta(f"{n};"))
            if posted:
                batcher.take(posted[-1])  # the app takes each batch at once
            await asyncio.sleep(0.0005)
        await asyncio.sleep(2 * gap)  # the last batch's delayed post
        if posted:
            batcher.take(posted[-1])
        return time.monotonic() - started

    elapsed = asyncio.run(stream())
    assert len(posted) <= elapsed / gap + 2, (len(posted), elapsed)
    assert "".join(e.text for m in posted for e in m.events) == "".join(f"{n};" for n in range(400))  # type: ignore[attr-defined]
