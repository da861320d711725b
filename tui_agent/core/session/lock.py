"""One writer per session: an advisory lock held by the process that appends to a session.

Two processes appending to one transcript fork it silently (each hangs its lines from its own last line, and
a later resume follows only one branch). So the process that writes a session holds `flock(LOCK_EX)` on
`<project dir>/<session id>.lock` from the session's open (resume.py) to `Session.close()`. The OS drops the
lock when the process dies, SIGKILL included: a lock file that nobody holds is free whatever its age. What
counts is the flock, never whether the file exists. The holder writes its pid in the file, so that another
process can say who holds it. Files are 0600, like the transcript beside them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO, Any

from ...tools.private_files import open_private

try:
    import fcntl
except ImportError:  # Windows: no flock; sessions are not locked there
    fcntl = None  # type: ignore[assignment]


class SessionBusy(Exception):
    """The session is being written by another live process (`pid`, when it could be read)."""

    def __init__(self, session_id: str, pid: int | None, transcript: Path | None = None) -> None:
        self.session_id = session_id
        self.pid = pid
        self.transcript = transcript
        """The session's file (what a wait polls with `is_free`)."""
        super().__init__(f"Session {session_id} is in use by {holder_words(pid)}.")


def holder_words(pid: int | None) -> str:
    if pid is not None and pid == os.getpid():
        return "this tui-agent process"
    return f"another tui-agent process (pid {pid})" if pid is not None else "another tui-agent process"


def lock_path(transcript: Path) -> Path:
    """The lock file of the session whose transcript is `transcript` (`<id>.jsonl` -> `<id>.lock`)."""
    return transcript.with_suffix(".lock")


class SessionLock:
    """A lock this process holds; `release()` (or the process's end) frees it."""

    def __init__(self, path: Path, fh: IO[Any]) -> None:
        self.path = path
        self._fh: IO[Any] | None = fh

    @classmethod
    def try_take(cls, path: Path) -> "SessionLock | None":
        """The lock, or None when a live process (this one included, through another open) holds it."""
        while True:
            fh = open_private(path, "ab")
            if fcntl is None:
                return cls(path, fh)
            try:
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                fh.close()
                return None
            except BaseException:
                fh.close()
                raise
            if _same_file(fh, path):
                break
            # A holder removed the file as it released it, after our open: we locked a file nobody can
            # find any more. Take the one at the path now.
            fh.close()
        fh.truncate(0)
        fh.write(f"{os.getpid()}\n".encode())
        fh.flush()
        return cls(path, fh)

    @property
    def held(self) -> bool:
        return self._fh is not None

    def release(self) -> None:
        """Free the lock and remove its file (under the lock, so no one can have taken the file meanwhile;
        one who opened it before sees it is gone and takes a new one, see try_take)."""
        fh, self._fh = self._fh, None
        if fh is None:
            return
        try:
            if _same_file(fh, self.path):
                self.path.unlink(missing_ok=True)
        except OSError:
            pass  # a folder we may not write to any more: a stale lock file harms no one
        fh.close()  # closing the last descriptor drops the flock


def _same_file(fh: IO[Any], path: Path) -> bool:
    try:
        here = os.stat(path)
    except FileNotFoundError:
        return False
    mine = os.fstat(fh.fileno())
    return (here.st_dev, here.st_ino) == (mine.st_dev, mine.st_ino)


def take(transcript: Path, session_id: str) -> SessionLock:
    """Lock the session of `transcript`; SessionBusy (with the holder's pid) when a live process holds it."""
    path = lock_path(transcript)
    lock = SessionLock.try_take(path)
    if lock is None:
        raise SessionBusy(session_id, holder_pid(path), transcript)
    return lock


def holder_pid(path: Path) -> int | None:
    """The pid the holder wrote in the lock file (None: not written yet, or unreadable)."""
    try:
        text = path.read_text(encoding="ascii", errors="replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def is_free(transcript: Path) -> bool:
    """Whether no live process holds the session's lock now (a waiting dialog polls this; never blocks).
    Only tries: the lock is not kept, and no file is made."""
    if fcntl is None:
        return True
    try:
        fd = os.open(lock_path(transcript), os.O_RDONLY)
    except FileNotFoundError:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(fd)  # closing drops the trial lock
    return True
