"""One row of the lane panel, laid out in its columns: marker, lane, glyph, name, tag, summary, bar, status.

A tool call's row and a subagent's header row say different things (`RowParts`) in the same columns,
so both are drawn by `lane_row`: the columns line up and a change to the layout changes both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from rich.style import Style
from rich.text import Text

from .tool_calls import ToolCall
from .visible_text import visible_line, visible_pieces

STATUS_W = 22
BAR_MAX_W = 40
BAR_MIN_WIDTH = 70
"""Narrower panels have no bar."""
MARK = Style(reverse=True)
"""A control character's mark (^[, ^M, <U+202E>) stands out from the text around it, as in `less`."""


@dataclass(frozen=True, slots=True)
class RowParts:
    """What a row says. Roles name the panel's styles (`lanes--<role>`); None is unstyled."""

    glyph: str
    role: str
    """The glyph's and the status's style."""
    name: str
    name_w: int
    summary: tuple[tuple[str, str | None], ...]
    """(text, role) pieces, truncated together to the summary column. Drawn on one row: a newline shows
    as ⏎ and control characters as marks in the error style (see visible_text)."""
    status: str
    bar_name_w: int
    """The name width the bar's width is computed from: one value for every row keeps the bars of a
    group on one time axis, column for column."""
    tag: tuple[str, str] | None = None
    """(text, role) before the summary, taken from its width: `[sbx]` for a command in the OS sandbox."""


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
    tag_w = len(parts.tag[0]) + 1 if parts.tag else 0
    summary_w = max(0, width - 6 - len(indent) - parts.name_w - 1 - tag_w - bar_w - (1 if bar_w else 0) - STATUS_W - 1)

    text = Text(style=styles["selected"] if selected else "")
    text.append("▌" if selected else " ", style=styles["primary"])
    text.append(indent + (f"{call.lane:>2} " if call.lane >= 0 else " · "), style=styles["muted"])
    text.append(parts.glyph + " ", style=styles[parts.role])
    name = Text(visible_line(parts.name), style="bold")
    name.truncate(parts.name_w, overflow="ellipsis", pad=True)
    text.append(name)
    text.append(" ")
    if parts.tag:
        text.append(parts.tag[0], style=styles[parts.tag[1]])
        text.append(" ")
    base = parts.summary[0][1] if parts.summary else None
    summary = Text(style=styles[base] if base is not None else "")  # its style is also the padding's
    for piece, role in parts.summary:
        for run, kind in visible_pieces(piece, one_row=True):
            if kind == "mark":
                summary.append(run, style=MARK + styles["error"])
            elif kind == "newline":
                summary.append(run, style=styles["primary"])
            else:  # in the base style without a span of its own: one segment with the padding
                summary.append(run, style=styles[role] if role not in (base, None) else None)
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
