"""Issue 31 items 3 and 4 on the real app: keys typed while the conversation pane (or the lanes) has focus reach
the prompt, the pane keeps its own keys, and the view follows new output unless the user scrolled up on purpose."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import events

from tui_agent.providers.scripted import Reply, Text, ToolUse
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.widgets.transcript_items import ToolCell

from tests.ui.app_support import build, transcript_text, until, until_idle


def _script(project: Path) -> list[Any]:
    """Each prompt: one Read (a selectable cell), then an answer long enough to push it off-screen."""
    return [Reply([ToolUse("Read", {"file_path": str(project / "app.py")})]), Reply([Text("hello " * 80)])] * 4


async def _filled(pilot: Any, app: TuiAgentApp) -> None:
    await until(pilot, lambda: app.ready)
    for _ in range(3):
        await pilot.press("h", "i", "enter")
        await until_idle(pilot, app)
    await until(pilot, lambda: app.transcript.max_scroll_y > 0 and app.transcript.scroll_y == app.transcript.max_scroll_y)


def _at_end(app: TuiAgentApp) -> bool:
    return app.transcript.following and app.transcript.scroll_y == app.transcript.max_scroll_y


async def test_a_command_typed_in_the_conversation_pane_goes_to_the_prompt(project: Path) -> None:
    app, _ = build(project, _script(project))
    async with app.run_test(size=(80, 24)) as pilot:
        await _filled(pilot, app)
        await pilot.press("tab")
        assert app.focused is app.transcript
        await pilot.press("/", "c", "o", "s", "t")
        await until(pilot, lambda: app.prompt.text == "/cost")
        assert app.focused is app.prompt
        before = len(app.transcript.items)
        await pilot.press("enter")
        await until(pilot, lambda: len(app.transcript.items) > before and app.prompt.text == "")
        assert not any(isinstance(i, ToolCell) and i.expanded for i in app.transcript.items)  # Enter did not expand a cell
        assert _at_end(app)


async def test_a_burst_typed_in_the_pane_reaches_the_prompt_whole(project: Path) -> None:
    """A terminal delivers `/model⏎` at once, as the driver posts it: every key is queued for the pane before the
    `/` moves the focus; the rest (Enter included) follow it to the prompt, in order."""
    app, _ = build(project, _script(project))
    async with app.run_test(size=(80, 24)) as pilot:
        await _filled(pilot, app)
        await pilot.press("tab")
        assert app.focused is app.transcript
        keys = [("slash", "/"), *((c, c) for c in "model"), ("enter", "\r")]
        for key, character in keys:
            app.post_message(events.Key(key, character))
        await until(pilot, lambda: "Model:" in transcript_text(app) and app.prompt.text == "")
        assert app.focused is app.prompt
        await until(pilot, lambda: _at_end(app))


async def test_the_pane_keeps_its_own_keys(project: Path) -> None:
    app, _ = build(project, _script(project))
    async with app.run_test(size=(80, 24)) as pilot:
        await _filled(pilot, app)
        await pilot.press("tab")
        first = app.transcript.selected
        assert first is not None
        await pilot.press("up")
        assert app.focused is app.transcript and app.transcript.selected is not None and app.transcript.selected < first
        await pilot.press("enter")
        await until(pilot, lambda: app.transcript.items[app.transcript.selected].expanded)  # type: ignore[index]
        assert app.focused is app.transcript and app.prompt.text == ""
        await pilot.press("pageup")
        assert app.focused is app.transcript and not app.transcript.following


async def test_letters_typed_in_the_lanes_go_to_the_prompt(project: Path) -> None:
    app, _ = build(project, _script(project))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.ready)
        await pilot.press("h", "i", "enter")
        await until_idle(pilot, app)
        app.lanes.display = True
        app.screen.set_focus(app.lanes)
        await pilot.press("o", "k")
        await until(pilot, lambda: app.prompt.text == "ok")
        assert app.focused is app.prompt


async def test_command_output_brings_the_view_back_to_the_end(project: Path) -> None:
    """Tab, ↑↑↑, Tab back, /model Enter: "Model: …" is in view without scrolling."""
    app, _ = build(project, _script(project))
    async with app.run_test(size=(80, 24)) as pilot:
        await _filled(pilot, app)
        await pilot.press("tab", "up", "up", "up")
        assert not app.transcript.following and app.transcript.scroll_y < app.transcript.max_scroll_y
        app.screen.set_focus(app.prompt)
        await pilot.press("/", "m", "o", "d", "e", "l", "enter")
        await until(pilot, lambda: "Model:" in transcript_text(app) and _at_end(app))
        await pilot.pause()
        assert _at_end(app)


async def test_output_does_not_move_a_view_scrolled_up_on_purpose(project: Path) -> None:
    app, _ = build(project, _script(project))
    async with app.run_test(size=(80, 24)) as pilot:
        await _filled(pilot, app)
        await pilot.press("tab")  # showing the latest tool call is not scrolling up on purpose
        assert app.transcript.following
        app.show_notice("one more line\nand another")
        await until(pilot, lambda: _at_end(app))
        await pilot.press("pageup")
        where = app.transcript.scroll_y
        assert not app.transcript.following and where < app.transcript.max_scroll_y
        app.show_notice("output while the user reads above")
        await pilot.pause()
        assert app.transcript.scroll_y == where and not app.transcript.following
        await pilot.press("end")  # the pane's End follows again
        assert _at_end(app)
