"""stdout and stderr for the headless front ends (`-p` and the SDK protocol), for readers that go away.

`tui-agent -p ... | head -1`: `head` reads one line and closes the pipe, and the next plain write raises
BrokenPipeError out of whatever event was being printed. Here instead, SIGPIPE semantics without the
signal: the first write that finds the reader gone is noticed once and `on_closed` lets the front end stop
the run (abort it, so its tools are killed and the transcript ends valid) and exit 0, as `head` expects of
the writer it stopped reading. The stream's descriptor is pointed at /dev/null at once (the recipe in
Python's `signal` docs), so what is still buffered, later writes and the interpreter's last flush go
nowhere instead of printing "Exception ignored ... BrokenPipeError".
"""

from __future__ import annotations

import os
from typing import IO, Callable

OUTPUT_CLOSED = "interrupted (stdout was closed)"
"""The abort reason of a run whose reader went away (the tools' results and the run's end say it)."""


class OutputStream:
    """A text stream whose every write is flushed at once and never raises for a reader that left."""

    def __init__(self, stream: IO[str], on_closed: Callable[[], None] | None = None) -> None:
        self.stream = stream
        self.on_closed = on_closed
        """Called once, when a write first finds the reader gone (may be set after construction)."""
        self.closed = False

    def write(self, text: str) -> None:
        """Write and flush `text`; nothing once the reader is gone."""
        if self.closed:
            return
        try:
            self.stream.write(text)
            self.stream.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.closed = True
            point_at_devnull(self.stream)
            if self.on_closed is not None:
                self.on_closed()


def point_at_devnull(stream: IO[str]) -> None:
    """Make `stream`'s file descriptor /dev/null (a stream that is no real file is left alone)."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):  # a test's StringIO, a stream already closed
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, fd)
    finally:
        os.close(null)
