"""Textual messages that carry the core's events into the app (and the terminal's end, `TerminalSignal`).

The loop emits events synchronously from its coroutines, up to thousands a second while text streams.
Posting one message per event would flood the message queue, so events are gathered into a batch: the
first event after a delivery posts an `AgentEvents` message holding a list, and later events join that
same list until the app handles it. However fast the stream, the app wakes once per batch. The core
emits from its own thread (ui/agent_runner.py): a lock keeps a batch from being closed while it grows.
"""

from __future__ import annotations

import threading
from typing import Callable

from textual.message import Message

from ..core.events import Event


class AgentEvents(Message):
    """A batch of core events, in the order they happened."""

    def __init__(self, events: list[Event]) -> None:
        super().__init__()
        self.events = events


class EventBatcher:
    """The agent's `emit` callback: gathers events into batches posted with `post`."""

    def __init__(self, post: Callable[[Message], object]) -> None:
        self._post = post
        self._open: list[Event] | None = None
        self._lock = threading.Lock()

    def __call__(self, event: Event) -> None:
        with self._lock:
            if self._open is None:
                self._open = []
                self._post(AgentEvents(self._open))  # thread-safe in Textual; in order, under the lock
            self._open.append(event)

    def take(self, message: AgentEvents) -> list[Event]:
        """Close the batch `message` holds (later events start a new one) and return its events."""
        with self._lock:
            if self._open is message.events:
                self._open = None
        return message.events


class TerminalSignal(Message):
    """The terminal hung up (SIGHUP, or its input or output ended), or SIGTERM asked us to end."""

    def __init__(self, signum: int) -> None:
        super().__init__()
        self.signum = signum
