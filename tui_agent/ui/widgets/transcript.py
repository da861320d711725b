"""The conversation pane: a virtualised transcript on Textual's line API.

Why not one widget per message: every layout change re-lays-out every mounted widget, scrolled-off
ones included, so a long session gets slower with each message. Here the pane is ONE widget (a
ScrollView). Each item is drawn once into cached lines (Strips) at the current width; `render_line`
serves only the visible lines by looking them up. The answer being streamed is drawn incrementally:
its finished Markdown blocks once each, its unfinished tail again at most 20 times a second (a
one-shot timer armed by changes, so an idle pane costs nothing).
"""

from __future__ import annotations

import bisect

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.timer import Timer

from .cells import (
    RenderContext,
    render_markdown_block,
    render_notice,
    render_thinking,
    render_tool,
    render_user,
)
from .role_styles import role_styles
from .transcript_items import AssistantText, NoticeLine, ThinkingText, ToolCell, TranscriptItem, UserPrompt

REFRESH_INTERVAL = 0.05  # the live tail is redrawn at most 20 times a second
LINE_BUDGET = 4_000  # drawn lines kept in memory; items beyond it keep only their height
ROLES = ("text", "muted", "primary", "accent", "ok", "error", "warning", "user", "tool-name", "thinking", "diff-add", "diff-remove", "selected")


class _Drawing:
    """An item's drawn lines, with the key they were drawn for. Line 0 is the blank line above it.

    An evicted drawing keeps only its height; it is drawn again (same width, same lines) when shown.
    """

    def __init__(self) -> None:
        self.key: object = None
        self.lines: list[Strip] = []
        self.evicted_height: int | None = None

    @property
    def evicted(self) -> bool:
        return self.evicted_height is not None

    @property
    def height(self) -> int:
        return self.evicted_height if self.evicted_height is not None else len(self.lines)

    def evict(self) -> None:
        self.evicted_height = self.height
        self.key, self.lines = None, []

    def line(self, index: int) -> Strip:
        return self.lines[index]

    def update(self, ctx: RenderContext, item: TranscriptItem) -> None:
        key = (ctx.width, item.version, item.call.version if isinstance(item, ToolCell) else 0)
        if key == self.key:
            return
        self.key = key
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
        self.lines = [Strip.blank(ctx.width), *body]
        self.evicted_height = None


class _MarkdownDrawing(_Drawing):
    """A streamed answer: finished blocks are drawn once and kept; only the tail is drawn again."""

    def __init__(self) -> None:
        super().__init__()
        self.width = 0
        self.done_blocks = 0
        self.done_lines: list[Strip] = []
        self.tail_source = ""
        self.tail_lines: list[Strip] = []

    @property
    def height(self) -> int:
        if self.evicted_height is not None:
            return self.evicted_height
        return len(self.done_lines) + len(self.tail_lines)

    def evict(self) -> None:
        self.evicted_height = self.height
        self.width, self.done_blocks, self.done_lines, self.tail_lines, self.tail_source = 0, 0, [], [], ""

    def line(self, index: int) -> Strip:
        done = len(self.done_lines)
        return self.done_lines[index] if index < done else self.tail_lines[index - done]

    def update(self, ctx: RenderContext, item: TranscriptItem) -> None:
        assert isinstance(item, AssistantText)
        stream = item.stream
        if ctx.width != self.width:
            self.width, self.done_blocks, self.done_lines, self.tail_source = ctx.width, 0, [], "\0"
            self.done_lines = [Strip.blank(ctx.width)]
        for source in stream.finished[self.done_blocks :]:
            if self.done_blocks:
                self.done_lines.append(Strip.blank(ctx.width))
            self.done_lines.extend(render_markdown_block(ctx, source, first=self.done_blocks == 0))
            self.done_blocks += 1
        tail = stream.tail
        if tail != self.tail_source:
            self.tail_source = tail
            if not tail:
                self.tail_lines = []
            else:
                gap = [Strip.blank(ctx.width)] if self.done_blocks else []
                self.tail_lines = gap + render_markdown_block(ctx, tail, first=self.done_blocks == 0)
        self.evicted_height = None


class Transcript(ScrollView, can_focus=True):
    """Shows transcript items; up/down select a tool call or thinking block, enter expands it."""

    COMPONENT_CLASSES = {f"transcript--{role}" for role in ROLES}
    BINDINGS = [
        Binding("up", "select(-1)", "Previous", show=False),
        Binding("down", "select(1)", "Next", show=False),
        Binding("enter", "toggle", "Expand", show=False),
        Binding("end", "follow", "Follow", show=False),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.items: list[TranscriptItem] = []
        self._drawings: list[_Drawing] = []
        self._index: dict[int, int] = {}  # id(item) -> position
        self._starts: list[int] = []  # first line of each item
        self._dirty: set[int] = set()
        self._timer: Timer | None = None
        self._styles: dict[str, Style] | None = None
        self._width = 0
        self.selected: int | None = None
        self.following = True
        """Keep the end in view as lines arrive; off once the user scrolls up, on again at the end."""

    # ----- feeding ------------------------------------------------------------------------------
    def add(self, item: TranscriptItem, *, now: bool = False) -> None:
        self._index[id(item)] = len(self.items)
        self.items.append(item)
        self._drawings.append(_MarkdownDrawing() if isinstance(item, AssistantText) else _Drawing())
        self._dirty.add(len(self.items) - 1)
        self.flush() if now else self._schedule()

    def changed(self, item: TranscriptItem, *, now: bool = False) -> None:
        position = self._index.get(id(item))
        if position is not None:
            self._dirty.add(position)
            self.flush() if now else self._schedule()

    def truncate(self, count: int) -> None:
        """Drop the items from position `count` on (what a failed, retried response showed)."""
        if count >= len(self.items):
            return
        for item in self.items[count:]:
            self._index.pop(id(item), None)
        del self.items[count:], self._drawings[count:], self._starts[count:]
        self._dirty = {i for i in self._dirty if i < count}
        if self.selected is not None and self.selected >= count:
            self.selected = None
        total = self._starts[-1] + self._drawings[-1].height if self._starts else 0
        self.virtual_size = Size(self._width, total)
        self.refresh()

    def _schedule(self) -> None:
        if self._timer is None and self.is_mounted:
            self._timer = self.set_timer(REFRESH_INTERVAL, self.flush)

    # ----- drawing ------------------------------------------------------------------------------
    def _render_context(self) -> RenderContext:
        if self._styles is None:
            self._styles = role_styles(self, "transcript", ROLES, with_background=("diff-add", "diff-remove"))
        return RenderContext(self.app.console, self._width, self._styles)

    def flush(self) -> None:
        """Draw what changed and update the scroll size; follow the end unless the user scrolled up."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        width = self.scrollable_content_region.width
        if width <= 0:
            return  # not laid out yet; on_resize draws everything
        if width != self._width:
            self._width = width
            self._dirty = set(range(len(self.items)))
        if self._dirty:
            self._draw_dirty(width)
        self._evict_beyond_budget()

    def _draw_dirty(self, width: int) -> None:
        ctx = self._render_context()
        first = min(self._dirty)
        for position in self._dirty:
            self._drawings[position].update(ctx, self.items[position])
        self._dirty.clear()
        # Only the starts after the first changed item can move.
        del self._starts[first:]
        line = self._starts[-1] + self._drawings[first - 1].height if first else 0
        for drawing in self._drawings[first:]:
            self._starts.append(line)
            line += drawing.height
        self.virtual_size = Size(width, line)
        self.refresh()
        if self.following:
            self.scroll_end(animate=False, immediate=False, x_axis=False)

    def _evict_beyond_budget(self) -> None:
        """Bound memory however long the session: drop the lines of the oldest items out of view."""
        loaded = sum(d.height for d in self._drawings if not d.evicted)
        if loaded <= LINE_BUDGET:
            return
        # Following: the view is about to be at the end (scroll_end is applied after this refresh).
        top = max(0, self.virtual_size.height - self.size.height) if self.following else self.scroll_offset.y
        visible = range(self.item_at(top) or 0, (self.item_at(top + self.size.height) or len(self.items) - 1) + 1)
        for position, drawing in enumerate(self._drawings):
            if loaded <= LINE_BUDGET:
                break
            item = self.items[position]
            if drawing.evicted or position in visible or (isinstance(item, AssistantText) and not item.stream.closed):
                continue
            loaded -= drawing.height
            drawing.evict()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if new_value >= self.max_scroll_y:
            self.following = True
        elif new_value < old_value:
            self.following = False  # only the user scrolls up; growth and follow only go down

    def on_resize(self, event: events.Resize) -> None:
        self.flush()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles = None
        self._width = 0  # theme changed: draw everything again
        if self.is_mounted:
            self.call_later(self.flush)

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        line_no = scroll_y + y
        position = bisect.bisect_right(self._starts, line_no) - 1
        if position < 0 or position >= len(self._drawings):
            return Strip.blank(width, self.rich_style)
        drawing = self._drawings[position]
        if drawing.evicted:
            drawing.update(self._render_context(), self.items[position])
            self._schedule()  # the next flush evicts others to stay within the budget
        offset = line_no - self._starts[position]
        if offset >= drawing.height:
            return Strip.blank(width, self.rich_style)
        strip = drawing.line(offset)
        if position == self.selected and offset > 0 and self.has_focus:
            marker = Segment("▌", self._render_context().style("selected"))
            strip = Strip.join([Strip([marker], 1), strip.crop(1, strip.cell_length)])
        return strip.crop_extend(scroll_x, scroll_x + width, self.rich_style).apply_style(self.rich_style)

    # ----- selection ----------------------------------------------------------------------------
    def action_select(self, step: int) -> None:
        candidates = [i for i, item in enumerate(self.items) if item.selectable]
        if not candidates:
            return
        if self.selected is None:
            position = candidates[-1] if step < 0 else candidates[0]
        else:
            later = [i for i in candidates if (i - self.selected) * step > 0]
            if not later:
                return
            position = min(later, key=lambda i: abs(i - self.selected))  # type: ignore[operator]
        self._select(position)

    def _select(self, position: int | None) -> None:
        self.selected = position
        self.refresh()
        if position is not None and position < len(self._starts):
            region = Region(0, self._starts[position], 1, self._drawings[position].height)
            self.scroll_to_region(region, animate=False, immediate=True)

    def action_toggle(self) -> None:
        if self.selected is not None:
            item = self.items[self.selected]
            item.toggle()
            self.changed(item, now=True)

    def action_follow(self) -> None:
        self.following = True
        self.scroll_end(animate=False, immediate=True)

    def collapse_selected(self) -> bool:
        """ESC on an expanded item closes it. True when something was closed."""
        if self.selected is not None and self.items[self.selected].expanded:
            self.action_toggle()
            return True
        return False

    def item_at(self, line_no: int) -> int | None:
        position = bisect.bisect_right(self._starts, line_no) - 1
        return position if 0 <= position < len(self.items) else None

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        position = self.item_at(self.scroll_offset.y + offset.y)
        if position is not None and self.items[position].selectable:
            self._select(position)
            self.action_toggle()

    def on_focus(self) -> None:
        if self.selected is None:
            self.action_select(-1)  # start at the latest tool call
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()
