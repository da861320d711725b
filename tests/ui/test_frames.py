"""What changes together is painted in one frame: a streamed answer's flush scrolls the pane and moves
the status timer in the frame that draws the new lines, not in frames of their own."""

from __future__ import annotations

import time

from textual.app import App, ComposeResult

from tui_agent.ui.widgets.status import MERGE_WINDOW, StatusLine
from tui_agent.ui.widgets.transcript import Transcript
from tui_agent.ui.widgets.transcript_items import AssistantText

from tests.ui.transcript_support import paragraphs, stream_answer


class _PaneAndStatus(App[None]):
    def compose(self) -> ComposeResult:
        self.transcript = Transcript(id="transcript")
        self.status = StatusLine(time.monotonic, id="status")
        self.transcript.on_flush = self.status.tick  # as the app wires them
        yield self.transcript
        yield self.status


async def _overflowing(app: _PaneAndStatus, pilot) -> AssistantText:  # type: ignore[no-untyped-def]
    return await stream_answer(app.transcript, pilot, paragraphs(20))


async def test_a_flush_that_grows_the_answer_scrolls_before_the_frame_is_painted() -> None:
    app = _PaneAndStatus()
    async with app.run_test(size=(60, 12)) as pilot:
        transcript = app.transcript
        answer = await _overflowing(app, pilot)
        assert transcript.scroll_y == transcript.max_scroll_y > 0
        answer.append("paragraph 20\n\n")
        transcript.changed(answer, now=True)
        # No await: the offset is already the new end, so the next frame paints the new lines in
        # place (before, the pane was painted at the old offset, then scrolled in a second frame).
        assert transcript.scroll_y == transcript.max_scroll_y
        await pilot.pause()
        assert transcript.render_line(transcript.size.height - 1).text.strip() == "paragraph 20"


async def test_a_flush_during_a_run_repaints_the_status_timer_in_the_same_frame() -> None:
    app = _PaneAndStatus()
    async with app.run_test(size=(60, 12)) as pilot:
        answer = await _overflowing(app, pilot)
        app.status.run_started()
        await pilot.pause()
        app.status._repaint_required = False  # whatever was pending is painted by now
        answer.append("more\n\n")
        app.transcript.changed(answer, now=True)
        assert app.status._repaint_required, "the timer is marked for the frame the flush causes"


async def test_a_timer_tick_right_after_a_paint_is_skipped_and_a_later_one_paints() -> None:
    app = _PaneAndStatus()
    async with app.run_test(size=(60, 12)) as pilot:
        status = app.status
        status.run_started()
        await pilot.pause()
        status._ticker.pause()  # ticks are driven by hand below
        status.render()  # painted just now
        status._repaint_required = False
        status._tick_unless_painted()
        assert not status._repaint_required
        status._painted_at = time.monotonic() - MERGE_WINDOW  # the last paint is a tick old
        status._tick_unless_painted()
        assert status._repaint_required


async def test_the_status_line_is_not_repainted_by_a_flush_when_no_run_is_going() -> None:
    app = _PaneAndStatus()
    async with app.run_test(size=(60, 12)) as pilot:
        answer = await _overflowing(app, pilot)
        await pilot.pause()
        app.status._repaint_required = False
        answer.append("more\n\n")
        app.transcript.changed(answer, now=True)
        assert not app.status._repaint_required


async def test_the_prompt_hands_back_its_rows_in_a_frame_that_leaves_it_alone_and_draws_a_key_anew() -> None:
    from textual.geometry import Region

    from tui_agent.ui.widgets.prompt import PromptInput

    class _Prompt(App[None]):
        def compose(self) -> ComposeResult:
            yield PromptInput(id="prompt")

    app = _Prompt()
    async with app.run_test(size=(60, 6)) as pilot:
        prompt = app.query_one(PromptInput)
        prompt.cursor_blink = False
        await pilot.press("h", "i")
        rows = Region(0, 0, prompt.size.width, prompt.size.height)
        first = prompt.render_lines(rows)
        assert prompt.render_lines(rows) is first
        await pilot.press("!")
        after = prompt.render_lines(rows)
        assert after is not first and "hi!" in after[0].text


async def test_the_status_line_hands_back_its_row_until_what_it_shows_changes() -> None:
    from textual.geometry import Region

    app = _PaneAndStatus()
    async with app.run_test(size=(60, 12)) as pilot:
        status = app.status
        await pilot.pause()
        row = Region(0, 0, status.size.width, 1)
        first = status.render_lines(row)
        assert status.render_lines(row) is first
        status.state.output_tokens = 4321
        status.refresh()
        after = status.render_lines(row)
        assert after is not first and "4.3k" in after[0].text
