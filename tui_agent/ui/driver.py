"""Textual's Linux driver with an input loop that hands a lone ESC on within the escape delay.

Textual's `LinuxDriver.run_input_thread` waits for input with `select(0.1)` and asks the parser
whether a pending escape has timed out only after each wait. A lone ESC (the key this app is built
around) therefore reaches the app up to 100 ms late whatever `ESCDELAY` says. Here the wait is the
time left until the parser's pending timeout when there is one, so ESC arrives `ESCDELAY` after the
key. Everything else is Textual's: the same parser (split sequences, Alt+key, bracketed paste), the
same message path. Upstream, the same change is one line in `run_input_thread`:
`selector.select(input_wait(parser, get_time()))` instead of `selector.select(0.1)`.
"""

from __future__ import annotations

import os
import selectors
import threading
from codecs import getincrementaldecoder
from typing import Any, Callable

from textual._time import get_time
from textual._xterm_parser import XTermParser
from textual.drivers.linux_driver import LinuxDriver

IDLE_WAIT_S = 0.1  # how often the loop looks at the exit flag when nothing is pending (Textual's value)


def input_wait(parser: XTermParser, now: float, idle: float = IDLE_WAIT_S) -> float:
    """How long to wait for input: until a pending escape times out, else `idle`."""
    pending: float | None = getattr(parser, "_timeout_time", None)
    return idle if pending is None else max(0.0, min(idle, pending - now))


def read_input(fileno: int, parser: XTermParser, emit: Callable[[Any], None], stop: threading.Event) -> None:
    """Feed what arrives on `fileno` to `parser` and `emit` its events until `stop` is set."""
    selector = selectors.SelectSelector()
    selector.register(fileno, selectors.EVENT_READ)
    decode = getincrementaldecoder("utf-8")().decode
    try:
        while not stop.is_set():
            for _key, _mask in selector.select(input_wait(parser, get_time())):
                data = decode(os.read(fileno, 4096))
                if not data:  # end of input (a pipe): keep ticking, stop selecting on it
                    selector.unregister(fileno)
                    stop.wait(IDLE_WAIT_S)
                    break
                for event in parser.feed(data):
                    emit(event)
            if not selector.get_map():
                stop.wait(IDLE_WAIT_S)
            for event in parser.tick():
                emit(event)
    finally:
        selector.close()


class EscapeAwareDriver(LinuxDriver):
    """`LinuxDriver` whose input loop waits no longer than a pending escape's delay."""

    def run_input_thread(self) -> None:
        read_input(self.fileno, XTermParser(self._debug), self.process_message, self.exit_event)
