"""The transcript's lines styled once each, not once per frame.

Textual styles every line of a widget again whenever the widget is repainted (its background, tint,
opacity: `StylesCache.render_line`), making a new Strip each time; the filters, the compositor's cuts
and the terminal output are cached per Strip object, so a new object redoes all of them. While an
answer streams the pane scrolls with every flush and so repaints all its rows ~10 times a second,
although nearly every line it shows was drawn before, one row higher.

The transcript serves the same Strip object for a line as long as the line is unchanged
(`Transcript._served`). This cache keeps, for each such object, the styled line made from it, so a
scrolled line costs dictionary look-ups all the way to the terminal. Only rows of the content area are
kept this way: a row in a border, padding or outline depends on its position and is styled as usual.
"""

from __future__ import annotations

from typing import Any, Callable

from textual._styles_cache import StylesCache
from textual.strip import Strip


class ContentKeyedStylesCache(StylesCache):
    """A StylesCache that reuses a styled line while the content line it was made from is the same object."""

    def __init__(self, rows_kept: int = 4) -> None:
        super().__init__()
        self._rows_kept = rows_kept
        """Styled lines kept per row of the widget: the transcript serves the same line objects only
        near the view (a screen above it, two below), so more would only hold memory."""
        self._styled: dict[int, tuple[Strip, tuple[Any, ...], Strip]] = {}  # id(content) -> (content, key, styled)
        self._cleared = 0  # times the row cache was emptied (a theme, a new size)
        self._last: tuple[tuple[Any, ...], list[Strip]] | None = None  # (what it was served for, the rows)

    def forget_styled(self) -> None:
        self._styled.clear()
        self._last = None

    def clear(self) -> None:
        super().clear()
        self._cleared += 1

    def served_again(self, widget: Any, crop: Any) -> list[Strip] | None:
        """The rows served last, when nothing was marked dirty since and the same rows are asked for.

        Textual asks every widget on the screen for its rows in every frame, whichever region changed
        (a key typed in the prompt repaints the prompt, yet the transcript is asked for all its rows):
        styling them again from the row cache is ~1 ms for a full pane. Any change to what the widget
        shows (content, scrolling, size, styles) goes through `refresh`, which marks rows dirty; the
        hover style and the app's line filters, which apply without one, are part of the key.
        `render_widget` asks this first; a widget with work of its own before that (the transcript's
        geometry, TextArea's theme, the scrollbar's bar) asks it at the top of its `render_lines`.
        """
        if self._dirty_lines or self._last is None or self._last[0] != self._served_key(widget, crop):
            return None
        return self._last[1]

    def render_widget(self, widget: Any, crop: Any) -> list[Strip]:
        served = self.served_again(widget, crop)
        if served is not None:
            return served
        strips = super().render_widget(widget, crop)
        self._last = (self._served_key(widget, crop), strips)
        return strips

    def _served_key(self, widget: Any, crop: Any) -> tuple[Any, ...]:
        return (crop, self._cleared, widget.hover_style, tuple(widget.get_line_filters()))

    def render_line(  # type: ignore[override]
        self,
        styles: Any,
        y: int,
        size: Any,
        content_size: Any,
        padding: Any,
        base_background: Any,
        background: Any,
        render_content_line: Callable[[int], Strip],
        *rest: Any,
    ) -> Strip:
        gutter = styles.gutter
        height = size.height
        outline_top, outline_bottom = styles.outline_top[0], styles.outline_bottom[0]
        content_y = y - gutter.top
        if (
            y < gutter.top
            or y >= height - gutter.bottom
            or content_y >= content_size.height
            or (outline_top and y == 0)
            or (outline_bottom and y == height - 1)
        ):
            return super().render_line(styles, y, size, content_size, padding, base_background, background, render_content_line, *rest)
        content = render_content_line(content_y)
        key = (size, content_size, padding, base_background, background, styles.tint, styles.text_opacity, rest)
        found = self._styled.get(id(content))
        if found is not None and found[0] is content and found[1] == key:
            return found[2]
        styled = super().render_line(styles, y, size, content_size, padding, base_background, background, lambda _y: content, *rest)
        keep = max(64, self._rows_kept * height)
        if len(self._styled) >= keep:
            for old in list(self._styled)[: keep // 2]:  # the oldest half: lines long scrolled away
                del self._styled[old]
        self._styled[id(content)] = (content, key, styled)
        return styled
