"""Seeing files the session read change behind its back (an editor, a formatter, git).

The mtime+size stamp misses a rewrite that keeps both (same size within the clock's granularity, or
a tool that restores mtimes). A watchfiles watcher on the folders of the files read catches those:
on an event it hashes the file and compares with the hash of what the session last read or wrote,
so the session's own writes (announced with `expect` before they happen) never count as external.
Folders whose names are not UTF-8 cannot be watched (watchfiles takes text paths); their files keep the
stamp check.

The watcher runs in a daemon thread, started on first use; it is the session's, in
`ctx.services["file_watch"]` (use `watcher_for(ctx)`), and `close()` stops it.
"""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path


from .base import FileReadState, ToolContext

SERVICE_KEY = "file_watch"
_TIMEOUT_MS = 100  # how often the thread wakes with no events (to notice new folders / readiness)


def digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


class FileWatcher:
    def __init__(self, read_state: FileReadState) -> None:
        self._read_state = read_state
        self._lock = threading.Lock()
        # path -> hash of the content the session last saw (None: unknown, any event counts).
        self._known: dict[str, bytes | None] = {}
        self._dirs: set[str] = set()
        self._closed = threading.Event()
        self._restart = threading.Event()
        self._ready = threading.Event()
        self._thread: threading.Thread | None = None

    def track(self, path: Path, content: bytes | None) -> None:
        """The session has just seen `content` in `path` (read it, or is about to write it)."""
        with self._lock:
            self._known[str(path)] = None if content is None else digest(content)
            folder = str(path.parent)
            if folder not in self._dirs:
                self._dirs.add(folder)
                self._ready.clear()
                self._restart.set()  # the running watch has a fixed folder list: restart it
        if self._thread is None and not self._closed.is_set():
            self._thread = threading.Thread(target=self._run, name="file-watch", daemon=True)
            self._thread.start()

    # Announcing a write is tracking its content before it lands, so its own event finds a match.
    expect = track

    def wait_ready(self, timeout: float) -> bool:
        """Block until the watcher covers every folder tracked so far (for tests and benchmarks)."""
        return self._ready.wait(timeout)

    def close(self, wait: bool = False) -> None:
        """Stop watching. The thread ends by itself within one watchfiles step (20 ms); a session that is
        ending does not wait for it (`-p` would be 20 ms later out), `wait=True` does (tests)."""
        self._closed.set()
        self._restart.set()
        if wait and self._thread is not None:
            self._thread.join(timeout=2)

    def _run(self) -> None:
        import watchfiles  # on the watcher's own thread, not before the first Read's answer

        while not self._closed.is_set():
            with self._lock:
                self._restart.clear()
                dirs = [d for d in self._dirs if _watchable(d) and Path(d).is_dir()]
            if not dirs:
                self._ready.set()  # nothing it can watch: the stamp check is all there is
                self._restart.wait(_TIMEOUT_MS / 1000)
                continue
            for changes in watchfiles.watch(
                *dirs,
                watch_filter=None,
                recursive=False,
                debounce=200,
                step=20,
                rust_timeout=_TIMEOUT_MS,
                yield_on_timeout=True,
                stop_event=self._restart,
                raise_interrupt=False,
            ):
                for _, changed in changes:
                    self._check(changed)
                with self._lock:  # `track` sets `_restart` under the lock when a folder is new
                    if self._restart.is_set():
                        break
                    self._ready.set()

    def _check(self, path: str) -> None:
        with self._lock:
            if path not in self._known:
                return
            known = self._known[path]
        try:
            now = digest(Path(path).read_bytes())
        except OSError:
            now = None  # deleted or unreadable: the stamp check reports it
        if known is None or now != known:
            self._read_state.changed_externally.add(path)


def _watchable(folder: str) -> bool:
    """watchfiles takes UTF-8 paths only: a folder whose name is not (os_names) is left to the stamp check."""
    try:
        folder.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def watcher_for(ctx: ToolContext) -> FileWatcher:
    watcher = ctx.services.get(SERVICE_KEY)
    if watcher is None:
        watcher = ctx.services[SERVICE_KEY] = FileWatcher(ctx.read_state)
    return watcher


def close_file_watcher(ctx: ToolContext) -> None:
    """The session ends: its watcher's thread, if a Read started one, stops within one step."""
    watcher = ctx.services.get(SERVICE_KEY)
    if watcher is not None:
        watcher.close()
