"""Lines from standard input without blocking the event loop.

A pipe (how programs start us) is read by the event loop itself; anything the loop cannot watch (a
regular file redirected to stdin) is read by a daemon thread instead.
"""

from __future__ import annotations

import asyncio
import sys
import threading
from typing import AsyncIterator

LINE_LIMIT = 64 * 1024 * 1024  # a prompt may carry images


async def stdin_lines() -> AsyncIterator[str]:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=LINE_LIMIT)
    try:
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin.buffer)
    except (ValueError, OSError, NotImplementedError):
        async for line in _threaded_lines():
            yield line
        return
    while True:
        try:
            raw = await reader.readline()
        except ValueError:  # over the limit: reported as a bad line (its rest follows as another)
            raw = b"(a line longer than 64 MB)\n"
        if not raw:
            return
        yield raw.decode("utf-8", errors="replace")


async def _threaded_lines() -> AsyncIterator[str]:
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[str | None] = asyncio.Queue()

    def pump() -> None:
        for raw in sys.stdin.buffer:
            loop.call_soon_threadsafe(queue.put_nowait, raw.decode("utf-8", errors="replace"))
        loop.call_soon_threadsafe(queue.put_nowait, None)

    threading.Thread(target=pump, name="stdin-lines", daemon=True).start()
    while (line := await queue.get()) is not None:
        yield line
