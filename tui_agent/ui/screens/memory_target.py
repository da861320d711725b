"""Where a `#` line goes: the project's CLAUDE.md or the user's (~/.claude/CLAUDE.md)."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option


class MemoryTargetScreen(ModalScreen[str | None]):
    """Dismissed with "project", "user", or None (Esc)."""

    CSS = """
    MemoryTargetScreen { align: center middle; background: $background 50%; }
    MemoryTargetScreen #box { width: 80; height: auto; border: round $accent; background: $surface; padding: 0 1; }
    MemoryTargetScreen OptionList { height: auto; }
    MemoryTargetScreen #line { color: $text-muted; margin: 0 0 1 0; }
    """
    BINDINGS = [Binding("escape", "cancel", "cancel", priority=True)]

    def __init__(self, line: str, project: Path, user: Path) -> None:
        super().__init__()
        self.line, self.project, self.user = line, project, user

    def compose(self) -> ComposeResult:
        with Vertical(id="box") as box:
            box.border_title = "Remember this where?"
            yield Static(f"- {self.line}", id="line", markup=False)
            yield OptionList(
                Option(f"Project memory  {self.project}", id="project"),
                Option(f"User memory     {self.user}", id="user"),
            )

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
