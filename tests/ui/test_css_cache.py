"""Textual's parsed stylesheets kept from one start to the next: the next start parses nothing it
parsed before and gets the same rules; anything changed (a style, the theme, a broken file) is parsed anew."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from textual.app import App, ComposeResult
from textual.color import Color
from textual.widgets import Static

from tui_agent.raw_settings import RawSettings
from tui_agent.ui.app import make_app
from tui_agent.ui.css_cache import CssCache

from tests.ui.app_support import isolate, project_at, wait_until


def rules_of(app: App[Any]) -> list[str]:
    return [repr((rule.selector_set, rule.styles.get_rules(), rule.is_default_rules, rule.tie_breaker))
            for rule in app.stylesheet.rules]


async def start(app: Any, cache: CssCache, look: Callable[[Any], None] = lambda app: None) -> tuple[int, list[str]]:
    """Start `app` the way run_app does with `cache`, `look` at it; (entries loaded, its style rules)."""
    app.css_cache = cache
    loaded = cache.load_into(app.stylesheet)
    async with app.run_test(size=(100, 30)) as pilot:
        assert await wait_until(lambda: app.ready)
        await pilot.pause()
        look(app)
        return loaded, rules_of(app)


async def test_the_next_start_uses_the_saved_stylesheets_and_gets_the_same_rules(tmp_path: Path, monkeypatch: Any) -> None:
    isolate(monkeypatch, tmp_path)
    project = project_at(tmp_path / "project")
    path = tmp_path / "cache" / "textual-css.pickle"
    first = make_app(RawSettings.from_env(cwd=project, demo=True))
    loaded, rules = await start(first, CssCache(path))
    assert loaded == 0 and path.exists(), "the first start parses everything and saves it after its first frame"
    saved = path.stat().st_mtime_ns

    import textual.css.stylesheet as stylesheet_module

    parsed: list[Any] = []
    real_parse = stylesheet_module.parse
    monkeypatch.setattr(stylesheet_module, "parse", lambda *a, **k: parsed.append(a[2]) or real_parse(*a, **k))
    second = make_app(RawSettings.from_env(cwd=project, demo=True))
    loaded, rules_again = await start(second, CssCache(path))
    assert loaded > 0
    assert parsed == [], f"parsed again: {parsed}"
    assert rules_again == rules
    assert path.stat().st_mtime_ns == saved, "nothing new: the file is not written again"


class _Styled(App[None]):
    CSS = "Static { color: red; }"
    ready = True
    css_cache: Any = None

    def compose(self) -> ComposeResult:
        yield Static("hello")

    def on_mount(self) -> None:
        self.call_after_refresh(lambda: self.css_cache.save_from(self.stylesheet))


async def test_an_edited_style_is_parsed_anew_and_replaces_the_old_one(tmp_path: Path) -> None:
    path = tmp_path / "textual-css.pickle"
    await start(_Styled(), CssCache(path))
    assert any("color: red" in repr(key) for key in _saved_keys(path))

    class Edited(_Styled):
        CSS = "Static { color: blue; }"

    colors: list[Color] = []
    loaded, _ = await start(Edited(), CssCache(path), lambda app: colors.append(app.query_one(Static).styles.color))
    assert loaded > 0  # Textual's own widgets' styles still come from the file
    assert colors == [Color(0, 0, 255)]
    keys = _saved_keys(path)
    assert any("color: blue" in repr(key) for key in keys) and not any("color: red" in repr(key) for key in keys)


def _saved_keys(path: Path) -> list[Any]:
    import pickle

    return list(pickle.loads(path.read_bytes())["entries"])


async def test_a_broken_file_or_other_theme_variables_are_not_used(tmp_path: Path) -> None:
    path = tmp_path / "textual-css.pickle"
    path.write_bytes(b"not a pickle")
    app = _Styled()
    loaded, rules = await start(app, CssCache(path))
    assert loaded == 0 and rules and _saved_keys(path), "ignored, parsed as usual, written again"

    dark = _Styled()
    dark.stylesheet.set_variables({**dark.stylesheet._variables, "primary": "#123456"})
    assert CssCache(path).load_into(dark.stylesheet) == 0
