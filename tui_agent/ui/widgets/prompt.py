"""The prompt: a multi-line text area where Enter sends and Shift+Enter or Ctrl+J starts a new line.

Around the text it keeps the layers a person works with (each closed by Esc before anything else):
- `@part` opens a completion list of the project's files (Up/Down move, Tab/Enter insert);
- `!` at the start of an empty prompt switches to shell mode (Backspace on empty leaves it);
- Up/Down on the first/last line walk this project's prompt history ("k of N"); Ctrl+R searches it;
- Ctrl+G or Ctrl+X Ctrl+E edits the text in $VISUAL / $EDITOR.
A one-line bar above the text says which layer is active.
"""

from __future__ import annotations

import re
from functools import partial
from pathlib import Path
from typing import Any, Callable, Literal

from rich.text import Text
from textual import events
from textual.geometry import Region
from textual.message import Message
from textual.strip import Strip
from textual.widgets import OptionList, Static, TextArea
from textual.widgets.option_list import Option

from ..prompt_completion import FileIndex, active_mention, active_slash, mention_text, slash_options
from .styled_lines import ContentKeyedStylesCache

NEWLINE_KEYS = frozenset({"shift+enter", "ctrl+j"})
EDITOR_KEYS = frozenset({"ctrl+g"})
PromptMode = Literal["prompt", "bash"]
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def printable_paste(text: str) -> str:
    """Pasted text as it reads: colour codes and other control bytes dropped (drawn raw, the terminal
    would act on them), lines and tabs kept."""
    if "\x1b" in text:
        text = Text.from_ansi(text).plain  # rich's ANSI decoder: SGR, cursor and OSC sequences go
    return _CONTROL.sub("", text)


class CompletionList(OptionList):
    DEFAULT_CSS = """
    CompletionList {
        height: auto;
        max-height: 10;
        border: none;
        padding: 0 1;
        background: $surface;
        display: none;
    }
    """


class PromptBar(Static):
    DEFAULT_CSS = """
    PromptBar {
        height: auto;
        color: $text-muted;
        padding: 0 1;
        display: none;
    }
    PromptBar.-shell {
        color: $warning;
        text-style: bold;
    }
    """


class PromptInput(TextArea):
    class Submitted(Message):
        def __init__(self, text: str, mode: PromptMode = "prompt") -> None:
            super().__init__()
            self.text = text
            self.mode = mode
            """"bash" for a `!` shell-mode command (text without the `!`)."""

    DEFAULT_CSS = """
    PromptInput.-shell {
        border-left: thick $warning;
    }
    """

    def __init__(self, *, on_keypress: Callable[[], None] = lambda: None, id: str | None = None, root: Path | None = None) -> None:
        super().__init__(id=id, soft_wrap=True, show_line_numbers=False, tab_behavior="focus", compact=True)
        self.on_keypress = on_keypress
        """Called on every key typed here (the permission dialog's type-ahead guard listens)."""
        self._root = root
        self.mode: PromptMode = "prompt"
        self.bar = PromptBar(markup=False)
        self.completions = CompletionList()
        self._index: FileIndex | None = None
        self._mention_open = False
        self._history: Any = None
        self._history_at: int | None = None  # index into the history while walking it
        self._draft = ""
        self._search: str | None = None  # the Ctrl+R query while searching
        self._search_at: int | None = None
        self._chord: str | None = None  # "ctrl+x" waiting for its second key
        self._styles_cache = self._styled_lines = ContentKeyedStylesCache()

    def render_lines(self, crop: Region) -> list[Strip]:
        # Textual asks every widget for its rows in every frame (a streamed answer's ten a second);
        # TextArea resolves its theme's CSS each time. Unchanged rows are handed back as they were.
        served = self._styled_lines.served_again(self, crop)
        return served if served is not None else super().render_lines(crop)

    @property
    def root(self) -> Path:
        return self._root or Path(getattr(getattr(self.app, "settings", None), "cwd", None) or Path.cwd())

    def on_mount(self) -> None:
        if self.parent is not None:
            self.parent.mount(self.completions, before=self)
            self.parent.mount(self.bar, before=self.completions)

    # ----- the layers -------------------------------------------------------------------------
    def close_layer(self) -> bool:
        """Esc: close the open layer (completion, search, shell mode on an empty prompt); False when none."""
        if self._mention_open:
            self._close_completions()
            return True
        if self._search is not None:
            self._end_search(accept=False)
            return True
        if self.mode == "bash" and not self.text:
            self.set_mode("prompt")
            return True
        return False

    def set_mode(self, mode: PromptMode) -> None:
        self.mode = mode
        self.set_class(mode == "bash", "-shell")
        self.bar.set_class(mode == "bash", "-shell")
        self._show_bar()

    def _show_bar(self, text: str = "") -> None:
        if not text and self._history_at is not None:
            total = len(self.prompt_history.texts())
            text = f"history {total - self._history_at} of {total} · ↑↓ walk" + (" · ! shell mode" if self.mode == "bash" else "")
        if not text and self.mode == "bash":
            text = "! shell mode · runs in the workspace without asking · esc or backspace to leave"
        self.bar.update(text)
        self.bar.display = bool(text)

    def on_unmount(self) -> None:
        if self._history is not None:
            self._history.session_started(None)  # prompts typed before a session existed: kept, not lost

    @property
    def prompt_history(self) -> Any:
        if self._history is None:
            from ..prompt_history import PromptHistory

            self._history = PromptHistory(self.root)
        return self._history

    # ----- keys -------------------------------------------------------------------------------
    async def _on_paste(self, event: events.Paste) -> None:
        event.prevent_default()  # TextArea's own handler would insert the raw text too
        await super()._on_paste(events.Paste(printable_paste(event.text)))

    async def _on_key(self, event: events.Key) -> None:
        self.on_keypress()
        if await self._layer_key(event):
            event.stop()
            event.prevent_default()
            return
        await super()._on_key(event)

    async def _layer_key(self, event: events.Key) -> bool:
        """Keys the prompt's layers take before the text area; True when handled."""
        key = event.key
        if self._chord == "ctrl+x":
            self._chord = None
            if key == "ctrl+e":
                self.open_editor()
                return True
        if self._search is not None:
            return self._search_key(event)
        if self._mention_open:
            if key in ("up", "down"):
                self.completions.action_cursor_up() if key == "up" else self.completions.action_cursor_down()
                return True
            slash = key == "enter" and getattr(self._mention_at_cursor(), "slash", False)
            if key in ("tab", "enter") and not slash:  # Enter on `/name` sends it, as typed
                self._accept_completion()
                return True
            if slash:
                self._close_completions()
        if key == "enter":
            self._submit()
            return True
        if key in NEWLINE_KEYS:
            self.insert("\n")
            return True
        if key in EDITOR_KEYS:
            self.open_editor()
            return True
        if key == "ctrl+x":
            self._chord = "ctrl+x"
            return True
        if key == "ctrl+r":
            self._start_search()
            return True
        if event.character == "!" and not self.text and self.mode == "prompt":
            self.set_mode("bash")
            return True
        if key == "backspace" and not self.text and self.mode == "bash":
            self.set_mode("prompt")
            return True
        row = self.cursor_location[0]
        if key == "up" and row == 0 and self.prompt_history.texts():
            self._walk_history(-1)
            return True
        if key == "down" and self._history_at is not None and row == self.document.line_count - 1:
            self._walk_history(1)
            return True
        return False

    def _submit(self) -> None:
        text = self.text
        if not text.strip():
            return
        mode = self.mode
        self.clear()
        self._history_at = None
        self.set_mode("prompt")
        text = text.strip("\n")
        session = getattr(getattr(self.app, "agent", None), "session", None)
        self.prompt_history.add(("!" + text) if mode == "bash" else text, getattr(session, "id", None))
        self.post_message(self.Submitted(text, mode))

    # ----- history ----------------------------------------------------------------------------
    def _walk_history(self, step: int) -> None:
        texts = self.prompt_history.texts()
        if self._history_at is None:
            self._draft = ("!" if self.mode == "bash" else "") + self.text
            at = len(texts) - 1
        else:
            at = self._history_at + step
        if at < 0:
            return
        if at >= len(texts):
            self._history_at = None
            self._load(self._draft)
        else:
            self._history_at = at
            self._load(texts[at])
        self._show_bar()

    def _load(self, display: str) -> None:
        """Put a history entry in the prompt (a `!CMD` entry in shell mode)."""
        bash = display.startswith("!")
        self.set_mode("bash" if bash else "prompt")
        self.text = display[1:] if bash else display
        self.move_cursor(self.document.end)

    def _start_search(self) -> None:
        if self._search is None:
            self._draft = ("!" if self.mode == "bash" else "") + self.text
            self._search, self._search_at = "", None
        self._show_search()

    def _search_key(self, event: events.Key) -> bool:
        key = event.key
        if key == "ctrl+r":  # the next older match
            if self._search_at is not None:
                found = self.prompt_history.search(self._search or "", before=self._search_at)
                if found is not None:
                    self._search_at = found
        elif key in ("enter", "tab", "right", "left"):
            self._end_search(accept=True)
            return True
        elif key == "escape":
            self._end_search(accept=False)
            return True
        elif key == "backspace":
            self._search = (self._search or "")[:-1]
            self._search_at = self.prompt_history.search(self._search) if self._search else None
        elif event.is_printable and event.character:
            self._search = (self._search or "") + event.character
            self._search_at = self.prompt_history.search(self._search)
        else:
            return True
        self._show_search()
        return True

    def _show_search(self) -> None:
        texts = self.prompt_history.texts()
        match = texts[self._search_at] if self._search_at is not None else ""
        if match:
            self._load(match)
        shown = match.splitlines()[0] if match else ("no match" if self._search else "type to search")
        self._show_bar(f"search history: {self._search}_ → {shown} · ctrl+r older · enter take · esc cancel")

    def _end_search(self, *, accept: bool) -> None:
        if not accept or self._search_at is None:
            self._load(self._draft)
        self._search = self._search_at = None
        self._show_bar()

    # ----- @-completion -----------------------------------------------------------------------
    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        if self._search is not None:
            return
        mention = self._mention_at_cursor()
        if mention is None:
            self._close_completions()
            return
        opening = not self._mention_open
        self._mention_open = True
        # A partial, not a coroutine: a burst of keys cancels workers before they start, and a coroutine made
        # for one that never ran would be left un-awaited.
        self.run_worker(partial(self._complete, mention.part, refresh=opening), exclusive=True, group="prompt-complete")

    def _mention_at_cursor(self) -> Any:
        row, col = self.cursor_location
        line = self.document.get_line(row)[:col]
        return active_mention(line) or (active_slash(line) if row == 0 else None)  # `/name`: commands

    async def _complete(self, part: str, *, refresh: bool) -> None:
        mention = self._mention_at_cursor()
        if mention is not None and mention.slash:
            options = slash_options(part)
            self.completions.clear_options()
            self.completions.add_options([Option(label, id=name) for name, label in options])
            self.completions.display = bool(options)
            if options:
                self.completions.highlighted = 0
            return
        if self._index is None:
            self._index = FileIndex(self.root)
        if refresh or not self._index.paths:
            await self._index.refresh()
        found = await self._index.candidates(part)
        if not self._mention_open:
            return
        self.completions.clear_options()
        self.completions.add_options([Option(p, id=p) for p in found])
        self.completions.display = bool(found)
        if found:
            self.completions.highlighted = 0

    def _accept_completion(self) -> None:
        option = self.completions.highlighted_option
        mention = self._mention_at_cursor()
        self._close_completions()
        if option is None or mention is None:
            return
        row, col = self.cursor_location
        text = f"{option.id} " if mention.slash else mention_text(str(option.prompt))
        self.replace(text, (row, mention.start), (row, col))

    def _close_completions(self) -> None:
        self._mention_open = False
        self.completions.display = False
        self.completions.clear_options()

    # ----- the external editor -----------------------------------------------------------------
    def open_editor(self) -> None:
        self.run_worker(self._edit(), exclusive=True, group="prompt-editor")

    async def _edit(self) -> None:
        from ..prompt_editor import edit_text, editor_command, editor_name

        self._show_bar(f"waiting for {editor_name(editor_command())} to close · your text comes back here")
        try:
            edited = await edit_text(self.app, self.text)
        finally:
            self._show_bar()
        self.text = edited
        self.move_cursor(self.document.end)
        self.focus()
