"""The terminal's input loop: bytes in, Textual's events out, a lone ESC on time, pastes whole.

Textual's `LinuxDriver.run_input_thread` waits for input with `select(0.1)` and asks the parser
whether a pending escape has timed out only after each wait, so a lone ESC (the key this app is built
around) reaches the app up to 100 ms late whatever the escape delay is. Here the wait is the time left
until the parser's pending timeout when there is one: ESC arrives one escape delay after the key.

Textual's parser also reads ESC bytes inside a bracketed paste as keys: the paste is cut at the first
ESC, the rest arrives as keys, and ESC ESC is the escape key (which would interrupt the run). So the
paste's content is taken out here, before the parser sees it: the parser gets only the start and end
markers (its own state stays right, even when a marker is split across reads), and the text goes out
as one `Paste` event, ESC bytes and all.
"""

from __future__ import annotations

import os
import selectors
import threading
from codecs import getincrementaldecoder
from typing import Any, Callable, Iterator

from textual import events
from textual._time import get_time
from textual._xterm_parser import XTermParser

IDLE_WAIT_S = 0.1  # how often the loop looks at the exit flag when nothing is pending (Textual's value)
PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"


def input_wait(parser: XTermParser, now: float, idle: float | None = None) -> float:
    """How long to wait for input: until a pending escape times out, else `idle` (IDLE_WAIT_S)."""
    idle = IDLE_WAIT_S if idle is None else idle
    pending: float | None = getattr(parser, "_timeout_time", None)
    return idle if pending is None else max(0.0, min(idle, pending - now))


class PasteSplitter:
    """Splits decoded input into text for the parser and the content of bracketed pastes."""

    def __init__(self) -> None:
        self._tail = ""  # the end of what went to the parser: the start of a split PASTE_START
        self._pasted: str | None = None  # inside a paste: its content so far

    def split(self, data: str) -> Iterator[tuple[str, str]]:
        """("parse", text) pieces and ("paste", content) for each paste that ended, in input order."""
        while data:
            if self._pasted is None:
                window = self._tail + data
                at = window.find(PASTE_START)
                if at < 0:
                    self._tail = window[-(len(PASTE_START) - 1) :]
                    yield "parse", data
                    return
                end = at + len(PASTE_START) - len(self._tail)  # just past the marker, in `data`
                yield "parse", data[:end]
                data, self._tail, self._pasted = data[end:], "", ""
            else:
                pasted = self._pasted + data
                at = pasted.find(PASTE_END)
                if at < 0:
                    self._pasted = pasted
                    return
                yield "paste", pasted[:at]
                data, self._pasted = pasted[at + len(PASTE_END) :], None


def read_input(
    fileno: int,
    parser: XTermParser,
    emit: Callable[[Any], None],
    stop: threading.Event,
    on_end: Callable[[], None] | None = None,
) -> None:
    """Feed what arrives on `fileno` to `parser` and `emit` its events until `stop` is set.

    At the end of input (EOF, or EIO from a terminal that hung up) `on_end` is called once and the
    loop keeps ticking until `stop`."""
    selector = selectors.SelectSelector()
    selector.register(fileno, selectors.EVENT_READ)
    decode = getincrementaldecoder("utf-8")().decode
    pastes = PasteSplitter()
    try:
        while not stop.is_set():
            for _key, _mask in selector.select(input_wait(parser, get_time())):
                try:
                    data = decode(os.read(fileno, 4096))
                except OSError:  # EIO: the terminal is gone
                    data = ""
                if not data:
                    selector.unregister(fileno)
                    if on_end is not None:
                        on_end()
                    break
                for kind, text in pastes.split(data):
                    _feed(parser, kind, text, emit)
            if not selector.get_map():
                stop.wait(IDLE_WAIT_S)
            for event in parser.tick():
                emit(event)
    finally:
        selector.close()


def _feed(parser: XTermParser, kind: str, text: str, emit: Callable[[Any], None]) -> None:
    if kind == "parse":
        for event in parser.feed(text):
            emit(event)
        return
    # The parser only saw the start marker; the end marker ends its paste mode (its paste is empty,
    # or none if a split start marker timed out in it). NULs are dropped as Textual does (textual#1661).
    for event in parser.feed(PASTE_END):
        if not isinstance(event, events.Paste):
            emit(event)
    emit(events.Paste(text.replace("\x00", "")))
