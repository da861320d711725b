"""One row of the lane panel, laid out in its columns: marker, lane, glyph, name, summary, bar, status.

A tool call's row and a subagent's header row say different things (`RowParts`) in the same columns,
so both are drawn by `lane_row`: the columns line up and a change to the layout changes both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from rich.style import Style
from rich.text import Text

from .tool_calls import ToolCall

STATUS_W = 22
BAR_MAX_W = 40
BAR_MIN_WIDTH = 70
"""Narrower panels have no bar."""


@dataclass(frozen=True, slots=True)
class RowParts:
    """What a row says. Roles name the panel's styles (`lanes--<role>`); None is unstyled."""

    glyph: str
    role: str
    """The glyph's and the status's style."""
    name: str
    name_w: int
    summary: tuple[tuple[str, str | None], ...]
    """(text, role) pieces, truncated together to the summary column."""
    status: str
    bar_name_w: int
    """The name width the bar's width is computed from: one value for every row keeps the bars of a
    group on one time axis, column for column."""


def lane_row(
    call: ToolCall,
    parts: RowParts,
    styles: dict[str, Style],
    width: int,
    *,
    selected: bool,
    bar: Callable[[int], Text],
) -> Text:
    """`parts` as one line of `width` cells; `bar(w)` draws the call's bar `w` cells wide."""
    indent = "  " * call.depth  # a subagent's own call, under its Agent row
    bar_w = max(0, min(BAR_MAX_W, (width - 6 - parts.bar_name_w - STATUS_W) // 3)) if width >= BAR_MIN_WIDTH else 0
    summary_w = max(0, width - 6 - len(indent) - parts.name_w - 1 - bar_w - (1 if bar_w else 0) - STATUS_W - 1)

    text = Text(style=styles["selected"] if selected else "")
    text.append("▌" if selected else " ", style=styles["primary"])
    text.append(indent + (f"{call.lane:>2} " if call.lane >= 0 else " · "), style=styles["muted"])
    text.append(parts.glyph + " ", style=styles[parts.role])
    name = Text(parts.name, style="bold")
    name.truncate(parts.name_w, overflow="ellipsis", pad=True)
    text.append(name)
    text.append(" ")
    pieces = [(piece.replace("\n", " "), styles[role] if role is not None else "") for piece, role in parts.summary]
    summary = Text(pieces[0][0], style=pieces[0][1])  # its style is also the padding's
    for piece, style in pieces[1:]:
        summary.append(piece, style=style)
    summary.truncate(summary_w, overflow="ellipsis", pad=True)
    text.append(summary)
    if bar_w:
        text.append(" ")
        text.append(bar(bar_w))
    text.append(" ")
    status = Text(parts.status, style=styles[parts.role])
    status.truncate(STATUS_W, overflow="ellipsis", pad=True)
    text.append(status)
    text.truncate(width, overflow="ellipsis")
    return text
