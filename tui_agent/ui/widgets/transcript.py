"""The conversation pane: a virtualised transcript on Textual's line API.

Why not one widget per message: every layout change re-lays-out every mounted widget, scrolled-off
ones included, so a long session gets slower with each message. Here the pane is ONE widget (a
ScrollView). Each item is drawn once into cached lines (Strips, see drawings.py) at the current
width; `render_line` serves only the visible lines by looking them up. The answer being streamed is
drawn incrementally: its finished Markdown blocks once each, its unfinished tail again at most 20
times a second (a one-shot timer armed by changes, so an idle pane costs nothing). Past a line
budget, lines out of view are dropped (heights kept) and drawn again if scrolled back to.

While an answer streams the pane scrolls with every flush, so Textual asks for every visible line
again each time: the lines it serves (cropped, in the pane's style) are kept by line number until
what they show changes, and the pane's style is worked out once per paint, not once per line.
"""

from __future__ import annotations

import bisect
import time
from typing import Callable

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.scrollbar import ScrollBar
from textual.selection import Selection
from textual.strip import Strip
from textual.timer import Timer

from ..type_to_prompt import hand_key_to_prompt
from .cells import RenderContext
from .drawings import Drawing, MarkdownDrawing
from .role_styles import role_styles
from .scrollbar import RowScrollBar
from .styled_lines import ContentKeyedStylesCache
from .transcript_items import AssistantText, TranscriptItem

REFRESH_INTERVAL = 0.1  # the live tail is redrawn at most 10 times a second
FLUSH_SHARE = 0.25  # ... and less often when drawing takes longer: at most this share of the UI thread
LINE_BUDGET = 4_000  # drawn lines kept in memory; beyond it, lines out of view keep only their height
ROLES = ("text", "muted", "primary", "accent", "ok", "error", "warning", "user", "tool-name", "thinking", "diff-add", "diff-remove", "selected")


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
        self._styled_lines = self._styles_cache = ContentKeyedStylesCache()  # a line scrolled by is not styled again
        self.items: list[TranscriptItem] = []
        self._drawings: list[Drawing] = []
        self._index: dict[int, int] = {}  # id(item) -> position
        self._starts: list[int] = []  # first line of each item
        self._dirty: set[int] = set()
        self._timer: Timer | None = None
        self._interval = REFRESH_INTERVAL
        self._styles: dict[str, Style] | None = None
        self._width = 0
        self._served: dict[int, Strip] = {}  # line number -> the line as served at `_served_for`
        self._served_for: tuple[int, int, Style] | None = None  # (scroll x, width, the pane's style)
        self._pane_style: Style | None = None  # the pane's style during one paint
        self._pane_view: tuple[int, int, int, int] | None = None  # (scroll x, scroll y, width, height) during one paint
        self.selected: int | None = None
        self.following = True
        """Keep the end in view as lines arrive; off once the user scrolls up, on again at the end."""
        self.on_flush: Callable[[], None] | None = None
        """Called when a flush drew something: what else ticks (the status timer) joins its frame."""
        self.highlight: Callable[[int, Strip], Strip] | None = None
        """Marks the find bar's matches on a drawn line (ui/find.py); applied once per served line."""

    # ----- feeding ------------------------------------------------------------------------------
    def add(self, item: TranscriptItem, *, now: bool = False) -> None:
        self._index[id(item)] = len(self.items)
        self.items.append(item)
        self._drawings.append(MarkdownDrawing(item) if isinstance(item, AssistantText) else Drawing(item))
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
        self._served.clear()
        self._dirty = {i for i in self._dirty if i < count}
        if self.selected is not None and self.selected >= count:
            self.selected = None
        total = self._starts[-1] + self._drawings[-1].height if self._starts else 0
        self.virtual_size = Size(self._width, total)
        self.refresh()

    def _schedule(self) -> None:
        if self._timer is None and self.is_mounted:
            self._timer = self.set_timer(self._interval, self.flush)

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
        started = time.perf_counter()
        if width != self._width:
            self._width = width
            self._dirty = set(range(len(self.items)))
        if self._dirty:
            self._draw_dirty(width)
            if self.on_flush is not None:
                self.on_flush()
        self._evict_beyond_budget()
        # A long answer's tail is costly to draw again: keys typed meanwhile must not queue behind it.
        self._interval = max(REFRESH_INTERVAL, (time.perf_counter() - started) / FLUSH_SHARE)

    def _draw_dirty(self, width: int) -> None:
        ctx = self._render_context()
        first = min(self._dirty)
        for position in self._dirty:
            self._drawings[position].update(ctx)
        self._dirty.clear()
        # Only the starts after the first changed item can move.
        del self._starts[first:]
        line = self._starts[-1] + self._drawings[first - 1].height if first else 0
        self._forget_served_from(line + self._drawings[first].changed_from)
        for drawing in self._drawings[first:]:
            self._starts.append(line)
            line += drawing.height
        self.virtual_size = Size(width, line)
        self.refresh()
        if self.following:
            # At once when the pane can already scroll: the new size and the new offset are painted
            # in one frame rather than the pane twice (old offset, then scrolled), which halved the
            # repaints of a streaming answer (max_scroll_y already counts the size just set). Until the
            # scrollbar shows, scrolling is refused, so the first overflow waits for the layout.
            self.scroll_end(animate=False, immediate=self.allow_vertical_scroll, x_axis=False)

    def _forget_served_away_from(self, top: int) -> None:
        height = max(1, self.size.height)
        for n in [n for n in self._served if not top - height <= n < top + 2 * height]:
            del self._served[n]

    def _forget_served_from(self, line_no: int) -> None:
        for n in [n for n in self._served if n >= line_no]:
            del self._served[n]

    def _evict_beyond_budget(self) -> None:
        """Bound memory however long the session or the answer: drop the oldest lines out of view."""
        loaded = sum(d.loaded for d in self._drawings)
        if loaded <= LINE_BUDGET:
            return
        # Following: the view is at the end (scroll_end was applied with the new size).
        top = max(0, self.virtual_size.height - self.size.height) if self.following else self.scroll_offset.y
        bottom = top + self.size.height
        for start, drawing in zip(self._starts, self._drawings):
            if loaded <= LINE_BUDGET:
                break
            in_view = range(max(0, top - start), max(0, min(drawing.height, bottom - start)))
            loaded -= drawing.evict(in_view, loaded - LINE_BUDGET)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if new_value >= self.max_scroll_y:
            self.following = True
        elif new_value < old_value:
            self.following = False  # only the user scrolls up; growth and follow only go down

    def on_resize(self, event: events.Resize) -> None:
        self.flush()
        if self.following:  # shorter (the lanes or the prompt grew): the end stays in view, with nothing new drawn
            self.scroll_end(animate=False, immediate=self.allow_vertical_scroll, x_axis=False)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles = None
        self._served.clear()
        self._styled_lines.forget_styled()
        self._width = 0  # theme changed: draw everything again
        if self.is_mounted:
            self.call_later(self.flush)

    @property
    def vertical_scrollbar(self) -> ScrollBar:
        """Textual's property, making a RowScrollBar (scrollbar.py) where Textual makes a ScrollBar."""
        if self._vertical_scrollbar is None:
            self._vertical_scrollbar = RowScrollBar(vertical=True, name="vertical", thickness=self.scrollbar_size_vertical)
            self._vertical_scrollbar.display = False
            self.app._start_widget(self, self._vertical_scrollbar)
        return self._vertical_scrollbar

    def render_lines(self, crop: Region) -> list[Strip]:
        served = self._styled_lines.served_again(self, crop)
        if served is not None:
            return served
        # Both walk the DOM (ancestors' styles, the screen's region map): once per paint, not per row.
        self._pane_style = self.rich_style
        scroll_x, scroll_y = self.scroll_offset
        self._pane_view = (scroll_x, scroll_y, self.scrollable_content_region.width, self.size.height)
        try:
            return super().render_lines(crop)
        finally:
            self._pane_style = self._pane_view = None

    def render_line(self, y: int) -> Strip:
        strip = self._served_line(y)
        if self._pane_view is None:
            # Asked outside a paint: Textual's mouse selection reads (column, line of the conversation) from
            # these offsets (Compositor.get_widget_and_offset_at). Painted lines go without: unchanged output.
            return strip.apply_offsets(self.scroll_offset.x, self.scroll_offset.y + y)
        return strip

    def _served_line(self, y: int) -> Strip:
        if self._pane_view is not None:
            scroll_x, scroll_y, width, height = self._pane_view
        else:
            scroll_x, scroll_y = self.scroll_offset
            width, height = self.scrollable_content_region.width, self.size.height
        style = self._pane_style or self.rich_style
        if self._served_for != (scroll_x, width, style):
            self._served_for = (scroll_x, width, style)
            self._served.clear()
        line_no = scroll_y + y
        served = self._served.get(line_no)
        if served is not None:
            return served
        position = bisect.bisect_right(self._starts, line_no) - 1
        if position < 0 or position >= len(self._drawings):
            return Strip.blank(width, style)
        drawing = self._drawings[position]
        offset = line_no - self._starts[position]
        if offset >= drawing.height:
            return Strip.blank(width, style)
        loaded = drawing.loaded
        strip = drawing.line(offset)  # draws dropped lines again
        if drawing.loaded > loaded:
            self._schedule()  # the next flush drops others to stay within the budget
        if position == self.selected and offset > 0 and self.has_focus:
            marker = Segment("▌", self._render_context().style("selected"))
            strip = Strip.join([Strip([marker], 1), strip.crop(1, strip.cell_length)])
        if self.highlight is not None:
            strip = self.highlight(line_no, strip)
        if self.text_selection is not None:
            from ..selection import mark_selection

            strip = mark_selection(self, line_no, strip)
        served = strip.crop_extend(scroll_x, scroll_x + width, style).apply_style(style)
        if len(self._served) > 4 * max(1, height):
            self._forget_served_away_from(scroll_y)  # only lines near the view are worth keeping
        self._served[line_no] = served
        return served

    def set_highlight(self, highlight: Callable[[int, Strip], Strip] | None) -> None:
        """Highlight lines with `highlight` (None: none); the lines served so far are drawn again."""
        self.highlight = highlight
        self._served.clear()
        self.refresh()

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """Textual's mouse selection: the selected text (ui/selection.py)."""
        from ..selection import selected_text

        return selected_text(self, selection)

    def selection_updated(self, selection: Selection | None) -> None:
        self._served.clear()  # drawn again with the selection marked
        self.refresh()

    def line_text(self, line_no: int) -> str:
        """The plain text of one line of the whole conversation (draws a dropped line again)."""
        position = self.item_at(line_no)
        if position is None:
            return ""
        offset = line_no - self._starts[position]
        drawing = self._drawings[position]
        return drawing.line(offset).text if offset < drawing.height else ""

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
        if self.scroll_y < self.max_scroll_y:
            self.following = False  # the user moved off the end on purpose (even if the item was in view)

    def _select(self, position: int | None) -> None:
        self.selected = position
        self._served.clear()
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

    def follow(self) -> None:
        """Back to the end (the user sent something): what comes next is in view. Free when already there."""
        if not self.following or self.scroll_y < self.max_scroll_y:
            self.action_follow()

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
        if self.text_selection is not None:
            return  # the end of a mouse selection, not a click on an item
        offset = event.get_content_offset(self)
        if offset is None:
            return
        position = self.item_at(self.scroll_offset.y + offset.y)
        if position is not None and self.items[position].selectable:
            self._select(position)
            self.action_toggle()

    def on_key(self, event: events.Key) -> None:
        hand_key_to_prompt(self, event)  # a letter typed here goes to the prompt; the pane keeps its own keys

    def on_focus(self) -> None:
        if self.selected is None:
            following = self.following
            self.action_select(-1)  # start at the latest tool call
            self.following = following  # showing it is not the user scrolling up: new output still follows
        self._served.clear()
        self.refresh()

    def on_blur(self) -> None:
        self._served.clear()
        self.refresh()
