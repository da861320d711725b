"""Textual's Linux driver with our input loop, and an end that cannot hang when the terminal goes away.

Input: `input_loop.read_input` (a lone ESC within the escape delay, pastes whole), with a 10 ms escape
delay unless ESCDELAY says otherwise.

The end: when the terminal closes (tmux kill-session, a closed window) the kernel sends SIGHUP then
SIGCONT, reads hit end of input and writes fail with EIO. Textual's driver takes the SIGCONT for a
return from Ctrl+Z and starts application mode again on the dead terminal; its writer thread dies on
the first EIO, and the next write blocks the app forever on the writer's full queue. Here the
terminal is marked gone at the first sign (SIGHUP, end of input, a failed write): output is dropped,
SIGCONT is ignored, and the app gets one `TerminalSignal` to quit by (ui/quitting.py). SIGTERM sends
the same message with the terminal still there.
"""

from __future__ import annotations

import os
import signal
from typing import Any, Mapping, TextIO

from textual import constants
from textual._xterm_parser import XTermParser
from textual.drivers.linux_driver import LinuxDriver
from .input_loop import read_input
from .messages import TerminalSignal

QUIT_SIGNALS = (signal.SIGHUP, signal.SIGTERM)
ESCAPE_DELAY_S = 0.010
"""How long a lone ESC waits for the rest of a key's sequence before it is the escape key. Textual's
default is 100 ms (vim's ttimeoutlen); tmux has waited 10 ms since 3.5 (it was 500): a terminal writes
a key's sequence in one go, so its bytes arrive together. Crossterm (Codex) does not wait at all. An
explicit ESCDELAY (milliseconds, as curses reads it) is the user's and wins."""


def use_escape_delay(environ: Mapping[str, str] = os.environ) -> None:
    """Set Textual's escape delay (read by its parser at each ESC) to ours, unless ESCDELAY is set."""
    if "ESCDELAY" not in environ:
        constants.ESCAPE_DELAY = ESCAPE_DELAY_S  # type: ignore[misc]


class _TerminalOutput:
    """The file Textual's writer thread writes to: a failed write marks the terminal gone instead of
    ending the thread (the app would then block on the thread's full queue)."""

    def __init__(self, file: TextIO, driver: "EscapeAwareDriver") -> None:
        self._file = file
        self._driver = driver

    def write(self, text: str) -> None:
        if not self._driver.terminal_gone:
            try:
                self._file.write(text)
            except OSError:
                self._driver.hang_up()

    def flush(self) -> None:
        if not self._driver.terminal_gone:
            try:
                self._file.flush()
            except OSError:
                self._driver.hang_up()

    def fileno(self) -> int:
        return self._file.fileno()

    def isatty(self) -> bool:
        return self._file.isatty()


class EscapeAwareDriver(LinuxDriver):
    """`LinuxDriver` whose input loop waits no longer than a pending escape's delay, and which ends
    cleanly when the terminal goes away."""

    def __init__(self, app: Any, **kwargs: Any) -> None:
        super().__init__(app, **kwargs)
        use_escape_delay()
        self.terminal_gone = False
        self._file = _TerminalOutput(self._file, self)  # type: ignore[arg-type]
        self._signalled = False
        self._taken: list[int] = []
        for signum in QUIT_SIGNALS:
            if signal.getsignal(signum) == signal.SIG_DFL:  # someone else's handler stays theirs
                signal.signal(signum, self._on_signal)
                self._taken.append(signum)

    def hang_up(self) -> None:
        """The terminal is gone: drop output from now on and ask the app (once) to quit."""
        self.terminal_gone = True
        self._tell_app(signal.SIGHUP)

    def _on_signal(self, signum: int, _frame: Any) -> None:
        if signum == signal.SIGHUP:
            self.terminal_gone = True  # before the SIGCONT that follows it is handled
        self._tell_app(signum)

    def _tell_app(self, signum: int) -> None:
        if not self._signalled:
            self._signalled = True
            self.send_message(TerminalSignal(signum))

    def _sigcont_application(self, *args: Any) -> None:
        if not self.terminal_gone:  # a return from Ctrl+Z, not the SIGCONT of a hangup
            super()._sigcont_application(*args)

    def write(self, data: str) -> None:
        if not self.terminal_gone:
            super().write(data)

    def run_input_thread(self) -> None:
        read_input(self.fileno, XTermParser(self._debug), self.process_message, self.exit_event, on_end=self.hang_up)

    def close(self) -> None:
        super().close()
        for signum in self._taken:
            signal.signal(signum, signal.SIG_DFL)
        self._taken.clear()
