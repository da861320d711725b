"""A screen with CSS of its own, pushed for the first time, parses only that CSS (ui/parsed_styles.py); the theme's
variables still reach every rule, and CSS with an error is never kept."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest
import textual.css.stylesheet
from textual.app import App, ComposeResult
from textual.color import Color
from textual.css.stylesheet import StylesheetParseError
from textual.screen import ModalScreen
from textual.widgets import Static

from tests.ui.app_support import build, project_at, until
from tui_agent.providers.scripted import Reply, Text
from tui_agent.ui.parsed_styles import ParsedOnceStylesheet


class Boxed(ModalScreen[None]):
    CSS = "Boxed > Static { background: $accent; }"

    def compose(self) -> ComposeResult:
        yield Static("boxed", id="boxed")


def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The read_from of each piece of CSS Textual's parser is handed from now on."""
    seen: list[str] = []
    real = textual.css.stylesheet.parse

    def counting(scope: str, css: str, read_from: Any, **kwargs: Any) -> Any:
        seen.append(str(read_from))
        return real(scope, css, read_from, **kwargs)

    monkeypatch.setattr(textual.css.stylesheet, "parse", counting)
    return seen


async def first_push(app: App[Any], monkeypatch: pytest.MonkeyPatch) -> list[str]:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        seen = parses(monkeypatch)
        app.push_screen(Boxed())
        await until(pilot, lambda: isinstance(app.screen, Boxed))
        assert app.screen.query_one("#boxed").styles.background == Color.parse(app.get_css_variables()["accent"])
        return seen


async def test_the_apps_first_push_of_a_screen_with_css_parses_that_css_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app, _ = build(project_at(tmp_path / "p"), [Reply([Text("hi")])])
    assert isinstance(app.stylesheet, ParsedOnceStylesheet)
    assert len(app.stylesheet.source) == 0  # the App's stylesheet was replaced before any source was added
    seen = await first_push(app, monkeypatch)
    assert seen == [str((inspect.getfile(Boxed), "Boxed.CSS"))]


async def test_a_plain_textual_app_parses_every_source_again_there(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the test above guards against: Textual's own stylesheet parses all of the app's CSS once more."""

    class Plain(App[None]):
        CSS = "Screen { background: $panel; }"

        def compose(self) -> ComposeResult:
            yield Static("plain")

    seen = await first_push(Plain(), monkeypatch)
    assert len(seen) > 2 and any("Boxed.CSS" in s for s in seen) and any("Plain.CSS" in s for s in seen)


def test_the_same_css_is_parsed_once_for_one_theme_and_again_for_another() -> None:
    css = "Static { color: $accent; }"
    light, dark = {"accent": "#ff0000"}, {"accent": "#00ff00"}
    first, second, other = (ParsedOnceStylesheet(variables=v) for v in (light, dict(light), dark))
    for sheet in (first, second, other):
        sheet.add_source(css, read_from=("test", "css"))
        sheet.parse()
    assert first.rules[0] is second.rules[0]
    assert first.rules[0].styles.color == Color.parse("#ff0000")
    assert other.rules[0].styles.color == Color.parse("#00ff00")
    first.set_variables(dark)
    first.reparse()
    assert first.rules[0] is other.rules[0]


def test_css_with_an_error_raises_every_time_and_is_not_kept() -> None:
    for _ in range(2):
        sheet = ParsedOnceStylesheet(variables={})
        sheet.add_source("Static { colour: red; }", read_from=("test", "bad"))
        with pytest.raises(StylesheetParseError):
            sheet.parse()
