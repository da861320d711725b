"""The tool-execution panel: what runs now, lane by lane, and a timeline of the run's finished calls.

Each row is one call: its lane, name, what it does (a shell call's whole command, newlines shown as ⏎),
a bar on the run's time axis (so overlaps show) and its timer or final status. Running shell calls get
a second line: their last output line, a "no output for Ns" mark when quiet, and their timeout
countdown. A 10 Hz timer redraws the timers only while something is active (once a second under a
dialog); it is paused when the run is idle.
"""

from __future__ import annotations

import math
from typing import Callable

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import Widget

from ..type_to_prompt import hand_key_to_prompt
from .agent_lanes import agent_row_parts, hidden_rows, lane_rows
from .covered_tick import CoveredTick
from .lane_row import MARK, RowParts, lane_row
from .role_styles import RoleStyleCache
from .tool_calls import SANDBOX_TAG, ToolCall, ToolCalls
from .visible_text import visible_text

TICK = 0.1
QUIET_AFTER_S = 3.0
MIN_SPAN_S = 1.0
ROLES = ("header", "muted", "primary", "ok", "error", "warning", "selected", "bar-track")
PHASE_ROLE = {"queued": "muted", "waiting": "warning", "running": "primary", "ok": "ok", "error": "error", "denied": "warning", "cancelled": "muted"}
PHASE_GLYPH = {"queued": "○", "waiting": "?", "running": "●", "ok": "✓", "error": "✗", "denied": "⊘", "cancelled": "■"}


def format_seconds(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes}:{secs:02d}"


class LanePanel(Widget, can_focus=True):
    """Up/down select an active call; x or delete cancels it alone."""

    COMPONENT_CLASSES = {f"lanes--{role}" for role in ROLES}
    BINDINGS = [
        Binding("up", "select(-1)", "Previous", show=False),
        Binding("down", "select(1)", "Next", show=False),
        Binding("x,delete", "cancel_selected", "Cancel tool", show=False),
    ]

    class CancelRequested(Message):
        """The user asked to stop one tool call."""

        def __init__(self, tool_use_id: str) -> None:
            super().__init__()
            self.tool_use_id = tool_use_id

    max_rows: reactive[int] = reactive(8, layout=True)

    def __init__(self, calls: ToolCalls, clock: Callable[[], float], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.calls = calls
        self.clock = clock
        self.run_started_at: float | None = None
        self.selected_id: str | None = None
        self._ticker: Timer | None = None
        self.ticking = False
        """Whether the 10 Hz redraw runs (only while a call is active)."""
        self._styles = RoleStyleCache("lanes", ROLES, with_background=("selected",))
        self._covered_tick = CoveredTick(self, clock)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.forget()

    def on_mount(self) -> None:
        self._ticker = self.set_interval(TICK, self._tick, pause=True)

    def _tick(self) -> None:
        if self._covered_tick.due():
            self.refresh()

    def start_run(self, t: float) -> None:
        self.run_started_at = t
        self.selected_id = None

    def sync(self) -> None:
        """Call after the calls changed: run the timer while anything is active, redraw."""
        active = bool(self.calls.active_calls())
        if self._ticker is not None and active != self.ticking:
            self._ticker.resume() if active else self._ticker.pause()
            self.ticking = active
        if self.selected_id is not None and (call := self.calls.get(self.selected_id)) is not None and not call.active:
            self.selected_id = None
        self.refresh(layout=True)

    # ----- selection ----------------------------------------------------------------------------
    def action_select(self, step: int) -> None:
        ids = [c.id for c in self._rows() if c.active]
        if not ids:
            return
        if self.selected_id not in ids:
            self.selected_id = ids[0] if step > 0 else ids[-1]
        else:
            self.selected_id = ids[max(0, min(len(ids) - 1, ids.index(self.selected_id) + step))]
        self.refresh()

    def action_cancel_selected(self) -> None:
        if self.selected_id is not None:
            self.post_message(self.CancelRequested(self.selected_id))

    def on_key(self, event: events.Key) -> None:
        hand_key_to_prompt(self, event)  # a letter typed here goes to the prompt; x and the arrows stay here

    def on_focus(self) -> None:
        self.action_select(1)

    def on_blur(self) -> None:
        self.refresh()

    # ----- drawing ------------------------------------------------------------------------------
    def _rows(self) -> list[ToolCall]:
        return lane_rows(self.calls, self.max_rows)  # subagents' calls grouped under their Agent row

    def get_content_height(self, container: object, viewport: object, width: int) -> int:
        rows = self._rows()
        extra = sum(1 for c in rows if c.is_shell and c.phase == "running")
        return 1 + len(rows) + extra + (1 if hidden_rows(self.calls, rows) else 0)

    def render(self) -> Text:
        styles = self._styles.get(self)
        now = self.clock()
        width = self.content_region.width or self.size.width
        rows = self._rows()
        t0 = self.run_started_at if self.run_started_at is not None else min((c.t_queued for c in rows), default=now)
        ends = [c.t_end for c in self.calls.calls.values() if c.t_end is not None]
        span = max(MIN_SPAN_S, (now if any(c.active for c in rows) else max(ends, default=now)) - t0)
        lines = [self._header(styles, now, t0, width)]
        for call in rows:
            view = self.calls.agents.get(call.id)
            parts = agent_row_parts(call, view, now) if view is not None else self._parts(call, now)
            selected = call.id == self.selected_id and self.has_focus
            bar = lambda w, c=call: self._bar(c, styles, now, t0, span, w)  # noqa: E731
            lines.append(lane_row(call, parts, styles, width, selected=selected, bar=bar))
            if call.is_shell and call.phase == "running":
                lines.append(self._shell_line(call, styles, now, width))
        hidden = hidden_rows(self.calls, rows)
        if hidden > 0:
            lines.append(Text(f"   … {hidden} earlier", style=styles["muted"]))
        return Text("\n").join(lines)

    def _header(self, styles: dict[str, Style], now: float, t0: float, width: int) -> Text:
        counts: dict[str, int] = {}
        for call in self.calls.calls.values():
            counts[call.phase] = counts.get(call.phase, 0) + 1
        parts = [f"{n} {phase}" for phase, n in counts.items()]
        text = Text("Tools ", style=styles["header"])
        text.append(" · ".join(parts), style=styles["muted"])
        hint = "  ↑↓ select · x cancel · ctrl+t hide" if self.has_focus else "  ctrl+t hide"
        text.append(hint, style=styles["muted"])
        text.truncate(width, overflow="ellipsis")
        return text

    @classmethod
    def _parts(cls, call: ToolCall, now: float) -> RowParts:
        name_w = min(15, max(4, len(call.name)))  # AskUserQuestion whole; mcp__… names cut
        summary = ((call.subject, "muted"),)  # the whole command: a heredoc's body follows its ⏎ on the row
        role = PHASE_ROLE[call.phase]
        tag = (SANDBOX_TAG, "ok") if call.sandboxed else None
        return RowParts(PHASE_GLYPH[call.phase], role, call.name, name_w, summary, cls._status(call, now), name_w, tag)

    @staticmethod
    def _status(call: ToolCall, now: float) -> str:
        if call.phase == "queued":
            return f"queued {format_seconds(now - call.t_queued)}"
        if call.phase == "waiting":
            return f"waiting for you {format_seconds(now - (call.waiting_since or now))}"
        if call.phase == "running":
            return format_seconds(call.elapsed(now))
        if call.phase == "denied":
            return f"denied “{call.denied_words}”" if call.denied_words else "denied"
        duration = format_seconds(call.elapsed(now)) if call.t_start is not None else ""
        return f"{call.phase} {duration}".strip()

    @staticmethod
    def _bar(call: ToolCall, styles: dict[str, Style], now: float, t0: float, span: float, width: int) -> Text:
        start = call.t_start if call.t_start is not None else call.t_queued
        end = call.t_end if call.t_end is not None else now
        first = min(width - 1, max(0, int((start - t0) / span * width)))
        last = min(width, max(first + 1, math.ceil((end - t0) / span * width)))
        waiting = call.phase in ("queued", "waiting")
        text = Text("─" * first, style=styles["bar-track"])
        text.append(("┄" if waiting else "█") * (last - first), style=styles[PHASE_ROLE[call.phase]])
        text.append("─" * (width - last), style=styles["bar-track"])
        return text

    @staticmethod
    def _shell_line(call: ToolCall, styles: dict[str, Style], now: float, width: int) -> Text:
        text = Text("      └ ", style=styles["muted"])
        marks: list[str] = []
        quiet = now - (call.last_output_t if call.last_output_t is not None else now)
        if quiet > QUIET_AFTER_S:
            marks.append(f"no output for {int(quiet)}s")
        left = call.timeout_s - call.elapsed(now)
        marks.append(f"timeout in {format_seconds(max(0.0, left))}")
        tail = "  " + " · ".join(marks)
        last = call.last_line or "(no output yet)"  # the command's own output: escapes shown, not obeyed
        line = visible_text(last, one_row=True, style=styles["muted"], mark_style=MARK + styles["error"])
        line.truncate(max(0, width - len(text) - len(tail)), overflow="ellipsis", pad=True)
        text.append(line)
        text.append(tail, style=styles["warning"] if quiet > QUIET_AFTER_S else styles["muted"])
        return text
