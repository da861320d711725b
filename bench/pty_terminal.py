"""A program in a real pseudo-terminal, its screen kept by a terminal emulator (pyte), for benchmarks.

Key bytes go in through the pty. A reader thread only reads what the program writes and keeps it with
the time each read returned; it does not parse. The emulator is fed later, on demand (`wait_for`,
`watch`, `settle`), chunk by chunk in order, and a condition's time is the read time of the first chunk
after which the painted screen matched it. So the figures are the same as with live parsing, but the
bench spends no CPU on emulation while a program streams (pure-Python pyte parsing a few MB of screen
updates would compete with the program measured on a small machine).
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import signal
import struct
import subprocess
import termios
import threading
import time
from typing import Callable

import pyte

_ESCAPES = re.compile(rb"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\\\)|[@-Z\\\\-_]|[()][0-9A-Za-z])")
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
        self.chunks: list[tuple[float, bytes]] = []  # (read returned at, bytes), in order
        self._fed = 0  # chunks fed to the emulator so far
        self._arrived = threading.Condition()  # guards `chunks`, `_closed`
        self._screen_lock = threading.RLock()  # guards the emulator and `_waiters`
        self._waiters: list[tuple[Condition, list[float], int]] = []  # (condition, time seen, from chunk)
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
            with self._arrived:
                if not data:
                    self._closed = True
                    self._arrived.notify_all()
                    return
                self.bytes_read += len(data)
                self.chunks.append((now, data))
                self._arrived.notify_all()
            if b"\x1b[" in data:
                self._answer_terminal_queries(data)

    def _answer_terminal_queries(self, data: bytes) -> None:
        # Programs ask the terminal things (cursor position, device attributes) and some wait for the
        # answer; pyte answers through write_process_input, which it does not wire to anything.
        if b"\x1b[6n" in data:
            with self._screen_lock:
                self.catch_up()
                y, x = self.screen.cursor.y + 1, self.screen.cursor.x + 1
            os.write(self.master, f"\x1b[{y};{x}R".encode())
        if b"\x1b[c" in data or b"\x1b[0c" in data:
            os.write(self.master, b"\x1b[?62;22c")

    def catch_up(self) -> None:
        """Feed the emulator every chunk read so far, checking the watched conditions after each."""
        with self._screen_lock:
            while True:
                with self._arrived:
                    if self._fed >= len(self.chunks):
                        return
                    when, data = self.chunks[self._fed]
                    self._fed += 1
                self.stream.feed(data)
                index = self._fed - 1
                if self._waiters:
                    display = self.screen.display
                    for condition, seen, start in self._waiters:
                        if index >= start and not seen and condition(display):
                            seen.append(when)
                    self._waiters = [w for w in self._waiters if not w[1]]

    def text(self) -> str:
        with self._screen_lock:
            self.catch_up()
            return "\n".join(self.screen.display)

    def display(self) -> list[str]:
        with self._screen_lock:
            self.catch_up()
            return list(self.screen.display)

    def watch(self, condition: Condition) -> list[float]:
        """Watch for `condition` from the output read so far on: the list gets the read time of the
        first chunk after which the screen matched, once the emulator has been fed that far."""
        when: list[float] = []
        with self._screen_lock:
            self.catch_up()
            if condition(self.screen.display):
                when.append(time.monotonic())
            else:
                self._waiters.append((condition, when, 0))
        return when

    def watch_later(self, condition: Condition, since: int) -> list[float]:
        """Like `watch`, but without parsing now, and only on output from chunk `since` on (a key's
        echo cannot be in what was read before the key was written). The time comes at `settle`."""
        when: list[float] = []
        with self._screen_lock:
            self._waiters.append((condition, when, since))
        return when

    def wait_for(self, condition: Condition, timeout: float = 30.0) -> float | None:
        """The time the screen first matched `condition` (now, if it already does); None on timeout."""
        when = self.watch(condition)
        end = time.monotonic() + timeout
        while not when:
            with self._arrived:
                if self._fed >= len(self.chunks):
                    if self._closed or time.monotonic() >= end:
                        break
                    self._arrived.wait(max(0.0, end - time.monotonic()))
            self.catch_up()
        with self._screen_lock:
            self._waiters = [w for w in self._waiters if w[1] is not when]
        return when[0] if when else None

    def wait_raw(self, needle: bytes, since: int, timeout: float = 30.0) -> float | None:
        """Without emulating: the read time of the chunk in which `needle` first appears in the
        output from chunk `since` on, escape sequences left out (a cheap sign that the program got that
        far; the figures come from the emulated screen)."""
        end = time.monotonic() + timeout
        index, tail = since, b""
        while True:
            with self._arrived:
                while index >= len(self.chunks):
                    if self._closed or time.monotonic() >= end:
                        return None
                    self._arrived.wait(max(0.0, end - time.monotonic()))
                when, data = self.chunks[index]
            index += 1
            window = tail + _ESCAPES.sub(b"", data)
            if needle in window:
                return when
            tail = window[-len(needle):]

    def settle(self) -> None:
        """Parse everything read so far (watched conditions get their times)."""
        self.catch_up()

    @property
    def read_count(self) -> int:
        with self._arrived:
            return len(self.chunks)

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
