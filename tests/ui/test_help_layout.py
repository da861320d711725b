"""/help as a newcomer reads it at 80 and 120 columns: no line wraps mid-word or runs past the edge, every
command is there, and the lane panel's numbers and glyphs are explained."""

from __future__ import annotations

from pathlib import Path
import pytest

from tui_agent.ui.commands import COMMANDS
from tui_agent.ui.help_text import help_text
from tui_agent.ui.widgets.lanes import PHASE_GLYPH

from tests.ui.app_support import build, transcript_text, until
from tests.ui.app_support import type_keys


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_help_fits_the_terminal_and_explains_the_lane_glyphs(project: Path, size: tuple[int, int]) -> None:
    app, _ = build(project, [])
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: app.ready)
        await type_keys(pilot, *"/help", "enter")
        await until(pilot, lambda: "The tools panel" in transcript_text(app))
        text = transcript_text(app)
        lines = text.splitlines()
        first = next(i for i, line in enumerate(lines) if line.lstrip("ℹ ").startswith(COMMANDS[0].usage + " "))
        last = next(i for i, line in enumerate(lines) if "cancelled" in line and i > first)
        assert max(len(line) for line in lines[first:last + 1]) <= size[0] - 2, "a line runs into the scrollbar or past the edge"
        for command in COMMANDS:
            assert command.usage in text
        for glyph in PHASE_GLYPH.values():
            assert f"{glyph} " in text
        assert "lane" in text and "· marks a call that never ran" in " ".join(text.split())


def test_a_description_wraps_under_itself_not_under_the_usage() -> None:
    rows = [("/short", "a description long enough that it has to wrap onto a second line at this width"),
            ("/a-usage-far-too-long-for-the-column [with args]", "its description")]
    text = help_text(rows, 60)
    lines = text.splitlines()
    assert lines[0].startswith("/short") and lines[1].startswith(" " * 8) and lines[1].strip()
    long = lines.index("/a-usage-far-too-long-for-the-column [with args]")
    assert lines[long + 1].strip() == "its description" and lines[long + 1].startswith(" ")
    assert all(len(line) <= 60 for line in lines)


def test_too_narrow_for_two_columns_puts_each_description_under_its_usage() -> None:
    text = help_text([("/export [file]", "write it as Markdown")], 40)
    assert text.splitlines()[:2] == ["/export [file]", "    write it as Markdown"]
