"""What changes together is painted in one frame: a streamed answer's flush scrolls the pane and moves
the status timer in the frame that draws the new lines, not in frames of their own. Frames are read as
the terminal would get them (tests/ui/drawn_frames.py)."""

from __future__ import annotations

import time
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from textual.app import App, ComposeResult

from tests.ui.app_support import FakeClock
from tests.ui.drawn_frames import DrawnFrames
from tests.ui.transcript_support import paragraphs, stream_answer
from tui_agent.ui.widgets import status as status_module
from tui_agent.ui.widgets.status import MERGE_WINDOW, StatusLine
from tui_agent.ui.widgets.transcript import Transcript
from tui_agent.ui.widgets.transcript_items import AssistantText, NoticeLine


class _PaneAndStatus(App[None]):
    CSS = "#transcript { height: 1fr; scrollbar-size-vertical: 1; } #status { height: 1; }"  # as the app's

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.clock = clock

    def compose(self) -> ComposeResult:
        self.transcript = Transcript(id="transcript")
        self.status = StatusLine(self.clock, id="status")
        self.transcript.on_flush = self.status.tick  # as the app wires them
        yield self.transcript
        yield self.status


async def _overflowing(app: _PaneAndStatus, pilot, frames: DrawnFrames) -> AssistantText:  # type: ignore[no-untyped-def]
    """An answer longer than the pane, streaming: past the flush that first shows the scrollbar (that one
    narrows the pane and draws it again at the new width, in a frame of its own)."""
    answer = await stream_answer(app.transcript, pilot, paragraphs(20))
    answer.append("paragraph 20\n\n")
    app.transcript.changed(answer, now=True)
    await frames.until_drawn(pilot, "paragraph 20")
    await pilot.pause()
    return answer


def _without_ticks(monkeypatch: Any) -> None:
    """The timer's own ticks (10 a second) stay out: what paints the status line is what the test does."""
    monkeypatch.setattr(status_module, "TICK", 3600.0)


async def test_a_flush_that_grows_the_answer_scrolls_before_the_frame_is_painted() -> None:
    app = _PaneAndStatus()
    async with app.run_test(size=(60, 12)) as pilot:
        frames = DrawnFrames(app)
        transcript = app.transcript
        answer = await _overflowing(app, pilot, frames)
        assert transcript.scroll_y == transcript.max_scroll_y > 0
        since = len(frames.frames)
        answer.append("paragraph 21\n\n")
        transcript.changed(answer, now=True)
        # No await: the offset is already the new end, so the next frame paints the new lines in
        # place (before, the pane was painted at the old offset, then scrolled in a second frame).
        assert transcript.scroll_y == transcript.max_scroll_y
        drawn = await frames.until_drawn(pilot, "paragraph 21", since)
        assert drawn == since, f"the first frame after the flush draws the new line: {frames.frames[since:]}"
        assert frames.row(transcript.region.bottom - 1).strip() == "paragraph 21"


async def test_a_flush_during_a_run_repaints_the_status_timer_in_the_same_frame(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    _without_ticks(monkeypatch)
    clock = FakeClock()
    app = _PaneAndStatus(clock)
    async with app.run_test(size=(60, 12)) as pilot:
        frames = DrawnFrames(app)
        answer = await _overflowing(app, pilot, frames)
        app.status.run_started()
        await frames.until_drawn(pilot, "0.0s")
        clock.advance(3)
        since = len(frames.frames)
        answer.append("more\n\n")
        app.transcript.changed(answer, now=True)
        drawn = await frames.until_drawn(pilot, "more", since)
        assert "3.0s" in frames.frames[drawn].get(app.status.region.y, ""), "the timer moves in the flush's frame"


async def test_a_timer_tick_right_after_a_paint_is_skipped_and_a_later_one_paints(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    _without_ticks(monkeypatch)  # ticks are driven by hand below
    since_paint = FakeClock()  # the status line's time.monotonic: how long ago it was painted
    monkeypatch.setattr(status_module, "time", SimpleNamespace(monotonic=since_paint))
    clock = FakeClock()
    app = _PaneAndStatus(clock)
    async with app.run_test(size=(60, 12)) as pilot:
        frames = DrawnFrames(app)
        status, row = app.status, app.status.region.y
        app.transcript.on_flush = None  # only the ticks paint the status line here
        status.run_started()
        await frames.until_drawn(pilot, "0.0s")
        clock.advance(1)
        since_paint.advance(MERGE_WINDOW / 2)
        status._tick_unless_painted()  # the ticker's callback, half a window after the paint
        since = len(frames.frames)
        app.transcript.add(NoticeLine("info", "a later change"), now=True)  # a frame that would carry the tick
        drawn = await frames.until_drawn(pilot, "a later change", since)
        assert all(row not in frame for frame in frames.frames[since : drawn + 1]), "the tick painted"
        assert "0.0s" in frames.row(row)
        since_paint.advance(MERGE_WINDOW / 2)
        status._tick_unless_painted()  # a whole window after the paint
        await frames.until_drawn(pilot, "1.0s", drawn + 1)
        assert "1.0s" in frames.row(row)


async def test_the_status_line_is_not_repainted_by_a_flush_when_no_run_is_going() -> None:
    app = _PaneAndStatus()
    async with app.run_test(size=(60, 12)) as pilot:
        frames = DrawnFrames(app)
        answer = await _overflowing(app, pilot, frames)
        await pilot.pause()
        since = len(frames.frames)
        answer.append("more\n\n")
        app.transcript.changed(answer, now=True)
        drawn = await frames.until_drawn(pilot, "more", since)
        assert all(app.status.region.y not in frame for frame in frames.frames[since : drawn + 1]), frames.frames[since:]


async def test_the_prompt_hands_back_its_rows_in_a_frame_that_leaves_it_alone_and_draws_a_key_anew() -> None:
    from textual.geometry import Region

    from tui_agent.ui.widgets.prompt import PromptInput

    class _Prompt(App[None]):
        def compose(self) -> ComposeResult:
            yield PromptInput(id="prompt")

    app = _Prompt()
    async with app.run_test(size=(60, 6)) as pilot:
        frames = DrawnFrames(app)
        prompt = app.query_one(PromptInput)
        prompt.cursor_blink = False
        await pilot.press("h", "i")
        await frames.until_drawn(pilot, "hi")
        assert frames.row(prompt.region.y).strip() == "hi"
        rows = Region(0, 0, prompt.size.width, prompt.size.height)
        first = prompt.render_lines(rows)
        # The cache is the claim (no frame shows it): the same row objects, not rows styled again.
        assert prompt.render_lines(rows) is first
        since = len(frames.frames)
        await pilot.press("!")
        after = prompt.render_lines(rows)
        assert after is not first and "hi!" in after[0].text
        await frames.until_drawn(pilot, "hi!", since)
        assert frames.row(prompt.region.y).strip() == "hi!"


async def test_the_status_line_hands_back_its_row_until_what_it_shows_changes() -> None:
    from textual.geometry import Region

    app = _PaneAndStatus()
    async with app.run_test(size=(60, 12)) as pilot:
        frames = DrawnFrames(app)
        status = app.status
        await pilot.pause()
        row = Region(0, 0, status.size.width, 1)
        first = status.render_lines(row)
        # The cache is the claim (no frame shows it): the same row object, not a row styled again.
        assert status.render_lines(row) is first
        status.state.output_tokens = 4321
        status.refresh()
        after = status.render_lines(row)
        assert after is not first and "4.3k" in after[0].text
        await frames.until_drawn(pilot, "4.3k")
        assert "↓4.3k" in frames.row(status.region.y)
