"""The status line: model, permission mode, thinking, how much context is left, tokens, cost, the turn
timer and what ESC would do. When the line is too narrow, the least important parts go first."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

from rich.text import Text
from textual.timer import Timer
from textual.widget import Widget

from ...core.pricing import format_cost
from .covered_tick import CoveredTick
from .lanes import format_seconds
from .role_styles import RoleStyleCache
from .styled_lines import ContentKeyedStylesCache

TICK = 0.1
MERGE_WINDOW = 0.095
"""A tick skips its paint when the line was painted this recently (beside a transcript flush, which
calls `tick`): the timer still moves ten times a second, but mostly in frames painted anyway."""
ROLES = ("model", "mode", "muted", "running", "hint", "thinking", "context-low")
CONTEXT_LOW = 0.2
"""At or under this share left until automatic compaction, the meter is shown as a warning."""


def format_tokens(n: int) -> str:
    return f"{n / 1000:.1f}k" if n >= 1000 else str(n)


@dataclass
class StatusState:
    model: str = ""
    demo: bool = False
    mode: str = "default"
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = 0.0
    run_started_at: float | None = None
    last_run_s: float | None = None
    mcp: str = ""
    """MCP servers connected / failed (empty without servers)."""
    hint: str = ""
    """A passing message (e.g. "press Ctrl+C again to quit") shown instead of the key help."""
    thinking: bool = False
    """Extended thinking is on for the next requests (alt+t switches it)."""
    context_left: float | None = None
    """Share (0..1) of the way to automatic compaction still free; None until the core reports it."""
    context_used: float = 0.0
    """Share of the model's window in use (shown when automatic compaction is off)."""
    auto_compact: bool = True


def context_meter(state: StatusState) -> str:
    """Claude Code's "Context left until auto-compact: N%", short enough for an 80-column line."""
    if state.context_left is None:
        return ""
    if not state.auto_compact:
        return f"context {state.context_used:.0%} used"
    return f"{state.context_left:.0%} context left"


class StatusLine(Widget):
    COMPONENT_CLASSES = {f"status--{role}" for role in ROLES}

    def __init__(self, clock: Callable[[], float], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.clock = clock
        self.state = StatusState()
        self._ticker: Timer | None = None
        self._ticking = False
        self._styles = RoleStyleCache("status", ROLES)
        self._painted_at = 0.0  # time.monotonic() of the last render
        # Textual asks for this line in every frame; it changes ten times a second at most.
        self._styles_cache = ContentKeyedStylesCache()
        self._covered_tick = CoveredTick(self, clock)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.forget()

    def on_mount(self) -> None:
        self._ticker = self.set_interval(TICK, self._tick_unless_painted, pause=True)

    def _tick_unless_painted(self) -> None:
        if time.monotonic() - self._painted_at >= MERGE_WINDOW and self._covered_tick.due():
            self.refresh()

    def tick(self) -> None:
        """Repaint the running timer in the frame being prepared (one frame rather than two)."""
        if self.running:
            self.refresh()

    @property
    def running(self) -> bool:
        return self.state.run_started_at is not None

    def run_started(self) -> None:
        self.state.run_started_at = self.clock()
        self._set_ticking(True)
        self.refresh()

    def run_ended(self) -> None:
        if self.state.run_started_at is not None:
            self.state.last_run_s = self.clock() - self.state.run_started_at
        self.state.run_started_at = None
        self._set_ticking(False)
        self.refresh()

    def _set_ticking(self, on: bool) -> None:
        if self._ticker is not None and on != self._ticking:
            self._ticker.resume() if on else self._ticker.pause()
            self._ticking = on

    def render(self) -> Text:
        self._painted_at = time.monotonic()
        s = self.state
        style = self._styles.get(self)
        sep = Text(" · ", style=style["muted"])
        # (text, priority): the lowest priority is dropped first when the line does not fit.
        parts: list[tuple[Text, int]] = [
            (Text("demo model" if s.demo else s.model, style=style["model"]), 6),
            (Text(f"{s.mode} mode", style=style["mode"]), 9),  # what runs unasked: kept to the last
        ]
        if s.thinking:
            parts.append((Text("∴ thinking", style=style["thinking"]), 4))
        meter = context_meter(s)
        if meter:
            low = s.auto_compact and s.context_left is not None and s.context_left <= CONTEXT_LOW
            parts.append((Text(meter, style=style["context-low" if low else "muted"]), 7))
        if s.mcp:
            parts.append((Text(s.mcp, style=style["muted"]), 1))
        parts.append((Text(f"↑{format_tokens(s.input_tokens)} ↓{format_tokens(s.output_tokens)}", style=style["muted"]), 3))
        parts.append((Text("cost unknown" if s.cost_usd is None else format_cost(s.cost_usd), style=style["muted"]), 2))
        if s.run_started_at is not None:
            parts.append((Text(format_seconds(self.clock() - s.run_started_at), style=style["running"]), 8))
        elif s.last_run_s is not None:
            parts.append((Text(f"last {format_seconds(s.last_run_s)}", style=style["muted"]), 0))
        if s.hint:
            parts.insert(0, (Text(s.hint, style=style["hint"]), 10))  # first: it must not be cut off
        elif s.run_started_at is not None:
            parts.append((Text("esc to interrupt", style=style["hint"]), 9))
        width = self.size.width
        while len(parts) > 1 and sum(len(t) for t, _ in parts) + 3 * (len(parts) - 1) > width:
            parts.remove(min(parts, key=lambda p: p[1]))
        line = sep.join(t for t, _ in parts)
        line.truncate(width, overflow="ellipsis")
        return line
