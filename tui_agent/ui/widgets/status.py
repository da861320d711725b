"""The status line: model, permission mode, tokens, cost, the turn timer and what ESC would do."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from rich.text import Text
from textual.timer import Timer
from textual.widget import Widget

from .lanes import format_seconds
from .role_styles import role_styles

TICK = 0.1
ROLES = ("model", "mode", "muted", "running", "hint")


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


class StatusLine(Widget):
    COMPONENT_CLASSES = {f"status--{role}" for role in ROLES}

    def __init__(self, clock: Callable[[], float], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.clock = clock
        self.state = StatusState()
        self._ticker: Timer | None = None
        self._ticking = False

    def on_mount(self) -> None:
        self._ticker = self.set_interval(TICK, self.refresh, pause=True)

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
        s = self.state
        style = role_styles(self, "status", ROLES)
        sep = Text(" · ", style=style["muted"])
        parts = [
            Text("demo model" if s.demo else s.model, style=style["model"]),
            Text(f"{s.mode} mode", style=style["mode"]),
            *([Text(s.mcp, style=style["muted"])] if s.mcp else []),
            Text(f"↑{format_tokens(s.input_tokens)} ↓{format_tokens(s.output_tokens)}", style=style["muted"]),
            Text("cost unknown" if s.cost_usd is None else f"${s.cost_usd:.4f}", style=style["muted"]),
        ]
        if s.run_started_at is not None:
            parts.append(Text(format_seconds(self.clock() - s.run_started_at), style=style["running"]))
        elif s.last_run_s is not None:
            parts.append(Text(f"last {format_seconds(s.last_run_s)}", style=style["muted"]))
        if s.hint:
            parts.insert(0, Text(s.hint, style=style["hint"]))  # first: it must not be cut off
        elif s.run_started_at is not None:
            parts.append(Text("esc to interrupt", style=style["hint"]))
        line = sep.join(parts)
        line.truncate(self.size.width, overflow="ellipsis")
        return line
