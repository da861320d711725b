"""Each piece of CSS parsed once a process, not once each time Textual rebuilds its stylesheet.

Textual keeps what it parsed in a cache of its stylesheet's own, but the first time a screen with CSS of its
own is pushed (the permission dialog, a question, the plan, the rewind picker) it parses every source again
into a new stylesheet, whose cache is empty: all of the app's styles, ~12 ms here, in the moment the dialog
should appear. This stylesheet's parses go through a table of the process instead, keyed like Textual's cache
(the CSS text, where it was read from, its scope) and by the theme's variables, which parsing substitutes.

Sharing the parsed rules is what one stylesheet already does for every widget it styles: nothing writes to
them after parsing. A test's many apps share them too, so each test no longer parses the app's CSS again.
"""

from __future__ import annotations

from typing import Any

from textual.css.model import RuleSet
from textual.css.stylesheet import CSSLocation, Stylesheet

_PARSED: dict[tuple[tuple[str, str], ...], dict[tuple[Any, ...], list[RuleSet]]] = {}
"""theme variables -> (css, read_from, is_default_rules, tie_breaker, scope) -> the rules it parses to."""


class ParsedOnceStylesheet(Stylesheet):
    def __init__(self, *, variables: dict[str, str] | None = None) -> None:
        super().__init__(variables=variables)
        self._parsed: dict[tuple[Any, ...], list[RuleSet]] | None = None  # this theme's table, found on first use

    @classmethod
    def replacing(cls, stylesheet: Stylesheet) -> "ParsedOnceStylesheet":
        """A stylesheet of this kind in the place of `stylesheet` (the one the App made): its variables and sources."""
        new = cls(variables=stylesheet._variables)
        new.source = stylesheet.source.copy()
        new._require_parse = stylesheet._require_parse
        return new

    def set_variables(self, variables: dict[str, str]) -> None:
        super().set_variables(variables)
        self._parsed = None

    def _parse_rules(
        self, css: str, read_from: CSSLocation, is_default_rules: bool = False, tie_breaker: int = 0, scope: str = ""
    ) -> list[RuleSet]:
        table = self._parsed
        if table is None:
            table = self._parsed = _PARSED.setdefault(tuple(sorted(self._variables.items())), {})
        key = (css, read_from, is_default_rules, tie_breaker, scope)
        rules = table.get(key)
        if rules is None:  # CSS Textual cannot tokenize raises here; rules with errors are kept as Textual keeps them
            rules = table[key] = super()._parse_rules(css, read_from, is_default_rules, tie_breaker, scope)
        else:
            self._parse_cache[key] = rules  # what css_cache.py saves for the next start
        return rules

    def copy(self) -> "ParsedOnceStylesheet":
        return self.replacing(super().copy())

    def reparse(self) -> None:
        """Textual's reparse (a new stylesheet, so that an error leaves this one as it was), of this kind."""
        stylesheet = type(self)(variables=self._variables)
        for read_from, (css, is_defaults, tie_breaker, scope) in self.source.items():
            stylesheet.add_source(
                css, read_from=read_from, is_default_css=is_defaults, tie_breaker=tie_breaker, scope=scope
            )
        try:
            stylesheet.parse()
        except Exception:
            self._invalid_css.update(stylesheet._invalid_css)  # as Textual does (its issue 3581)
            raise
        self._rules = stylesheet.rules
        self._rules_map = None
        self.source = stylesheet.source
        self._require_parse = False
