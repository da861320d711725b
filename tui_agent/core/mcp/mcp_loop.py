"""The MCP clients' own event loop, in a daemon thread.

Every `mcp` session lives here, whichever loop the app, a headless run or an agent worker uses: the
sessions' anyio streams are bound to the loop they were made in, and their reading, JSON parsing and
the `mcp` import itself (~2 s of CPU) stay off the UI's loop. Callers await `on_mcp_loop(coro)`;
cancelling that await cancels the coroutine here (so an ESC still reaches the server as a cancellation).
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any, Awaitable, Callable, TypeVar

T = TypeVar("T")

_loop: asyncio.AbstractEventLoop | None = None
_lock = threading.Lock()


def mcp_loop() -> asyncio.AbstractEventLoop:
    global _loop
    with _lock:
        if _loop is None:
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="mcp-loop", daemon=True).start()
            _loop = loop
        return _loop


async def on_mcp_loop(coro: Awaitable[T]) -> T:
    """Run `coro` on the MCP loop and wait for it here; a cancel here cancels it there."""
    loop = mcp_loop()
    try:
        here = asyncio.get_running_loop()
    except RuntimeError:
        here = None
    if here is loop:
        return await coro
    return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, loop))  # type: ignore[arg-type]


def submit(coro: Awaitable[Any]) -> None:
    """Start `coro` on the MCP loop without waiting for it."""
    asyncio.run_coroutine_threadsafe(coro, mcp_loop())  # type: ignore[arg-type]


def caller_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def call_in(loop: asyncio.AbstractEventLoop | None, fn: Callable[..., Any], *args: Any) -> None:
    """Call `fn(*args)` in `loop`'s thread (the caller's: events and progress belong there); at once
    when there is no such loop, or it has closed."""
    if loop is None or loop is caller_loop():
        fn(*args)
        return
    try:
        loop.call_soon_threadsafe(fn, *args)
    except RuntimeError:
        fn(*args)  # the caller's loop is gone (shutting down): still record the change
