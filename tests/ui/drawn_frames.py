"""What an app under Pilot would write to its terminal, frame by frame, kept as the screen it leaves.

`run_test` is headless: Textual drops each frame at `App._display`, just before the driver would write
it. `DrawnFrames` takes every frame there (the compositor's own update, as the terminal would get it),
applies it to a grid of cells, and keeps for each frame the rows it drew: a test can then say what the
terminal shows and which frame drew what, rather than how a widget keeps its state."""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from rich.segment import ControlType
from textual.app import App

from tests.ui.app_support import until


class DrawnFrames:
    def __init__(self, app: App[Any]) -> None:
        self.app = app
        self.frames: list[dict[int, str]] = []
        """Per frame written: row number -> that row's text on the terminal after the frame."""
        self._cells: list[list[str]] = []
        display = app._display

        def recording(screen: Any, renderable: Any) -> None:
            if renderable is not None and not app._batch_count:
                self._apply(renderable)
            display(screen, renderable)

        app._display = recording  # type: ignore[method-assign]

    def _apply(self, update: Any) -> None:
        width, height = self.app.size
        if len(self._cells) != height or (self._cells and len(self._cells[0]) != width):
            self._cells = [[" "] * width for _ in range(height)]
        x = y = 0
        drawn: set[int] = set()
        console = self.app.console
        for segment in console.render(update, console.options):
            if segment.control:
                for code in segment.control:
                    if code[0] == ControlType.CURSOR_MOVE_TO:
                        x, y = code[1], code[2]
                continue
            if segment.text == "\n" or not 0 <= y < height:
                continue
            drawn.add(y)
            for char in segment.text:
                if 0 <= x < width:
                    self._cells[y][x] = char
                x += cell_len(char) or 1
        self.frames.append({row: self.row(row) for row in sorted(drawn)})

    def row(self, y: int) -> str:
        """The text the terminal shows on row `y` now."""
        return "".join(self._cells[y]).rstrip() if 0 <= y < len(self._cells) else ""

    @property
    def screen(self) -> list[str]:
        return [self.row(y) for y in range(len(self._cells))]

    async def until_drawn(self, pilot: Any, text: str, since: int = 0) -> int:
        """Wait for a frame (from frame number `since` on) that draws a row holding `text`; its number."""

        def found() -> bool:
            return any(text in row for frame in self.frames[since:] for row in frame.values())

        await until(pilot, found)
        return next(n for n, frame in enumerate(self.frames) if n >= since and any(text in row for row in frame.values()))
