"""An item's drawn lines (Strips) at the transcript's width, cached, and dropped when memory asks.

A plain item is drawn whole, and dropped whole (keeping its height) when the transcript is over its
line budget and the item is out of view. A streamed answer can be thousands of lines: it is drawn
block by block (see MarkdownStream), keeps each finished block's height, and drops the lines of the
blocks out of view one by one, oldest first. Dropped lines are drawn again from the item when they
are shown; drawing is deterministic, so heights do not change.
"""

from __future__ import annotations

import bisect

from textual.strip import Strip

from .cells import Line, RenderContext, markdown_block_lines, render_notice, render_thinking, render_tool, render_user
from .transcript_items import AssistantText, NoticeLine, ThinkingText, ToolCell, TranscriptItem, UserPrompt


class Drawing:
    """A whole item's lines. Line 0 is the blank line above it."""

    def __init__(self, item: TranscriptItem) -> None:
        self.item = item
        self._ctx: RenderContext | None = None
        self._key: object = None
        self._lines: list[Strip] = []
        self._height = 0
        self.changed_from = 0
        """After `update`: the first line that may differ from before (lines above it are as they were)."""

    @property
    def height(self) -> int:
        return self._height

    @property
    def loaded(self) -> int:
        """Lines held in memory."""
        return len(self._lines)

    @property
    def evicted(self) -> bool:
        return self.height > 0 and not self.loaded

    def update(self, ctx: RenderContext) -> None:
        """Draw again if the item or the width changed since the last drawing."""
        item = self.item
        self._ctx = ctx  # a theme change keeps the key: lines drawn again later use the new styles
        key = (ctx.width, item.version, item.call.version if isinstance(item, ToolCell) else 0)
        self.changed_from = 0 if key != self._key else self._height
        if key != self._key:
            self._key = key
            self._lines = self._draw(ctx)
            self._height = len(self._lines)

    def evict(self, keep: range, excess: int) -> int:
        """Drop lines unless `keep` (this item's lines in view) is not empty; return how many were dropped."""
        if keep or not self._lines:
            return 0
        dropped = len(self._lines)
        self._lines = []
        return dropped

    def line(self, index: int) -> Strip:
        if not self._lines:
            assert self._ctx is not None, "line() before update()"
            self._lines = self._draw(self._ctx)
        return self._lines[index]

    def _draw(self, ctx: RenderContext) -> list[Strip]:
        item = self.item
        if isinstance(item, UserPrompt):
            body = render_user(ctx, item)
        elif isinstance(item, ThinkingText):
            body = render_thinking(ctx, item)
        elif isinstance(item, ToolCell):
            body = render_tool(ctx, item)
        elif isinstance(item, NoticeLine):
            body = render_notice(ctx, item)
        else:
            raise TypeError(f"no drawing for {type(item).__name__}")
        return [Strip.blank(ctx.width), *body]


class MarkdownDrawing(Drawing):
    """A streamed answer: each finished block is drawn once (and again only after being dropped); the
    unfinished tail is drawn again when it changes and is never dropped."""

    def __init__(self, item: AssistantText) -> None:
        super().__init__(item)
        self.stream = item.stream
        self._width = 0
        self._ends: list[int] = []  # the line after each finished block (line 0 is the blank above)
        self._blocks: dict[int, list[Line]] = {}  # the finished blocks' lines still in memory
        self._block_lines = 0  # lines held in `_blocks`
        self._tail_source = ""
        self._tail: list[Line] = []

    @property
    def done_blocks(self) -> int:
        """Finished blocks drawn (their heights are known)."""
        return len(self._ends)

    @property
    def _done_height(self) -> int:
        return self._ends[-1] if self._ends else 1

    @property
    def height(self) -> int:
        return self._done_height + len(self._tail)

    @property
    def loaded(self) -> int:
        return self._block_lines + len(self._tail)

    def update(self, ctx: RenderContext) -> None:
        self._ctx = ctx
        redraw = ctx.width != self._width
        if redraw:
            self._width, self._ends, self._blocks, self._block_lines, self._tail_source = ctx.width, [], {}, 0, "\0"
        # Finished blocks never change; below them, the lines drawn before are compared with the new ones.
        was_done, was_tail, new_lines = self._done_height, self._tail, []
        for index in range(len(self._ends), len(self.stream.finished)):
            lines = self._draw_block(ctx, index)
            self._blocks[index] = lines
            self._block_lines += len(lines)
            self._ends.append(self._done_height + len(lines))
            new_lines += lines
        tail = self.stream.tail
        if tail != self._tail_source:
            self._tail_source = tail
            gap: list[Line] = [()] if self._ends else []
            self._tail = gap + markdown_block_lines(ctx, tail, first=not self._ends) if tail else []
        new_lines += self._tail
        self.changed_from = 0 if redraw else was_done + _same_prefix(was_tail, new_lines)

    def evict(self, keep: range, excess: int) -> int:
        """Drop finished blocks outside `keep`, oldest first, until `excess` lines are dropped."""
        dropped = 0
        for index in sorted(self._blocks):
            if dropped >= excess:
                break
            start, end = self._block_span(index)
            if start < keep.stop and keep.start < end:
                continue
            lines = self._blocks.pop(index)
            dropped += len(lines)
        self._block_lines -= dropped
        return dropped

    def line(self, index: int) -> Strip:
        done = self._done_height
        if index >= done:
            return self._strip(self._tail[index - done])
        if index == 0:
            return Strip.blank(self._width)
        block = bisect.bisect_right(self._ends, index)
        lines = self._blocks.get(block)
        if lines is None:
            assert self._ctx is not None, "line() before update()"
            lines = self._blocks[block] = self._draw_block(self._ctx, block)
            self._block_lines += len(lines)
        return self._strip(lines[index - self._block_span(block)[0]])

    def _strip(self, line: Line) -> Strip:
        return Strip(line) if line else Strip.blank(self._width)

    def _block_span(self, index: int) -> tuple[int, int]:
        return (self._ends[index - 1] if index else 1), self._ends[index]

    def _draw_block(self, ctx: RenderContext, index: int) -> list[Line]:
        lines = markdown_block_lines(ctx, self.stream.finished[index], first=index == 0)
        return [(), *lines] if index else lines


def _same_prefix(old: list[Line], new: list[Line]) -> int:
    """How many leading lines are unchanged. Text appended to a paragraph leaves its wrapped lines
    above the last as they were: those keep the lines already served (and styled) for them."""
    same = 0
    for before, after in zip(old, new):
        if before != after:
            break
        same += 1
    return same
