"""Draw the screen now, not at the next tick of Textual's update timer.

Textual paints what changed on a 60 Hz timer, after the change has travelled as messages from the
widget to the screen: up to ~20 ms after the change on a busy app. ESC's "Interrupted" is the
one change worth drawing at once, so the interrupt draws what is dirty itself, the way Textual's own
timer does (`Screen._on_timer_update`: the widgets' dirty regions into the compositor, then
`_compositor_refresh`). A layout the change needs (a new scroll size, the lane panel's height)
still arrives as a message and is done by the next tick as usual.

Upstream, this would be a public `Screen.paint_now()` (or `App.refresh(immediate=True)`).
"""

from __future__ import annotations

import time
from typing import Any

HAND_OVER_S = 0.005
"""The most the UI thread waits for Textual's writer thread to take the frame (see `_hand_over`)."""


def paint_now(app: Any) -> None:
    """Draw the app's screen at once (the base screen only; a dialog opening or closing is left to
    Textual). Does nothing where Textual's internals are not the expected ones."""
    screen = app.screen
    compositor = getattr(screen, "_compositor", None)
    refresh = getattr(screen, "_compositor_refresh", None)
    if compositor is None or refresh is None or len(app.screen_stack) != 1 or getattr(app, "_batch_count", 0):
        return
    if not screen.is_current or not screen.size:
        return
    compositor.update_widgets(set(compositor.visible_widgets))  # takes each widget's dirty regions
    refresh()
    _hand_over(app)


def _hand_over(app: Any) -> None:
    """Let Textual's writer thread take the frame before the UI thread goes on. The frame is queued
    to that thread, which needs the interpreter lock to write it: with the UI thread drawing the
    next frame (the layout the change needs) and the core thread stopping the run, it waited up to
    three lock hand-overs (5 ms each). Sleeping gives it the lock at once; once it has taken the
    last piece it writes and flushes without waiting."""
    writer = getattr(getattr(app, "_driver", None), "_writer_thread", None)
    queue = getattr(writer, "_queue", None)
    if queue is None:
        return
    deadline = time.monotonic() + HAND_OVER_S
    while queue.qsize() and time.monotonic() < deadline:
        time.sleep(0.0002)
