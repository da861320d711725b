"""BlockMarkdown is rich's Markdown made with a shared parser: the same object and the same lines."""

from __future__ import annotations

import io

import pytest
from rich.console import Console
from rich.markdown import Markdown

from tui_agent.ui.widgets.block_markdown import BlockMarkdown

SOURCES = [
    "plain words\nover two lines",
    "# Title\n\nSome **bold**, *em*, ~~struck~~, `code` and https://example.com.\n\n> quoted\n",
    "| a | b |\n|---|---|\n| 1 | 2 |\n",
    "```python\ndef f(x):\n    return [x, 'y']\n```\n",
    "1. one\n2. two\n   - nested\n\n---\n\n![img](x.png) <b>html</b>\n",
    "",
]


def _lines(markdown: Markdown) -> list[str]:
    console = Console(file=io.StringIO(), width=60, color_system="truecolor", force_terminal=True)
    return ["".join(f"{s.text}|{s.style}" for s in line) for line in console.render_lines(markdown, pad=False)]


@pytest.mark.parametrize("source", SOURCES)
def test_it_is_riches_markdown_attribute_for_attribute_and_line_for_line(source: str) -> None:
    ours, theirs = BlockMarkdown(source, code_theme="monokai"), Markdown(source, code_theme="monokai")
    assert vars(ours).keys() == vars(theirs).keys(), "rich's Markdown.__init__ changed: update BlockMarkdown"
    for name in vars(theirs):
        if name != "parsed":
            assert getattr(ours, name) == getattr(theirs, name), name
    assert [(t.type, t.content) for t in ours.parsed] == [(t.type, t.content) for t in theirs.parsed]
    assert _lines(ours) == _lines(theirs)


def test_blocks_parsed_one_after_another_do_not_share_state() -> None:
    first = BlockMarkdown("```\nopen fence", code_theme="monokai")
    second = BlockMarkdown("after", code_theme="monokai")
    assert [t.type for t in second.parsed] == ["paragraph_open", "inline", "paragraph_close"]
    assert first.parsed[0].type == "fence"
