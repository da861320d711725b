"""The transcript's scrollbar draws exactly what Textual's own would, row for row, from reused lines."""

from __future__ import annotations

from textual.geometry import Region
from textual.scrollbar import ScrollBar

from tui_agent.ui.widgets.scrollbar import RowScrollBar

from tests.ui.transcript_support import TranscriptPane, paragraphs, stream_answer


def _textual_rows(bar: RowScrollBar, crop: Region) -> list[list[object]]:
    bar._styles_cache.clear()  # as Textual draws it: through Rich, every row styled anew
    bar._styles_cache.forget_styled()
    rows = [list(strip) for strip in ScrollBar.render_lines(bar, crop)]
    bar._styles_cache.clear()
    bar._styles_cache.forget_styled()
    return rows


async def test_every_row_matches_textuals_scrollbar_at_every_scroll_position_and_size() -> None:
    app = TranscriptPane()
    async with app.run_test(size=(60, 14)) as pilot:
        transcript = app.transcript
        compared = 0
        for count in (12, 40, 200):  # thumb from large to under a row
            await stream_answer(transcript, pilot, paragraphs(count))
            bar = transcript.vertical_scrollbar
            assert isinstance(bar, RowScrollBar) and bar.display
            for y in sorted({0, 1, transcript.max_scroll_y // 3, transcript.max_scroll_y // 2, transcript.max_scroll_y}):
                transcript.scroll_to(y=y, animate=False, immediate=True)
                await pilot.pause()
                crop = Region(0, 0, bar.size.width, bar.size.height)
                ours = bar.render_lines(crop)
                assert [list(strip) for strip in ours] == _textual_rows(bar, crop), (count, y)
                assert len({id(strip) for strip in bar.render_lines(crop)}) <= 5, "rows are a few reused lines"
                compared += 1
        assert compared >= 10
