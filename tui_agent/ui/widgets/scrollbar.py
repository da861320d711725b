"""The transcript's vertical scrollbar, drawn a row at a time from a few reused lines.

Textual draws a scrollbar as a Rich renderable: each repaint renders it through Rich into a new line per
row and styles every row again, making new Strip objects that every cache further down (line filters,
the compositor's cuts, the terminal output) sees for the first time. While an answer streams the thumb
moves with every flush, and that path was about a quarter of the cost of painting the frame.

`RowScrollBar` takes the same bar from Textual's own `ScrollBarRender.render_bar` (same glyphs, colours
and mouse actions), hands each row out as one Strip per distinct segment (a bar of 36 rows is at most
five), and lets `ContentKeyedStylesCache` style each of those once, exactly as Textual would.
"""

from __future__ import annotations

from rich.color import Color
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.strip import Strip

from .styled_lines import ContentKeyedStylesCache

_KEPT = 64  # distinct rows kept: a handful per colour scheme


class RowScrollBar(ScrollBar):
    def __init__(self, vertical: bool = True, name: str | None = None, *, thickness: int = 1) -> None:
        super().__init__(vertical=vertical, name=name, thickness=thickness)
        self._styles_cache = ContentKeyedStylesCache()
        self._rows: dict[tuple[Segment, Style], Strip] = {}
        self._bar: list[Segment] | None = None  # the bar's rows during one paint
        self._base = Style()  # the widget's own colours, under the bar's (as Rich renders it for Textual)

    def render_lines(self, crop: Region) -> list[Strip]:
        served = self._styles_cache.served_again(self, crop)
        if served is not None:
            return served
        self._bar = self._bar_rows()
        self._base = self.rich_style
        try:
            return super().render_lines(crop)
        finally:
            self._bar = None

    def render_line(self, y: int) -> Strip:
        bar = self._bar
        if bar is None or not 0 <= y < len(bar):
            return super().render_line(y)
        segment, base = bar[y], self._base
        row = self._rows.get((segment, base))
        if row is None:
            if len(self._rows) >= _KEPT:
                self._rows.clear()
            text, style, control = segment
            styled = Segment(text, base + style if style else base, control)
            row = self._rows[(segment, base)] = Strip([styled], styled.cell_length)
        return row

    def _bar_rows(self) -> list[Segment] | None:
        """The rows `ScrollBarRender` would give for this size, or None where this is not a vertical bar."""
        bar = self.render()
        if not self.vertical or not isinstance(bar, ScrollBarRender):
            return None
        width, height = self.content_region.size
        style = self.app.console.get_style(bar.style)
        return list(
            bar.render_bar(
                size=height,
                virtual_size=bar.virtual_size,
                window_size=bar.window_size,
                position=bar.position,
                thickness=width,
                vertical=True,
                back_color=style.bgcolor or Color.parse("#555555"),
                bar_color=style.color or Color.parse("bright_magenta"),
            ).segments
        )
