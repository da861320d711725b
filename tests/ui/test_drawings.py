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


def test_text_appended_to_a_paragraph_changes_only_its_last_lines() -> None:
    item = AssistantText()
    item.append("Intro paragraph.\n\n" + " ".join(f"word{i}" for i in range(150)))
    drawing = MarkdownDrawing(item)
    ctx = RenderContext(Console(width=60), 60, {})
    drawing.update(ctx)
    before = [drawing.line(i).text for i in range(drawing.height)]
    item.append(" more words at the end")
    drawing.update(ctx)
    after = [drawing.line(i).text for i in range(drawing.height)]
    assert drawing.changed_from >= len(before) - 1, "the wrapped lines above the last stay as they were"
    assert after[: drawing.changed_from] == before[: drawing.changed_from]
    assert after[-1].rstrip().endswith("at the end")


def test_a_block_that_finishes_keeps_the_lines_drawn_while_it_streamed() -> None:
    item = AssistantText()
    item.append("First paragraph.\n\nSecond paragraph, still open")
    drawing = MarkdownDrawing(item)
    ctx = RenderContext(Console(width=60), 60, {})
    drawing.update(ctx)
    height = drawing.height
    item.append(".\n\nThird")  # the second paragraph finishes; a third begins below it
    drawing.update(ctx)
    assert drawing.changed_from == height - 1, "only the finished paragraph's last line (its full stop) changed"
    assert [drawing.line(i).text.strip() for i in range(drawing.height)][-3:] == ["Second paragraph, still open.", "", "Third"]


def test_a_new_width_draws_everything_again() -> None:
    item = AssistantText()
    item.append("Some text\n\nmore")
    drawing = MarkdownDrawing(item)
    drawing.update(RenderContext(Console(width=60), 60, {}))
    drawing.update(RenderContext(Console(width=40), 40, {}))
    assert drawing.changed_from == 0
