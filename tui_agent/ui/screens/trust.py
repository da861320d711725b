"""The trust question, asked once per new folder before anything the folder configures can run.

Claude Code's dialog (2.1.332, TrustDialog): titled "Accessing workspace:", the folder, its "Quick safety
check", what would apply without asking (pre-approved tools, added directories, hooks, `.mcp.json`), then
"No, exit" (focused first) and "Yes, I trust this folder". No exits with status 1, Esc with 0; in the home
folder Yes lasts for this run only. Until Yes, the agent is not built: no hook, MCP server, committed
allow rule or added directory of the folder applies (core/trust.py keeps the answer).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ...core.trust import folder_trusted, is_home, project_root, remember_trust, what_the_folder_configures

if TYPE_CHECKING:
    from ..app import TuiAgentApp

DECLINED_EXIT = 1
"""Claude Code's status for "No, exit" (Esc leaves with 0)."""
SAFETY_CHECK = (
    "Quick safety check: Is this a project you created or one you trust? (Like your own code, a well-known open "
    "source project, or work from your team). If not, take a moment to review what's in this folder first."
)
ABLE = "tui-agent'll be able to read, edit, and execute files here."
HOME_NOTE = " This is your home folder, so Yes lasts for this session only."
APPLY_WITHOUT_ASKING = "These will apply without asking. Only proceed if you trust this configuration."


class TrustScreen(ModalScreen[bool | None]):
    """Dismissed with True (trust), False ("No, exit") or None (Esc)."""

    CSS = """
    TrustScreen { align: center middle; background: $background 60%; }
    TrustScreen #box { width: 100; max-width: 100%; height: auto; max-height: 100%; border: round $warning;
                       border-title-color: $warning; background: $surface; padding: 0 1; }
    TrustScreen #about { height: auto; max-height: 70vh; }
    TrustScreen #folder { text-style: bold; margin: 1 0 0 0; }
    TrustScreen .para { margin: 1 0 0 0; }
    TrustScreen .warning { color: $warning; text-style: bold; }
    TrustScreen .dim { color: $text-muted; }
    TrustScreen OptionList { height: auto; margin: 1 0 0 0; border: none; }
    """
    BINDINGS = [Binding("escape", "cancel", "cancel", priority=True)]

    def __init__(self, folder: Path, *, home: bool, configured: list[str], repository: Path | None) -> None:
        super().__init__()
        self.folder, self.home, self.configured, self.repository = folder, home, configured, repository

    def compose(self) -> ComposeResult:
        with Vertical(id="box") as box:
            box.border_title = "Accessing workspace:"
            with VerticalScroll(id="about"):  # a long list scrolls; the answers stay on screen at 80x24
                yield Static(str(self.folder), id="folder", markup=False)
                yield Static(SAFETY_CHECK, classes="para", markup=False)
                if self.repository is not None:
                    yield Static(f"This folder is part of the repository at {self.repository}; trusting it trusts that "
                                 "whole repository, including when you run tui-agent there.", markup=False)
                yield Static(ABLE + (HOME_NOTE if self.home else ""), markup=False)
                if self.configured:
                    yield Static("\n".join(f"⚠ {line}" for line in self.configured), classes="para warning", markup=False)
                    yield Static(APPLY_WITHOUT_ASKING, classes="dim", markup=False)
            yield OptionList(Option("No, exit", id="no"), Option("Yes, I trust this folder", id="yes"))
            yield Static("Enter to confirm · Esc to cancel", classes="dim", markup=False)

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = 0  # as Claude Code: the safe answer has the focus
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id == "yes")

    def action_cancel(self) -> None:
        self.dismiss(None)


def trust_first(app: "TuiAgentApp", then: Callable[["TuiAgentApp"], None]) -> None:
    """Run `then(app)` (build the agent) once the folder is trusted: at once when it already is, else after
    the user's Yes; No (or Esc) ends the app, as Claude Code does."""
    from ...core.permissions.settings import user_config_dir

    home = Path.home()
    config_dir = user_config_dir(home, explicit_home=False)
    folder = app.settings.cwd.resolve()
    if folder_trusted(folder, home=home, config_dir=config_dir):
        then(app)
        return
    root = project_root(folder)

    def answered(trusted: bool | None) -> None:
        if trusted:
            remember_trust(folder, home=home, config_dir=config_dir)  # the home folder: this run only
            then(app)
            return
        code = DECLINED_EXIT if trusted is False else 0
        app.exit(code, return_code=code)

    screen = TrustScreen(folder, home=is_home(folder, home), configured=what_the_folder_configures(folder),
                         repository=root if root != folder else None)
    app.push_screen(screen, answered)
