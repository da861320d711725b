"""The prompt: a multi-line text area where Enter sends and Shift+Enter or Ctrl+J starts a new line."""

from __future__ import annotations

from typing import Callable

from textual import events
from textual.message import Message
from textual.widgets import TextArea

NEWLINE_KEYS = frozenset({"shift+enter", "ctrl+j"})


class PromptInput(TextArea):
    class Submitted(Message):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, *, on_keypress: Callable[[], None] = lambda: None, id: str | None = None) -> None:
        super().__init__(id=id, soft_wrap=True, show_line_numbers=False, tab_behavior="focus", compact=True)
        self.on_keypress = on_keypress
        """Called on every key typed here (the permission dialog's type-ahead guard listens)."""

    async def _on_key(self, event: events.Key) -> None:
        self.on_keypress()
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            text = self.text
            if text.strip():
                self.clear()
                self.post_message(self.Submitted(text.strip("\n")))
            return
        if event.key in NEWLINE_KEYS:
            event.stop()
            event.prevent_default()
            self.insert("\n")
            return
        await super()._on_key(event)
