"""The rewind dialogs (Esc Esc, /rewind), in Claude Code's words: the picker of this session's prompts, the
choice of what to restore, and the question before overwriting files changed by hand.

They only show data and return a choice; ui/rewind.py gathers the data and does the restoring.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ...core.checkpoints import FileChange
from ...core.session.rewind import PromptPoint

Action = Literal["both", "conversation", "code", "cancel"]
ACTION_LABELS: dict[Action, str] = {
    "both": "Restore code and conversation",
    "conversation": "Restore conversation",
    "code": "Restore code",
    "cancel": "Never mind",
}
"""Claude Code's labels, in its order."""
NOT_TRACKED = "⚠ Files changed by shell commands (Bash) are not tracked: rewinding does not restore them."
CHECKPOINTING_OFF = ('Code cannot be restored: file checkpointing is off ("fileCheckpointingEnabled": false in '
                     "settings). Only the conversation can be.")
COMPACTED = ("This prompt is before the last compaction: its summary replaced the conversation up to there, "
             "so only the code can be restored.")
NOTHING_TO_RESTORE = "The code has not changed since (nothing to restore)."
NO_CHECKPOINT = "No code checkpoint was kept for this prompt."

_DIALOG_CSS = """
{name} {{ align: center middle; background: $background 60%; }}
{name} #box {{ width: 100; max-width: 100%; height: auto; max-height: 100%; border: round $accent;
              border-title-color: $accent; background: $surface; padding: 0 1; }}
{name} .para {{ margin: 1 0 0 0; }}
{name} .dim {{ color: $text-muted; }}
{name} .warn {{ color: $warning; }}
{name} #quote {{ border-left: outer $panel-lighten-2; padding: 0 1; margin: 1 0 0 0; }}
{name} OptionList {{ height: auto; max-height: 100%; margin: 1 0 0 0; border: none; padding: 0; }}
{name} #hint, {name} #effect {{ margin: 1 0 0 0; }}
"""


@dataclass(frozen=True, slots=True)
class RewindEntry:
    """One row of the picker: a prompt, and what its tools changed (None: no code checkpoint for it)."""

    point: PromptPoint
    changes: tuple[FileChange, ...] | None
    anchor: str | None = None
    """The checkpoint a code restore uses: the prompt's own, or the next one kept after it; None: none."""


def shown_path(path: Path, cwd: Path) -> str:
    try:
        return str(path.relative_to(cwd))
    except ValueError:
        return str(path)


def ago(seconds: float) -> str:
    """How long ago, as the pickers say it."""
    s = max(0, int(seconds))
    if s < 10:
        return "just now"
    for size, unit in ((86400, "d"), (3600, "h"), (60, "m")):
        if s >= size:
            return f"{s // size}{unit} ago"
    return f"{s}s ago"


def cut(text: str, width: int) -> str:
    """`text` in `width` cells at most, an ellipsis where it was cut."""
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def counts(added: int, removed: int) -> str:
    return f"+{added} −{removed}"


def files_summary(changes: tuple[FileChange, ...] | list[FileChange], cwd: Path) -> str:
    """Each file with its `+N −M`."""
    return " · ".join(f"{shown_path(c.path, cwd)} {counts(c.added, c.removed)}" for c in changes)


class RewindPicker(ModalScreen["RewindEntry | None"]):
    """This session's prompts, newest first; Enter picks one, Esc closes."""

    CSS = _DIALOG_CSS.format(name="RewindPicker")
    BINDINGS = [Binding("escape", "close", "cancel", priority=True)]

    def __init__(self, entries: list[RewindEntry], *, now: float, cwd: Path, checkpointing: bool) -> None:
        super().__init__()
        self.entries, self.now, self.cwd, self.checkpointing = entries, now, cwd, checkpointing

    def compose(self) -> ComposeResult:
        width = max(30, min(100, self.app.size.width) - 6)
        with Vertical(id="box") as box:
            box.border_title = "Rewind"
            if not self.entries:
                yield Static("Nothing to rewind to yet.", classes="para", markup=False)
                yield Static("esc close", id="hint", classes="dim", markup=False)
                return
            lead = ("Restore the code and/or conversation to the point before…" if self.checkpointing
                    else "Restore and fork the conversation to the point before…")
            yield Static(lead, classes="para", markup=False)
            yield OptionList(*(Option(self._row(e, width)) for e in self.entries))
            if not self.checkpointing:
                yield Static(CHECKPOINTING_OFF, classes="para dim", markup=False)
            yield Static("↑/↓ choose · enter continue · esc cancel", id="hint", classes="dim", markup=False)

    def _row(self, entry: RewindEntry, width: int) -> Text:
        point = entry.point
        when = ago(self.now - point.timestamp) if point.timestamp is not None else ""
        head = cut(first_line(point.text) or "(no text)", width - len(when) - 2)
        row = Text(head)
        row.append(" " * max(2, width - len(head) - len(when)) + when, style="dim")
        row.append("\n")
        if not point.in_conversation:
            detail = "before the last compaction: code only · "
        else:
            detail = ""
        if not self.checkpointing:
            detail += "code not tracked"
        elif entry.changes is None:
            detail += "no code checkpoint"
        elif not entry.changes:
            detail += "No code changes"
        else:
            detail += files_summary(entry.changes, self.cwd)
        row.append(cut(detail, width), style="dim")
        return row

    def on_mount(self) -> None:
        options = self.query(OptionList)
        if options:
            # The rows scroll inside the box: its other lines (lead, notes, hint) always show.
            chrome = 9 + (3 if not self.checkpointing else 0)
            options.first().styles.max_height = max(4, self.app.size.height - chrome)
            options.first().highlighted = 0
            options.first().focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.entries[event.option_index])

    def action_close(self) -> None:
        self.dismiss(None)


class RewindOptions(ModalScreen["Action | None"]):
    """What to restore for the chosen prompt. Esc goes back to the picker (None)."""

    CSS = _DIALOG_CSS.format(name="RewindOptions")
    BINDINGS = [Binding("escape", "back", "back", priority=True)]

    def __init__(self, entry: RewindEntry, since: list[FileChange], *, now: float, cwd: Path, checkpointing: bool) -> None:
        super().__init__()
        self.entry, self.since, self.now, self.cwd, self.checkpointing = entry, since, now, cwd, checkpointing
        self.can_code = checkpointing and entry.anchor is not None and bool(since)
        self.can_conversation = entry.point.in_conversation
        actions: list[Action] = []
        if self.can_code and self.can_conversation:
            actions.append("both")
        if self.can_conversation:
            actions.append("conversation")
        if self.can_code:
            actions.append("code")
        self.actions: list[Action] = [*actions, "cancel"]

    def compose(self) -> ComposeResult:
        width = max(30, min(100, self.app.size.width) - 8)
        point = self.entry.point
        with Vertical(id="box") as box:
            box.border_title = "Rewind"
            yield Static("Confirm you want to restore to the point before you sent this message:", classes="para", markup=False)
            lines = [cut(line, width) for line in point.text.splitlines()[:3]] or ["(no text)"]
            when = f"({ago(self.now - point.timestamp)})" if point.timestamp is not None else ""
            quote = Text("\n".join(lines))
            if when:
                quote.append("\n" + when, style="dim")
            yield Static(quote, id="quote")
            yield OptionList(*(Option(ACTION_LABELS[a], id=a) for a in self.actions))
            yield Static("", id="effect", classes="dim", markup=False)
            for note in self._notes():
                yield Static(note, classes="para dim", markup=False)
            if self.checkpointing:
                yield Static(NOT_TRACKED, classes="para warn", markup=False)
            yield Static("↑/↓ choose · enter confirm · esc back", id="hint", classes="dim", markup=False)

    def _notes(self) -> list[str]:
        notes = []
        if not self.checkpointing:
            notes.append(CHECKPOINTING_OFF)
        elif self.entry.anchor is None:
            notes.append(NO_CHECKPOINT)
        elif not self.since:
            notes.append(NOTHING_TO_RESTORE)
        if not self.can_conversation:
            notes.append(COMPACTED)
        return notes

    def effect(self, action: Action) -> str:
        """What the highlighted choice will do (Claude Code says it under the choices)."""
        if action == "cancel":
            return "Nothing will change."
        conversation = ("The conversation will be forked." if action in ("both", "conversation")
                        else "The conversation will be unchanged.")
        if action == "conversation":
            return f"{conversation} The code will be unchanged."
        names = [shown_path(c.path, self.cwd) for c in self.since]
        where = names[0] if len(names) == 1 else f"{names[0]} and {names[1]}" if len(names) == 2 else f"{names[0]} and {len(names) - 1} other files"
        added, removed = sum(c.added for c in self.since), sum(c.removed for c in self.since)
        return f"{conversation} The code will be restored {counts(added, removed)} in {where}."

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = 0
        options.focus()
        self._show_effect(self.actions[0])

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._show_effect(self.actions[event.option_index])

    def _show_effect(self, action: Action) -> None:
        self.query_one("#effect", Static).update(self.effect(action))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.actions[event.option_index])

    def action_back(self) -> None:
        self.dismiss(None)


class ConfirmOverwrite(ModalScreen["bool | None"]):
    """Files changed by hand since the agent wrote them: overwrite them (True), keep them and restore the rest
    (False), or cancel the whole restore (Esc: None)."""

    CSS = _DIALOG_CSS.format(name="ConfirmOverwrite").replace("$accent", "$warning")
    BINDINGS = [Binding("escape", "cancel", "cancel", priority=True)]

    def __init__(self, paths: list[Path], cwd: Path) -> None:
        super().__init__()
        self.paths, self.cwd = paths, cwd

    def compose(self) -> ComposeResult:
        with Vertical(id="box") as box:
            box.border_title = "Files changed by hand"
            yield Static("These files were changed since the agent last wrote them (by you, an editor or a shell "
                         "command). Restoring the code would overwrite those changes:", classes="para", markup=False)
            shown = [f"  {shown_path(p, self.cwd)}" for p in self.paths[:12]]
            if len(self.paths) > 12:
                shown.append(f"  … and {len(self.paths) - 12} more")
            yield Static("\n".join(shown), classes="para", markup=False)
            yield OptionList(Option("Keep my changes in these files, restore the others", id="keep"),
                             Option("Overwrite them too", id="overwrite"))
            yield Static("enter confirm · esc cancel (nothing is restored)", id="hint", classes="dim", markup=False)

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = 0
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id == "overwrite")

    def action_cancel(self) -> None:
        self.dismiss(None)
