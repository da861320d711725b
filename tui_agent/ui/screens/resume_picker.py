"""The /resume picker: this directory's sessions (ours and Claude Code's), newest first.

Each row: the name or first prompt, age, git branch, message count, size, and marks for a Claude Code
session and for one that ended mid-turn (shown, never hidden). A file that could not be read is a row of its
own at the end, with its path and the reason, that cannot be chosen. Type to filter; ↑/↓ choose; Space shows
the last messages; Enter resumes; Ctrl+A switches between this directory and all projects; Esc cancels.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from ...core.session.index import Listing, SessionInfo, Skipped, scan_sessions
from ...core.session.reader import content_blocks, load

PREVIEW_MESSAGES = 6


def age(seconds: float) -> str:
    if seconds < 60:
        return "just now"
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit} ago"
    return "just now"


def size_text(n: int) -> str:
    return f"{n / 1024:.1f} KB" if n < 1024 * 1024 else f"{n / 1024 / 1024:.1f} MB"


def row_text(info: SessionInfo, now: float, all_projects: bool = False) -> str:
    parts = [age(now - info.modified)]
    if info.branch:
        parts.append(info.branch)
    parts += [f"{info.message_count} messages", size_text(info.size)]
    if all_projects and info.cwd:
        parts.append(info.cwd)
    marks = ""
    if info.source == "claude-code":
        marks += "  [Claude Code]"
    if info.ended_mid_turn:
        marks += "  ⚠ ended mid-turn"
    return f"{info.title[:90]}{marks}\n   {' · '.join(parts)}"


def skipped_text(skipped: Skipped) -> str:
    source = "  [Claude Code]" if skipped.source == "claude-code" else ""
    return f"⚠ skipped: {skipped.path}{source}\n   {skipped.reason}"


def preview_text(info: SessionInfo) -> str:
    conv = load(info.path)
    lines: list[str] = []
    for message, hidden in list(zip(conv.history, conv.hidden))[-PREVIEW_MESSAGES:]:
        if hidden:
            continue
        for block in content_blocks(message["content"]):
            kind = block.get("type")
            if kind == "text" and not block.get("text", "").startswith("<system-reminder>"):
                who = "You" if message["role"] == "user" else "Agent"
                lines.append(f"{who}: {block['text'].strip()[:300]}")
            elif kind == "tool_use":
                lines.append(f"  ⏺ {block.get('name')}")
    return "\n".join(lines) or "(no messages)"


class FilterInput(Input):
    """The filter box; Space previews instead of typing (the Input would take it before any binding)."""

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "space":
            event.prevent_default()
            event.stop()
            await self.run_action("screen.preview")


class ResumePicker(ModalScreen[SessionInfo | None]):
    """Choose a session to resume; dismissed with it, or None."""

    CSS = """
    ResumePicker { align: center middle; background: $background 50%; }
    ResumePicker #picker { width: 100%; max-width: 120; height: 90%; border: round $accent; background: $surface; padding: 0 1; }
    ResumePicker #filter { margin: 0 0 1 0; }
    ResumePicker OptionList { height: 1fr; }
    ResumePicker #preview { height: auto; max-height: 12; border-top: solid $panel-lighten-2; color: $text-muted; display: none; }
    ResumePicker #preview.shown { display: block; }
    ResumePicker #help { color: $text-muted; }
    """
    BINDINGS = [
        Binding("escape", "cancel", "cancel", priority=True),
        Binding("up", "move(-1)", show=False, priority=True),
        Binding("down", "move(1)", show=False, priority=True),
        Binding("enter", "choose", "resume", priority=True),
        Binding("ctrl+a", "toggle_all", "all projects", priority=True),
    ]

    def __init__(self, cwd: Path, clock: Callable[[], float] = time.time) -> None:
        super().__init__()
        self.cwd = cwd
        self.clock = clock
        self.all_projects = False
        self.sessions: list[SessionInfo] = []
        self.skipped: list[Skipped] = []
        self.shown: list[SessionInfo] = []
        self.loaded = False

    def compose(self) -> ComposeResult:
        with Vertical(id="picker") as box:
            box.border_title = "Resume a session"
            yield FilterInput(placeholder="Type to filter", id="filter")
            yield OptionList(id="sessions")
            yield Static("", id="preview", markup=False)
            yield Static("↑↓ choose · Enter resume · Space preview · Ctrl+A all projects · Esc cancel", id="help")

    def on_mount(self) -> None:
        self.query_one("#filter", Input).focus()
        self._load()

    @work(thread=True, exclusive=True, group="resume-picker")
    def _load(self) -> None:
        # Reading every file can take a moment: off the UI thread.
        listing = scan_sessions(None if self.all_projects else self.cwd.resolve())
        self.app.call_from_thread(self._loaded, listing)

    def _loaded(self, listing: Listing) -> None:
        if not self.query("#sessions"):  # the picker was closed while the listing was read
            return
        self.sessions = listing.sessions
        self.skipped = listing.skipped
        self.loaded = True
        self._refilter()

    @on(Input.Changed, "#filter")
    def _refilter(self) -> None:
        words = self.query_one("#filter", Input).value.lower().split()
        self.shown = [s for s in self.sessions if all(w in f"{s.title} {s.branch} {s.session_id}".lower() for w in words)]
        options = self.query_one("#sessions", OptionList)
        options.clear_options()
        now = self.clock()
        # Text, not markup: a prompt may hold brackets.
        options.add_options([Option(Text(row_text(s, now, self.all_projects))) for s in self.shown])
        if self.shown:
            options.highlighted = 0
        elif self.loaded:
            where = "any project" if self.all_projects else "this directory (Ctrl+A: all projects)"
            options.add_option(Option(f"No sessions in {where}.", disabled=True))
        # After the sessions, so their indexes stay those of `shown`; never chosen.
        options.add_options([Option(Text(skipped_text(s)), disabled=True) for s in self.skipped])
        self._hide_preview()

    def _current(self) -> SessionInfo | None:
        index = self.query_one("#sessions", OptionList).highlighted
        return self.shown[index] if index is not None and 0 <= index < len(self.shown) else None

    def action_move(self, step: int) -> None:
        options = self.query_one("#sessions", OptionList)
        if self.shown:
            options.highlighted = max(0, min(len(self.shown) - 1, (options.highlighted or 0) + step))
            self._hide_preview()

    def action_preview(self) -> None:
        preview = self.query_one("#preview", Static)
        info = self._current()
        if preview.has_class("shown") or info is None:
            self._hide_preview()
            return
        preview.update(preview_text(info))
        preview.add_class("shown")

    def _hide_preview(self) -> None:
        self.query_one("#preview", Static).remove_class("shown")

    @on(OptionList.OptionSelected)
    def _clicked(self, event: OptionList.OptionSelected) -> None:
        if 0 <= event.option_index < len(self.shown):
            self.dismiss(self.shown[event.option_index])

    def action_choose(self) -> None:
        info = self._current()
        if info is not None:
            self.dismiss(info)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def action_toggle_all(self) -> None:
        self.all_projects = not self.all_projects
        self.query_one("#picker", Vertical).border_title = "Resume a session" + (" (all projects)" if self.all_projects else "")
        self.loaded = False
        self._load()
