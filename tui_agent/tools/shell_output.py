"""A foreground shell command's output: bounded in memory, whole on disk, streamed as lines.

A command may print gigabytes. `OutputCapture` keeps everything while it is small; past the memory
limit it keeps only the head and the tail and writes the whole stream to a spill file, so the result
shown to the model is bounded and the persisted result still holds all of it. `ProgressLines` turns
raw chunks into whole lines for the live view, at a bounded cost per chunk.
"""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO, Callable

from .os_names import decode_output
from .private_files import open_private

MEMORY_LIMIT_BYTES = 1_000_000


class OutputCapture:
    def __init__(self, spill_path: Path, memory_limit: int = MEMORY_LIMIT_BYTES, owned_from: Path | None = None) -> None:
        """`owned_from`: the agent's own folder above the spill file (the session's), made private even if it exists."""
        self.spill_path = spill_path
        self._owned_from = owned_from
        self.total_bytes = 0
        self._half = memory_limit // 2
        self._limit = memory_limit
        self._head = bytearray()
        self._tail = bytearray()
        self._spill: BinaryIO | None = None

    @property
    def spilled(self) -> bool:
        return self._spill is not None

    def write(self, data: bytes) -> None:
        self.total_bytes += len(data)
        if self._spill is None:
            self._head += data
            if len(self._head) > self._limit:
                self._start_spill()
            return
        self._spill.write(data)
        self._tail += data
        if len(self._tail) > 2 * self._half:  # trim in batches: amortised O(1) per byte
            del self._tail[: len(self._tail) - self._half]

    def _start_spill(self) -> None:
        self._spill = open_private(self.spill_path, "wb", owned_from=self._owned_from)
        self._spill.write(self._head)
        self._tail = self._head[self._half :]
        del self._head[self._half :]

    def text(self) -> str:
        """The output as text; past the limit, head and tail around a note saying where the rest is."""
        if self._spill is None:
            return decode_output(self._head)
        tail = self._tail[-self._half :]
        omitted = self.total_bytes - len(self._head) - len(tail)
        note = f"\n\n... [{omitted} bytes omitted; the full output is in {self.spill_path}] ...\n\n"
        return decode_output(self._head) + note + decode_output(tail)

    def close(self) -> None:
        if self._spill is not None and not self._spill.closed:
            self._spill.close()


class ProgressLines:
    """Feeds whole lines to `emit`, in order. A chunk holding very many lines sends only its last
    `max_lines_per_chunk` (the live view shows a tail; the result has everything)."""

    def __init__(self, emit: Callable[[str], None], max_lines_per_chunk: int = 50, max_pending: int = 4096) -> None:
        self._emit = emit
        self._max_lines = max_lines_per_chunk
        self._max_pending = max_pending
        self._pending = b""

    def feed(self, chunk: bytes) -> None:
        last_nl = chunk.rfind(b"\n")
        if last_nl < 0:
            self._pending = (self._pending + chunk)[-self._max_pending :]
            return
        # Find the start of the last N lines by searching backwards, without splitting the whole chunk.
        start = last_nl
        for _ in range(self._max_lines):
            start = chunk.rfind(b"\n", 0, start)
            if start < 0:
                break
        if start < 0:
            block = self._pending + chunk[:last_nl]
        else:
            block = chunk[start + 1 : last_nl]
        self._pending = chunk[last_nl + 1 :][-self._max_pending :]
        for line in block.split(b"\n"):
            self._emit(decode_output(line))

    def flush(self) -> None:
        if self._pending:
            self._emit(decode_output(self._pending))
            self._pending = b""
