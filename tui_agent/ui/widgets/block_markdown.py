"""rich's Markdown, made with one shared MarkdownIt parser.

rich builds a new MarkdownIt parser for every Markdown it makes (its rule chains, a linkify matcher, an
HTML renderer it never uses): about a third of drawing a streamed answer's tail, which happens up to ten
times a second. A parser holds only its configuration (each `parse` works in a state of its own), so
one serves every block. Imported only where Markdown is drawn (rich.markdown is ~40 ms to import).
"""

from __future__ import annotations

import functools

from markdown_it import MarkdownIt
from rich.markdown import Markdown


@functools.cache
def _parser() -> MarkdownIt:
    return MarkdownIt().enable("strikethrough").enable("table")  # as rich's Markdown configures it


class BlockMarkdown(Markdown):
    def __init__(self, markup: str, code_theme: str) -> None:
        # rich's own __init__ with its defaults, less the parser it builds each time; a test keeps the
        # two equal, attribute for attribute and line for line, for the installed rich.
        self.markup = markup
        self.parsed = _parser().parse(markup)
        self.code_theme = code_theme
        self.justify = None
        self.style = "none"
        self.hyperlinks = True
        self.inline_code_lexer = None
        self.inline_code_theme = code_theme
