"""Text a model chose, drawn so that nothing in it can hide or act: each character shows as itself or as a mark.

Rich and Textual hand ESC and the other control characters to the terminal as they are (and drop `\\r`
silently), so a command could recolour, overwrite or conceal its own tail (`\\x1b[8m`, `\\x1b[2K`, a
bidi override), or act on the terminal (OSC 52 sets the clipboard). Here every control character
becomes its caret notation (ESC ^[, CR ^M, DEL ^?: plain ASCII, so every font has it), and every
other invisible format character `<U+XXXX>`; both are drawn reversed, so a mark never reads as the
same characters typed literally. A newline stays a line break where several rows are shown (the
dialog, the transcript's record) and becomes ⏎ where there is one row (a lane), so a here-document's
body follows on the same row and the width alone decides where it is cut.
"""

from __future__ import annotations

import re
from typing import Literal

from rich.style import Style, StyleType
from rich.text import Text
from textual.content import Content

NEWLINE_MARK = "⏎"
TAB_SIZE = 4

Kind = Literal["text", "newline", "mark"]
"""A piece is plain text, a newline drawn as ⏎ (one row only), or a mark standing for an invisible character."""

# Unicode 14's categories Cc, Cf, Zl, Zp and Cs (control, format, line and paragraph separators,
# lone surrogates), listed by hand: building the class from unicodedata costs ~0.1 s at start-up.
# Tab and newline are handled before (tabs become spaces; newlines depend on the form).
_INVISIBLE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e"
    "\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ud800-\udfff\ufeff\ufff9-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U00013438\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0001\U000e0020-\U000e007f]"
)
_ONE_ROW = re.compile(_INVISIBLE.pattern[:-1] + "\n]")


def mark_for(char: str) -> str:
    """The visible stand-in of one invisible character."""
    code = ord(char)
    if code < 0x20 or code == 0x7F:
        return "^" + chr(code ^ 0x40)  # caret notation, as `cat -v` and less: ESC ^[, CR ^M, DEL ^?
    return f"<U+{code:04X}>"


def visible_pieces(text: str, *, one_row: bool) -> list[tuple[str, Kind]]:
    """`text` as plain runs and marks, in order. Tabs become spaces (a terminal would jump to the
    next stop, and Rich counts a tab as zero cells, so widths would be wrong)."""
    if "\t" in text:
        text = text.expandtabs(TAB_SIZE)
    pattern = _ONE_ROW if one_row else _INVISIBLE
    pieces: list[tuple[str, Kind]] = []
    start = 0
    for match in pattern.finditer(text):
        if match.start() > start:
            pieces.append((text[start:match.start()], "text"))
        char = match.group()
        pieces.append((NEWLINE_MARK, "newline") if char == "\n" else (mark_for(char), "mark"))
        start = match.end()
    if start < len(text) or not pieces:
        pieces.append((text[start:], "text"))
    return pieces


def visible_line(text: str) -> str:
    """`text` on one row, as a plain string (for places that style it as a whole)."""
    return "".join(piece for piece, _ in visible_pieces(text, one_row=True))


def visible_text(
    text: str,
    *,
    one_row: bool,
    style: StyleType = "",
    newline_style: StyleType = "",
    mark_style: StyleType = Style(reverse=True),
) -> Text:
    """`text` as a Rich Text: plain runs in `style`, ⏎ in `newline_style`, marks in `mark_style`."""
    out = Text(style=style)
    for piece, kind in visible_pieces(text, one_row=one_row):
        out.append(piece, style=mark_style if kind == "mark" else newline_style if kind == "newline" else None)
    return out


def visible_content(text: str, *, one_row: bool, newline_style: str = "$text-accent", mark_style: str = "$text-error reverse") -> Content:
    """`text` as Textual Content (a dialog's Static), with the marks styled from the theme."""
    parts: list[tuple[str, str] | str] = []
    for piece, kind in visible_pieces(text, one_row=one_row):
        parts.append((piece, mark_style) if kind == "mark" else (piece, newline_style) if kind == "newline" else piece)
    return Content.assemble(*parts)
