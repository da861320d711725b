"""The Ctrl+P palette lists tui-agent's own commands only: none of Textual's system commands (Keys, Maximize,
Screenshot, Theme, "Quit the application as soon as possible"), which are not ours to offer."""

from __future__ import annotations

from pathlib import Path

from textual.command import CommandList, CommandPalette

from tests.ui.app_support import build, until

SLOW = 60.0


def listed(app) -> list[str]:
    palette = app.screen
    if not isinstance(palette, CommandPalette):
        return []
    options = palette.query_one(CommandList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


async def test_the_palette_lists_only_tui_agents_commands(project: Path) -> None:
    app, _ = build(project, [])
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.ready, SLOW)
        await pilot.press("ctrl+p")
        await until(pilot, lambda: any("/help" in line for line in listed(app)), SLOW)
        shown = "\n".join(listed(app))
        assert "/model" in shown and "/cost" in shown
        for theirs in ("Keys", "Maximize", "Screenshot", "Theme", "Quit the application"):
            assert theirs not in shown, f"Textual's {theirs!r} is in the palette:\n{shown}"
        await pilot.press("escape")
        await app.action_quit()
