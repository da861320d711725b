"""The full-screen app as a person runs it: `python -m tui_agent` in a real pseudo-terminal that is its
controlling terminal (so closing the terminal hangs it up as closing a window or `tmux kill-session`
does). Its output is drained by a thread and kept as bytes; keys are written as bytes."""

from __future__ import annotations

import os
import pty
import select
import sys
import threading
import time
from pathlib import Path
from typing import Callable


class PtyApp:
    def __init__(self, args: list[str], env: dict[str, str], cwd: Path, columns: int = 120, lines: int = 40) -> None:
        env = {**env, "COLUMNS": str(columns), "LINES": str(lines), "TERM": "xterm-256color"}
        pid, master = pty.fork()  # the child is a session leader with the pty as its controlling terminal
        if pid == 0:
            try:
                os.chdir(cwd)
                os.execve(sys.executable, [sys.executable, "-m", "tui_agent", *args], env)
            finally:
                os._exit(127)
        self.pid, self.master = pid, master
        self.output = bytearray()
        self.status: int | None = None
        self._got = threading.Condition()
        self._stop = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while not self._stop.is_set():
            ready, _, _ = select.select([self.master], [], [], 0.05)
            if not ready:
                continue
            try:
                data = os.read(self.master, 65536)
            except OSError:
                data = b""
            with self._got:
                if not data:
                    self._stop.set()
                self.output += data
                self._got.notify_all()

    def wait_for_output(self, needle: bytes, timeout: float = 120) -> bool:
        with self._got:
            return self._got.wait_for(lambda: needle in self.output or self._stop.is_set(), timeout) and needle in self.output

    def send(self, data: bytes) -> None:
        os.write(self.master, data)

    def close_terminal(self) -> None:
        """What closing the window does: the terminal's side (the pty master) goes away."""
        self._stop.set()
        self._reader.join(10)
        os.close(self.master)
        self.master = -1

    def wait_exit(self, timeout: float = 120) -> int | None:
        """The exit code (negative: the signal that killed it), or None if still running after `timeout`."""
        deadline = time.monotonic() + timeout
        while self.status is None and time.monotonic() < deadline:
            done, status = os.waitpid(self.pid, os.WNOHANG)
            if done:
                self.status = os.waitstatus_to_exitcode(status)
            else:
                time.sleep(0.02)
        return self.status

    def kill(self) -> None:
        """Test cleanup: whatever is left of it."""
        if self.status is None:
            try:
                os.kill(self.pid, 9)
            except ProcessLookupError:
                pass
            self.wait_exit(30)
        if self.master >= 0:
            self.close_terminal()


def wait(predicate: Callable[[], bool], timeout: float = 120, step: float = 0.02) -> bool:
    """Poll a state; `timeout` is only a safety net."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(step)
    return True
