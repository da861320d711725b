"""AskUserQuestion in the real app: the dialog answered by number, by ↑↓ + enter, multi-select with space,
"Other" with typed text, esc declining, the preview pane following the highlight, keys typed as a sentence
going to the prompt, the answers in the model's tool_result and in the conversation cell; snapshots of one
question and of a multi-select question followed by one with previews, at 120×40 and 80×24."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input

from tui_agent.providers.scripted import Reply, Text, ToolUse
from tui_agent.ui.screens.question import NOTHING_CHECKED, QuestionScreen

from tests.ui.app_support import FakeClock, build, isolate, transcript_text, trust_for_tests, type_keys, until, until_idle
from tests.ui.scenes import SCENE_ROOT, fresh_project, settle

LIBRARY = {
    "question": "Which library should we use for date formatting?",
    "header": "Library",
    "options": [
        {"label": "date-fns (Recommended)", "description": "Small, tree-shakable functions; immutable."},
        {"label": "Luxon", "description": "Time zones built in, a bit larger."},
        {"label": "Day.js", "description": "Moment-like API in 2 KB."},
    ],
    "multiSelect": False,
}
FEATURES = {
    "question": "Which features do you want to enable?",
    "header": "Features",
    "options": [
        {"label": "Dark mode", "description": "A second theme, switched in the settings."},
        {"label": "Offline cache", "description": "Keep the last 50 pages on disk."},
        {"label": "Telemetry", "description": "Anonymous usage counts, opt-in."},
        {"label": "Keyboard shortcuts", "description": "A shortcut for every menu entry."},
    ],
    "multiSelect": True,
}
LAYOUT = {
    "question": "Which layout should the settings page use?",
    "header": "Layout",
    "options": [
        {
            "label": "Sidebar",
            "description": "Sections listed on the left.",
            "preview": "┌──────────┬───────────────────┐\n│ General  │ Theme:  [Dark  ▾] │\n│ Editor   │ Font:   [14    ▾] │\n│ Keys     │                   │\n└──────────┴───────────────────┘",
        },
        {
            "label": "Tabs",
            "description": "Sections as tabs across the top.",
            "preview": "┌ General ┬ Editor ┬ Keys ┐\n│ Theme:  [Dark  ▾]       │\n│ Font:   [14    ▾]       │\n└─────────────────────────┘",
        },
        {"label": "Single page", "description": "Everything on one scrolling page."},
    ],
    "multiSelect": False,
}


def ask_script(*questions: dict[str, Any]) -> list[Any]:
    return [Reply([ToolUse("AskUserQuestion", {"questions": list(questions)}, id="ask1")]), Reply([Text("thanks")])]


def tool_result(model: Any, tool_use_id: str = "ask1") -> dict[str, Any]:
    for message in model.requests[-1]["messages"]:
        if isinstance(message.get("content"), list):
            for block in message["content"]:
                if block.get("type") == "tool_result" and block.get("tool_use_id") == tool_use_id:
                    return block
    raise AssertionError(f"no tool_result for {tool_use_id}")


def result_text(block: dict[str, Any]) -> str:
    content = block.get("content")
    return content if isinstance(content, str) else "".join(b.get("text", "") for b in content or [])


def rendered(dialog: QuestionScreen, selector: str) -> str:
    return str(dialog.query_one(selector).render())


async def prompt(pilot: Any, text: str) -> None:
    await type_keys(pilot, *text, "enter")


async def open_dialog(pilot: Any, app: Any) -> QuestionScreen:
    await until(pilot, lambda: isinstance(app.screen, QuestionScreen) and app.screen.is_mounted)
    dialog = app.screen
    await until(pilot, lambda: not dialog.guarded())  # keys in its first moments act on nothing
    await pilot.pause()
    return dialog


class TestSingleSelect:
    async def test_a_number_key_answers_and_the_model_gets_claude_codes_text(self, project: Path) -> None:
        app, model = build(project, ask_script(LIBRARY))
        async with app.run_test(size=(120, 40)) as pilot:
            await prompt(pilot, "format dates")
            await open_dialog(pilot, app)
            await pilot.press("2")  # Luxon
            await until_idle(pilot, app)
            result = tool_result(model)
            assert not result.get("is_error")
            assert result_text(result) == (
                'Your questions have been answered: "Which library should we use for date formatting?"="Luxon". '
                "You can now continue with these answers in mind."
            )
            shown = transcript_text(app)
            assert "User answered" in shown and "Which library should we use for date formatting? → Luxon" in shown

    async def test_arrows_and_enter_choose_the_highlighted_option(self, project: Path) -> None:
        app, model = build(project, ask_script(LIBRARY))
        async with app.run_test(size=(120, 40)) as pilot:
            await prompt(pilot, "format dates")
            dialog = await open_dialog(pilot, app)
            await pilot.press("down", "down", "up", "down")  # ends on the third option
            assert dialog.highlighted == 2 and "❯ 3. Day.js" in rendered(dialog, "#option-2")
            await pilot.press("enter")
            await until_idle(pilot, app)
            assert '="Day.js"' in result_text(tool_result(model))

    async def test_other_opens_a_field_and_the_typed_text_is_the_answer(self, project: Path) -> None:
        app, model = build(project, ask_script(LIBRARY))
        async with app.run_test(size=(120, 40)) as pilot:
            await prompt(pilot, "format dates")
            dialog = await open_dialog(pilot, app)
            await pilot.press("4")  # Other…
            await until(pilot, lambda: bool(dialog.query("#other")) and dialog.query_one("#other", Input).has_focus)
            await pilot.press("enter")  # nothing typed yet: the dialog says what it needs
            assert "type your answer" in rendered(dialog, "#notice")
            await prompt(pilot, "the standard library")
            await until_idle(pilot, app)
            assert '="the standard library"' in result_text(tool_result(model))

    async def test_escape_in_the_other_field_goes_back_to_the_options(self, project: Path) -> None:
        app, model = build(project, ask_script(LIBRARY))
        async with app.run_test(size=(120, 40)) as pilot:
            await prompt(pilot, "format dates")
            dialog = await open_dialog(pilot, app)
            await pilot.press("up", "enter")  # ↑ from the first row wraps to Other
            await until(pilot, lambda: bool(dialog.query("#other")))
            await pilot.press("escape")
            await until(pilot, lambda: not dialog.query("#other"))
            assert app.screen is dialog
            await pilot.press("1")
            await until_idle(pilot, app)
            assert '="date-fns (Recommended)"' in result_text(tool_result(model))

    async def test_escape_declines_and_the_model_is_told_the_user_did_not_proceed(self, project: Path) -> None:
        app, model = build(project, ask_script(LIBRARY))
        async with app.run_test(size=(120, 40)) as pilot:
            await prompt(pilot, "format dates")
            await open_dialog(pilot, app)
            await pilot.press("escape")
            await until_idle(pilot, app)
            result = tool_result(model)
            assert result.get("is_error") and "doesn't want to proceed" in result_text(result)
            assert "User declined to answer questions" in transcript_text(app)

    async def test_a_typed_sentence_goes_to_the_prompt_not_to_the_options(self, project: Path, monkeypatch: Any) -> None:
        monkeypatch.setattr(QuestionScreen, "typing_clock", staticmethod(FakeClock()))  # every key at once: a burst
        app, _ = build(project, ask_script(LIBRARY))
        async with app.run_test(size=(120, 40)) as pilot:
            await prompt(pilot, "format dates")
            dialog = await open_dialog(pilot, app)
            await type_keys(pilot, *"12abc")  # a burst of keys is text, not two answers
            await until(pilot, lambda: "12abc" in app.prompt.text)
            assert app.screen is dialog and dialog.answers == {}

    async def test_keys_in_the_first_moments_answer_nothing(self, project: Path, monkeypatch: Any) -> None:
        clock = FakeClock()
        monkeypatch.setattr(QuestionScreen, "guard_s", 5.0)
        app, _ = build(project, ask_script(LIBRARY))
        async with app.run_test(size=(120, 40)) as pilot:
            await prompt(pilot, "format dates")
            await until(pilot, lambda: isinstance(app.screen, QuestionScreen) and app.screen.is_mounted)
            dialog = app.screen
            dialog._clock, dialog._opened_at = clock, clock()  # the guard's time, held still
            await pilot.press("enter", "1")
            await until(pilot, lambda: not dialog.typing.held)  # the held "1" came due, and was dropped
            await pilot.pause()
            assert app.screen is dialog and dialog.answers == {}
            assert "…" in rendered(dialog, "#hint")


class TestMultiSelect:
    async def test_space_and_numbers_check_and_enter_confirms_joined_as_claude_code_joins(self, project: Path) -> None:
        app, model = build(project, ask_script(FEATURES))
        async with app.run_test(size=(120, 40)) as pilot:
            await prompt(pilot, "set up the app")
            dialog = await open_dialog(pilot, app)
            await pilot.press("enter")  # nothing checked: says how to check
            assert rendered(dialog, "#notice") == NOTHING_CHECKED
            await pilot.press("space")  # checks Dark mode (highlighted)
            await until(pilot, lambda: dialog.checked.get(0) == {0})
            assert "[✓] Dark mode" in rendered(dialog, "#option-0")
            await pilot.press("3")  # checks Telemetry
            await until(pilot, lambda: dialog.checked.get(0) == {0, 2})
            await pilot.press("1")  # unchecks Dark mode
            await until(pilot, lambda: dialog.checked.get(0) == {2})
            await pilot.press("2", "4")  # two quick keys: both count
            await until(pilot, lambda: dialog.checked.get(0) == {1, 2, 3})
            await pilot.press("enter")
            await until_idle(pilot, app)
            assert '="Offline cache, Telemetry, Keyboard shortcuts"' in result_text(tool_result(model))

    async def test_other_text_joins_the_checked_options(self, project: Path) -> None:
        app, model = build(project, ask_script(FEATURES))
        async with app.run_test(size=(120, 40)) as pilot:
            await prompt(pilot, "set up the app")
            dialog = await open_dialog(pilot, app)
            await pilot.press("1")
            await until(pilot, lambda: dialog.checked.get(0) == {0})
            await pilot.press("5")  # Other…
            await until(pilot, lambda: bool(dialog.query("#other")) and dialog.query_one("#other", Input).has_focus)
            await prompt(pilot, "export to CSV")  # enter sends the text and confirms the checked ones with it
            await until_idle(pilot, app)
            assert '="Dark mode, export to CSV"' in result_text(tool_result(model))


class TestSeveralQuestions:
    async def test_one_at_a_time_with_its_header_chip_and_count_then_all_answers_go_back(self, project: Path) -> None:
        app, model = build(project, ask_script(FEATURES, LAYOUT))
        async with app.run_test(size=(120, 40)) as pilot:
            await prompt(pilot, "set up the app")
            dialog = await open_dialog(pilot, app)
            assert "Features" in rendered(dialog, "#tabs") and "1 of 2" in rendered(dialog, "#tabs")
            await pilot.press("2")
            await until(pilot, lambda: dialog.checked.get(0) == {1})
            await pilot.press("enter")
            await until(pilot, lambda: dialog.index == 1)
            assert "✓ Features" in rendered(dialog, "#tabs") and "2 of 2" in rendered(dialog, "#tabs")
            assert "Which layout" in rendered(dialog, "#question")
            await pilot.press("left")  # back to the first question; its answer stays until replaced
            assert dialog.index == 0
            await pilot.press("enter")
            await until(pilot, lambda: dialog.index == 1)
            await pilot.press("2")  # Tabs, which has a preview
            await until_idle(pilot, app)
            text = result_text(tool_result(model))
            assert text.startswith('Your questions have been answered: "Which features do you want to enable?"="Offline cache", ')
            assert '"Which layout should the settings page use?"="Tabs" selected preview:\n┌ General ┬ Editor ┬ Keys ┐' in text

    async def test_the_preview_pane_follows_the_highlight_beside_or_under_the_options(self, project: Path) -> None:
        app, _ = build(project, ask_script(LAYOUT))
        async with app.run_test(size=(120, 40)) as pilot:
            await prompt(pilot, "settings page")
            dialog = await open_dialog(pilot, app)
            box = dialog.query_one("#preview-box")
            assert dialog.query_one("#main").has_class("-side")
            assert "│ General  │ Theme:" in rendered(dialog, "#preview")
            await pilot.press("down")
            assert "┌ General ┬ Editor ┬ Keys ┐" in rendered(dialog, "#preview")
            await pilot.press("down")
            assert "No preview" in rendered(dialog, "#preview")
            await pilot.resize_terminal(80, 24)
            await until(pilot, lambda: not dialog.query_one("#main").has_class("-side"))
            assert box.display and box.region.y > dialog.query_one("#option-3").region.y  # under the options

    async def test_a_long_preview_scrolls_and_never_pushes_the_options_off_a_small_screen(self, project: Path) -> None:
        long = dict(LAYOUT, options=[dict(o, preview="\n".join(f"line {i} of the mockup" for i in range(40))) for o in FEATURES["options"]])
        app, _ = build(project, ask_script(long))
        async with app.run_test(size=(80, 24)) as pilot:
            await prompt(pilot, "settings page")
            dialog = await open_dialog(pilot, app)
            box = dialog.query_one("#preview-box")
            await until(pilot, lambda: box.max_scroll_y > 0 and "pgup/pgdn preview" in rendered(dialog, "#hint"))
            rows = [dialog.query_one(f"#option-{i}") for i in range(5)]
            hint = dialog.query_one("#hint")
            assert all(0 <= r.region.y and r.region.bottom <= 24 and r.region.height >= 1 for r in rows)
            assert hint.region.bottom <= 24 and box.region.y > rows[-1].region.y


def test_a_preview_is_markdown_when_it_looks_like_markdown_and_verbatim_otherwise() -> None:
    from rich.text import Text as RichText

    from tui_agent.ui.screens.question import preview_renderable
    from tui_agent.ui.widgets.block_markdown import BlockMarkdown

    assert isinstance(preview_renderable("```python\ndef f():\n    pass\n```"), BlockMarkdown)
    mockup = preview_renderable("+------+\n|  ok  |\n+------+")
    assert isinstance(mockup, RichText) and mockup.plain.splitlines() == ["+------+", "|  ok  |", "+------+"]
    assert "^[" in preview_renderable("\x1b[31mred").plain  # no escape reaches the terminal raw


# ----- snapshots --------------------------------------------------------------------------------------


@pytest.fixture
def scene_home(tmp_path: Path, monkeypatch: Any, scene_lock: None) -> None:
    """As tests/ui/test_snapshots.py: the scenes' fixed folder (it is drawn), one scene at a time."""
    isolate(monkeypatch, tmp_path)
    trust_for_tests(tmp_path / "home", SCENE_ROOT)


def _scene(*questions: dict[str, Any], keys: tuple[str, ...] = ()) -> tuple[Any, Any]:
    script = [Reply([ToolUse("AskUserQuestion", {"questions": list(questions)}, id="ask1")], input_tokens=3000, output_tokens=200)]
    app, _ = build(fresh_project(), script, clock=FakeClock())

    async def run_before(pilot: Any) -> None:
        app.prompt.cursor_blink = False
        await prompt(pilot, "set up the settings page")
        dialog = await open_dialog(pilot, app)
        for key in keys:
            def state() -> tuple[int, dict[int, frozenset[int]]]:
                return dialog.index, {k: frozenset(v) for k, v in dialog.checked.items()}

            before = state()
            await pilot.press(key)
            await until(pilot, lambda: state() != before or key in ("down", "up"))
        await settle(pilot, app)

    return app, run_before


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_snapshot_single_question(snap_compare: Any, scene_home: None, size: tuple[int, int]) -> None:
    """You should see "The model has a question" over the conversation: the "Library" chip, the question in
    bold, three numbered options with their descriptions under them (the first highlighted), "4. Other…",
    and the hint; nothing cut or overlapping."""
    app, run_before = _scene(LIBRARY)
    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_snapshot_multi_select_then_a_question_with_previews(snap_compare: Any, scene_home: None, size: tuple[int, int]) -> None:
    """You should see the second of two questions: a ticked "Features" chip, the lit "Layout" chip and
    "2 of 2"; the options with "Tabs" highlighted and its ASCII mockup in a preview box beside the options at
    120 columns, under them at 80; all four option rows whole."""
    app, run_before = _scene(FEATURES, LAYOUT, keys=("2", "4", "enter", "down"))
    assert snap_compare(app, terminal_size=size, run_before=run_before)
