"""Quitting: Ctrl+C twice, /quit, and a signal (the terminal closed, SIGHUP, or SIGTERM).

What /exit does (stop the run, wait for its processes to be gone, close the session: background
shells, MCP servers, the transcript), within a bounded time; then whatever we started that still runs
is killed, and the process exits 128 + the signal's number without the interpreter's teardown (which
takes seconds on a busy machine, with nobody left to see it).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from ..process_exit import end_process_now

SIGNAL_QUIT_GRACE_S = 5.0
"""The most a signal's quit waits for the run and the session to close before killing what is left."""
_QUIT_SIGNAL = "_tui_agent_quit_signal"


async def quit_on_signal(app: Any, signum: int) -> None:
    """Quit `app` as /exit would, within SIGNAL_QUIT_GRACE_S; a second signal changes nothing."""
    from ..tools.processes import kill_all_now

    if getattr(app, _QUIT_SIGNAL, None) is not None:
        return
    setattr(app, _QUIT_SIGNAL, signum)
    code = 128 + signum
    try:
        await asyncio.wait_for(app.action_quit(code), SIGNAL_QUIT_GRACE_S)
    except Exception:
        pass  # out of time, or the session failed to close: what is left is killed below
    finally:
        kill_all_now()
        app.exit(code, return_code=code)


def exit_if_signalled(app: Any) -> None:
    """After `app.run()`: when a signal ended it, run the exit hooks and end the process now."""
    signum = getattr(app, _QUIT_SIGNAL, None)
    if signum is None:
        return
    end_process_now(128 + signum)  # shells still alive, MCP servers, temporary files: the exit hooks


async def ctrl_c(app: Any, window_s: float) -> None:
    """Ctrl+C: interrupt and clear the prompt; a second within `window_s` quits."""
    now = time.monotonic()
    if app._ctrl_c_at is not None and now - app._ctrl_c_at < window_s:
        await app.action_quit()
        return
    app._ctrl_c_at = now
    app.interrupt()
    app.prompt.clear()
    app.status.state.hint = "press Ctrl+C again to quit"
    app.status.refresh()

    def clear_hint() -> None:
        app.status.state.hint = ""
        app.status.refresh()

    app.set_timer(window_s, clear_hint)


async def quit_app(app: Any, code: int, grace_s: float) -> None:
    """Stop the run, wait (up to `grace_s`) for its processes to be gone, close the session, exit."""
    app.interrupt()
    run = app._run
    if run is not None and not run.done():
        try:
            await asyncio.wait_for(asyncio.wrap_future(run), grace_s)
        except Exception:
            pass  # a stuck run is cancelled with the app; atexit kills leftover shells
    if app.ready:
        await app.runner.close()
    app.exit(code, return_code=code)
