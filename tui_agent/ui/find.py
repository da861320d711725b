"""Ctrl+F: find text in the whole conversation (scrolled off or not).

A one-row bar above the prompt: typing searches (case-insensitive) every line of the transcript as
drawn; Enter or F3 goes to the next match, Shift+Enter or Shift+F3 to the previous one, the pane
scrolls to it, "2 of 7" counts. The matches are marked through `Transcript.highlight`, applied when a
line is served (once per line, kept by the transcript's served-line cache), so the per-frame path is
unchanged. Esc (the app's escape action calls `close_find`) closes it and gives the prompt back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from rich.style import Style
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.geometry import Region
from textual.strip import Strip
from textual.widgets import Input, Static

if TYPE_CHECKING:
    from .widgets.transcript import Transcript

MATCH = Style(bgcolor="#665c00")  # every match: dim, so the current one stands out
CURRENT = Style(bgcolor="#ffaf00", color="black", bold=True)

Match = tuple[int, int, int]
"""(line number, first cell, end cell) of one match."""


def find_matches(transcript: "Transcript", query: str) -> list[Match]:
    """Every match of `query` (case-insensitive) in the conversation, top to bottom."""
    if not query:
        return []
    transcript.flush()  # what was streamed but not drawn yet
    wanted = query.casefold()
    matches: list[Match] = []
    for line_no in range(transcript.virtual_size.height):
        text = transcript.line_text(line_no)
        folded = text.casefold()
        if len(folded) != len(text):  # casefold changed lengths (ß → ss): positions from the lower-cased text
            folded = text.lower()
        start = folded.find(wanted)
        while start >= 0:
            end = start + len(wanted)
            matches.append((line_no, cell_len(text[:start]), cell_len(text[:end])))
            start = folded.find(wanted, max(end, start + 1))
    return matches


def highlighted(strip: Strip, spans: list[tuple[int, int, Style]]) -> Strip:
    """`strip` with each (start, end) cell span in its style."""
    cuts = sorted({c for start, end, _ in spans for c in (start, end)} | {strip.cell_length})
    parts = strip.divide(cuts)
    out, at = [], 0
    for part in parts:
        style = next((s for start, end, s in spans if start <= at < end), None)
        out.append(part.apply_style(style) if style is not None else part)
        at += part.cell_length
    return Strip.join(out)


class FindBar(Horizontal):
    """The find bar: the query, then "n of m"."""

    DEFAULT_CSS = """
    FindBar { height: 1; dock: none; }
    FindBar > Static { width: auto; padding: 0 1; }
    FindBar > Input, FindBar > Input:focus { border: none; height: 1; width: 1fr; padding: 0; background: $boost; }
    FindBar > #find-count { color: $text-muted; }
    """
    BINDINGS = [
        Binding("f3", "step(1)", "Next", show=False),
        Binding("shift+enter,shift+f3", "step(-1)", "Previous", show=False),
    ]

    def __init__(self, transcript: "Transcript") -> None:
        super().__init__(id="find-bar")
        self.transcript = transcript
        self.matches: list[Match] = []
        self.current = -1
        self._searched: tuple[str, int] | None = None  # (query, the transcript's height) last searched
        self.input = Input(placeholder="text in the conversation", id="find-input")

    def compose(self) -> ComposeResult:
        yield Static("Find:", id="find-label")
        yield self.input
        yield Static("", id="find-count")

    @property
    def count_text(self) -> str:
        return str(self.query_one("#find-count", Static).content)

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.search(event.value)
        self.step(1, from_top=True)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.step(1)

    def action_step(self, step: int) -> None:
        self.step(step)

    def search(self, query: str) -> None:
        self.matches = find_matches(self.transcript, query)
        self.current = -1
        self._searched = (query, self.transcript.virtual_size.height)

    def step(self, step: int, *, from_top: bool = False) -> None:
        """Go to the next (1) or previous (-1) match, wrapping around; scroll to it."""
        query = self.input.value
        if self._searched != (query, self.transcript.virtual_size.height):  # the conversation grew
            self.search(query)
        if self.matches:
            if from_top or self.current < 0:
                self.current = 0 if step > 0 else len(self.matches) - 1
            else:
                self.current = (self.current + step) % len(self.matches)
            line_no, start, end = self.matches[self.current]
            self.transcript.scroll_to_region(Region(start, line_no, max(1, end - start), 1), animate=False, immediate=True, center=True)
        self._show()

    def _show(self) -> None:
        query = self.input.value
        count = self.query_one("#find-count", Static)
        if not query:
            count.update("")
        elif not self.matches:
            count.update("No matches")
        else:
            count.update(f"{self.current + 1} of {len(self.matches)}")
        by_line: dict[int, list[tuple[int, int, Style]]] = {}
        for index, (line_no, start, end) in enumerate(self.matches):
            by_line.setdefault(line_no, []).append((start, end, CURRENT if index == self.current else MATCH))
        self.transcript.set_highlight((lambda n, strip: highlighted(strip, by_line[n]) if n in by_line else strip) if by_line else None)


def open_find(app: Any) -> None:
    """Ctrl+F: show the bar above the prompt (or focus it again) with its text selected."""
    bars = app.query(FindBar)
    if bars:
        bar = bars.first()
        bar.input.focus()
        bar.input.select_all()
        return
    bar = FindBar(app.transcript)
    app.mount(bar, before=app.prompt)
    app.call_after_refresh(bar.input.focus)


def close_find(app: Any) -> bool:
    """Esc in the find bar: close it, clear the marks, back to the prompt. True when it was open and focused."""
    bars = app.query(FindBar)
    if not bars or not (app.focused is not None and bars.first() in app.focused.ancestors_with_self):
        return False
    bars.first().remove()
    app.transcript.set_highlight(None)
    app.prompt.focus()
    return True
