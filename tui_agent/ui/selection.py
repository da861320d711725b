"""Mouse selection in the conversation pane, copied to the clipboard through OSC 52.

Textual selects text in a widget whose lines carry offset metadata (`Strip.apply_offsets`): the
transcript's served lines get them, `selected_text` answers `Widget.get_selection` from the lines the
selection spans (drawn again if they were dropped; never the whole conversation), `mark_selection`
draws the selection in the screen's selection style. When the mouse button is released (Textual's
`TextSelected`), `copy_selection` sends the text with `App.copy_to_clipboard`, which writes OSC 52:
the terminal's clipboard, over SSH and through tmux (with `set-clipboard on`, tmux's default for
terminals that support it). Ctrl+C stays interrupt/quit, as in Claude Code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.style import Style
from textual.selection import Selection
from textual.strip import Strip

from .find import highlighted

if TYPE_CHECKING:
    from .widgets.transcript import Transcript


def selected_text(transcript: "Transcript", selection: Selection) -> tuple[str, str] | None:
    """The text under `selection`: only the lines it spans are looked at."""
    height = transcript.virtual_size.height
    if height <= 0:
        return None
    first = selection.start.y if selection.start is not None else 0
    last = selection.end.y if selection.end is not None else height - 1
    lines = [""] * first + [transcript.line_text(n).rstrip() for n in range(first, min(last, height - 1) + 1)]
    return selection.extract("\n".join(lines)), "\n"


def mark_selection(transcript: "Transcript", line_no: int, strip: Strip) -> Strip:
    """`strip` (line `line_no` of the whole conversation) with its selected part in the selection style."""
    selection = transcript.text_selection
    if selection is None:
        return strip
    span = selection.get_span(line_no)
    if span is None:
        return strip
    start, end = span
    end = strip.cell_length if end == -1 else min(end, strip.cell_length)
    if start >= end:
        return strip
    style: Style = transcript.screen.get_component_rich_style("screen--selection")
    return highlighted(strip, [(start, end, style)])


def copy_selection(app: Any) -> str | None:
    """The mouse button was released: copy what is selected (OSC 52). The text copied, None when nothing."""
    text = app.screen.get_selected_text()
    if not text:
        return None
    app.copy_to_clipboard(text)
    app.notify(f"Copied {len(text)} characters", timeout=2)
    return text
