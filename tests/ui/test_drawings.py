"""A long answer keeps only the lines asked for; dropped blocks come back identical."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from tui_agent.ui.widgets.cells import RenderContext, render_markdown_block
from tui_agent.ui.widgets.drawings import MarkdownDrawing
from tui_agent.ui.widgets.transcript_items import AssistantText


def test_finished_blocks_out_of_view_are_dropped_and_drawn_again_alike() -> None:
    item = AssistantText()
    for i in range(50):
        item.append(f"Paragraph {i} with **bold** words.\n\n```python\nx = {i}\n```\n\n")
    item.append("an unfinished tail")
    drawing = MarkdownDrawing(item)
    drawing.update(RenderContext(Console(width=60), 60, {}))
    before = [drawing.line(i).text for i in range(drawing.height)]
    height, loaded = drawing.height, drawing.loaded
    dropped = drawing.evict(range(0, 5), excess=10**9)
    assert 0 < dropped < loaded and drawing.height == height
    assert drawing.loaded < 20, "only the blocks in view and the tail stay"
    assert [drawing.line(i).text for i in range(drawing.height)] == before


def test_a_partial_or_unknown_language_never_loads_pygments_plugins(monkeypatch: Any) -> None:
    import pygments.lexers

    def no_plugins() -> Any:
        raise AssertionError("plugin lexers looked up (installed packages imported on the UI's thread)")

    # `pygments.lexers` replaces itself with a lazy module: patch the name where the lookup reads it.
    monkeypatch.setitem(pygments.lexers.get_lexer_by_name.__globals__, "find_plugin_lexers", no_plugins)
    ctx = RenderContext(Console(width=60), 60, {})
    text = "\n".join(s.text for s in render_markdown_block(ctx, "```pyt\nx = 1\n```", first=True))
    assert "x = 1" in text
