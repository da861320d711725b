"""Splits streamed Markdown into finished blocks and one unfinished tail.

A finished block is rendered once and cached; only the tail is drawn again as text arrives. To keep
that redraw cheap however the answer is shaped, the tail is bounded: a block ends at a blank line
outside code, at a code fence, or when it reaches a size limit (a long code block is cut into
several fenced pieces that each highlight correctly on their own).
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
MAX_BLOCK_LINES = 40
MAX_LINE_CHARS = 2_000


class MarkdownStream:
    def __init__(self) -> None:
        self.finished: list[str] = []
        """Blocks that will not change again, in order."""
        self._lines: list[str] = []  # complete lines of the unfinished block
        self._partial = ""  # text after the last newline
        self._fence: str | None = None  # the fence marker while inside a code block
        self._opener = ""  # the line that opened the current code block
        self.closed = False

    @property
    def tail(self) -> str:
        """The unfinished block as Markdown that renders on its own (an open code fence is closed)."""
        text = "\n".join(self._lines + ([self._partial] if self._partial else []))
        if self._fence is not None:
            text += "\n" + self._fence
        return text if text.strip() else ""

    @property
    def length(self) -> int:
        return sum(len(b) for b in self.finished) + sum(len(line) + 1 for line in self._lines) + len(self._partial)

    def append(self, text: str) -> None:
        """Add streamed text; lines it completes may finish blocks."""
        if "\n" not in text:
            self._partial += text
            if len(self._partial) > MAX_LINE_CHARS:
                self._break_long_line()
            return
        head, *complete, rest = (self._partial + text).split("\n")
        self._partial = rest
        for line in (head, *complete):
            self._take_line(line)
        if len(self._partial) > MAX_LINE_CHARS:
            self._break_long_line()

    def close(self) -> None:
        """The message is complete: the tail becomes the last finished block."""
        if self._partial:
            self._take_line(self._partial)
            self._partial = ""
        self._finish_block()
        self.closed = True

    def _break_long_line(self) -> None:
        # A huge line with no newline (minified output, a wall of text): wrap it at a space so the
        # tail stays small. Outside code a single newline renders as a space, so nothing is lost.
        cut = self._partial.rfind(" ", 0, MAX_LINE_CHARS)
        cut = cut if cut > 0 else MAX_LINE_CHARS
        line, self._partial = self._partial[:cut], self._partial[cut:].lstrip(" ")
        self._take_line(line)

    def _take_line(self, line: str) -> None:
        if self._fence is not None:
            self._lines.append(line)
            if line.strip().startswith(self._fence) and not line.strip().strip(self._fence[0]):
                self._fence = None
                self._finish_block(closed_fence=True)
            elif len(self._lines) >= MAX_BLOCK_LINES:
                # Close this piece of the code block and reopen it in the next.
                self._lines.append(self._fence)
                fence, opener = self._fence, self._opener
                self._fence = None
                self._finish_block(closed_fence=True)
                self._fence, self._opener = fence, opener
                self._lines = [opener]
            return
        match = _FENCE.match(line)
        if match:
            self._finish_block()
            self._fence, self._opener = match.group(1), line
            self._lines = [line]
            return
        if not line.strip():
            self._finish_block()
            return
        self._lines.append(line)
        if len(self._lines) >= MAX_BLOCK_LINES:
            self._finish_block()

    def _finish_block(self, closed_fence: bool = False) -> None:
        if self._fence is not None and not closed_fence:
            # Only `close()` gets here inside a fence: the answer ended with an open code block.
            self._lines.append(self._fence)
            self._fence = None
        if any(line.strip() for line in self._lines):
            self.finished.append("\n".join(self._lines))
        self._lines = []
