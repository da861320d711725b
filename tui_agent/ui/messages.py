"""Textual messages that carry the core's events into the app (and the terminal's end, `TerminalSignal`).

The loop emits events synchronously from its coroutines, up to thousands a second while text streams.
Posting one message per event would flood the message queue, so events are gathered into a batch: the
first event after a delivery opens an `AgentEvents` batch, and later events join it until the app
takes it. A batch is posted at most once a frame (`MIN_POST_GAP`): however fast the stream, the UI
thread wakes at most ~60 times a second for it, and each wake-up costs the core's thread a hand-over
of the GIL too. Consecutive text (or thinking) deltas of one block are joined into one event, in
order, so the app appends one string per block and batch. The core emits from its own thread
(ui/agent_runner.py): a lock keeps a batch from being closed while it grows.
"""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import replace
from typing import Callable

from textual.message import Message

from ..core.events import Event, TextDelta, ThinkingDelta

MIN_POST_GAP = 1 / 60
"""Seconds between two posted batches at the least: one a frame of Textual's screen updates."""

_JOINED = (TextDelta, ThinkingDelta)


class AgentEvents(Message):
    """A batch of core events, in the order they happened."""

    def __init__(self, events: list[Event]) -> None:
        super().__init__()
        self.events = events


class EventBatcher:
    """The agent's `emit` callback: gathers events into batches posted with `post`."""

    def __init__(self, post: Callable[[Message], object], min_gap: float = MIN_POST_GAP) -> None:
        self._post = post
        self._min_gap = min_gap
        self._open: list[Event] | None = None
        self._posted = False  # whether the open batch has been posted
        self._last_post = -1e9
        self._parts: list[str] = []  # the text of the open batch's last event, while deltas join it
        self._lock = threading.Lock()

    def __call__(self, event: Event) -> None:
        with self._lock:
            events = self._open
            if events is None:
                events = self._open = []
                self._posted = False
                self._schedule_post()
            elif self._parts and type(event) in _JOINED:
                last = events[-1]
                if type(last) is type(event) and last.index == event.index:  # type: ignore[attr-defined]
                    self._parts.append(event.text)  # type: ignore[attr-defined]
                    return
            self._join_parts()
            events.append(event)
            if type(event) in _JOINED:
                self._parts = [event.text]  # type: ignore[attr-defined]

    def take(self, message: AgentEvents) -> list[Event]:
        """Close the batch `message` holds (later events start a new one) and return its events."""
        with self._lock:
            if self._open is message.events:
                self._join_parts()
                self._open = None
        return message.events

    def _join_parts(self) -> None:
        if len(self._parts) > 1 and self._open:
            last = self._open[-1]
            self._open[-1] = replace(last, text="".join(self._parts))  # type: ignore[type-var]
        self._parts = []

    def _schedule_post(self) -> None:
        wait = self._last_post + self._min_gap - time.monotonic()
        if wait > 0:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                loop = None
            if loop is not None:
                loop.call_later(wait, self._post_open)
                return
        self._post_locked()

    def _post_open(self) -> None:
        with self._lock:
            if self._open is not None and not self._posted:
                self._post_locked()

    def _post_locked(self) -> None:
        assert self._open is not None
        self._posted = True
        self._last_post = time.monotonic()
        self._post(AgentEvents(self._open))  # thread-safe in Textual; in order, under the lock


class TerminalSignal(Message):
    """The terminal hung up (SIGHUP, or its input or output ended), or SIGTERM asked us to end."""

    def __init__(self, signum: int) -> None:
        super().__init__()
        self.signum = signum
