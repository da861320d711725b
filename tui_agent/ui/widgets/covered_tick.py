"""Timers that keep counting behind a dialog, at a pace the dialog can afford.

The lanes and the status line repaint ten times a second while a run is active. Under a dialog with a
translucent background (every question the app asks) each such repaint made Textual draw the whole
screen behind the dialog again and tint it: ~30 % of a core for as long as a permission question stayed
open (bench/bench_dialog_idle.py; Claude Code: under 1 %). Covered, they repaint once a second, at the
same moment (in one frame, unless the machine is busy).
"""

from __future__ import annotations

import math
from typing import Callable

from textual._context import NoActiveAppError
from textual.app import ScreenStackError
from textual.dom import NoScreen
from textual.timer import Timer
from textual.widget import Widget


class CoveredTick:
    """Says whether a ticking widget should repaint now: yes while its screen is the one shown. Covered by
    another screen (a dialog), no: it repaints on the next turn of the clock's second instead, the moment
    every other covered timer repaints too, so Textual draws the screen behind the dialog once a second."""

    def __init__(self, widget: Widget, clock: Callable[[], float]) -> None:
        self.widget = widget
        self.clock = clock
        self._turn: Timer | None = None

    def due(self) -> bool:
        if not covered(self.widget):
            return True
        if self._turn is None:
            now = self.clock()
            self._turn = self.widget.set_timer(max(0.0, math.floor(now) + 1.0 - now), self._repaint)
        return False

    def _repaint(self) -> None:
        self._turn = None
        self.widget.refresh()


def covered(widget: Widget) -> bool:
    """Another screen is shown over the widget's own (False while it is not on a screen)."""
    try:
        return widget.screen is not widget.app.screen
    except (NoScreen, ScreenStackError, NoActiveAppError):  # not mounted yet, or the app is closing
        return False
