"""A program in a real pseudo-terminal, its screen kept by a terminal emulator (pyte), for benchmarks.

Key bytes go in through the pty; everything the program writes is read as it comes and fed to the
emulator, and a waiter's condition is checked against the painted screen after every read, so the time
recorded is when the screen (as a person would see it) first matched.
"""

from __future__ import annotations

import fcntl
import os
import pty
import signal
import struct
import subprocess
import termios
import threading
import time
from typing import Callable

import pyte

Condition = Callable[[list[str]], bool]


class PtyTerminal:
    def __init__(self, argv: list[str], env: dict[str, str], cwd: str, columns: int = 120, lines: int = 40) -> None:
        self.screen = pyte.Screen(columns, lines)
        self.stream = pyte.ByteStream(self.screen)
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", lines, columns, 0, 0))
        self.started = time.monotonic()
        self.proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=cwd,
                                     start_new_session=True, close_fds=True)
        os.close(slave)
        self.master = master
        self.bytes_read = 0
        self._lock = threading.Condition()
        self._waiters: list[tuple[Condition, list[float]]] = []
        self._closed = False
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    # ----- output -----------------------------------------------------------------------------
    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:
                data = b""
            now = time.monotonic()
            with self._lock:
                if not data:
                    self._closed = True
                    self._lock.notify_all()
                    return
                self.bytes_read += len(data)
                self.stream.feed(data)
                self._answer_terminal_queries(data)
                display = self.screen.display
                for condition, when in self._waiters:
                    if not when and condition(display):
                        when.append(now)
                self._lock.notify_all()

    def _answer_terminal_queries(self, data: bytes) -> None:
        # Programs ask the terminal things (cursor position, device attributes) and some wait for the
        # answer; pyte answers through write_process_input, which it does not wire to anything.
        if b"\x1b[6n" in data:
            y, x = self.screen.cursor.y + 1, self.screen.cursor.x + 1
            os.write(self.master, f"\x1b[{y};{x}R".encode())
        if b"\x1b[c" in data or b"\x1b[0c" in data:
            os.write(self.master, b"\x1b[?62;22c")

    def text(self) -> str:
        with self._lock:
            return "\n".join(self.screen.display)

    def wait_for(self, condition: Condition, timeout: float = 30.0) -> float | None:
        """The time the screen first matched `condition` (now, if it already does); None on timeout."""
        when: list[float] = []
        with self._lock:
            if condition(self.screen.display):
                return time.monotonic()
            self._waiters.append((condition, when))
            self._lock.wait_for(lambda: bool(when) or self._closed, timeout)
            self._waiters.remove((condition, when))
        return when[0] if when else None

    def watch(self, condition: Condition) -> list[float]:
        """Start watching for `condition` without waiting: the list gets the time it first matched."""
        when: list[float] = []
        with self._lock:
            if condition(self.screen.display):
                when.append(time.monotonic())
            else:
                self._waiters.append((condition, when))
        return when

    # ----- input --------------------------------------------------------------------------------
    def send(self, data: str | bytes) -> float:
        raw = data.encode() if isinstance(data, str) else data
        now = time.monotonic()
        os.write(self.master, raw)
        return now

    def type_slowly(self, text: str, gap: float = 0.02) -> None:
        for ch in text:
            self.send(ch)
            time.sleep(gap)

    # ----- the end ------------------------------------------------------------------------------
    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(5)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                self.proc.wait(5)
        try:
            os.close(self.master)
        except OSError:
            pass


def contains(needle: str) -> Condition:
    return lambda display: any(needle in row for row in display)


def count_at_least(needle: str, n: int) -> Condition:
    return lambda display: sum(row.count(needle) for row in display) >= n
