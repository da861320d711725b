"""Typing into an open permission dialog: keys typed as text are not answers.

A printable key that would answer (1-6, y, n) is held for a moment instead of acting at once. If two
more printable keys follow in quick succession, the user is typing a sentence: every held and later
key goes to the prompt (with Backspace), Enter answers nothing, and the dialog says it is waiting. When
the keys stop, a lone held key acts as its answer. Typing ends after a quiet second.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Container

TEXT_BURST_KEYS = 3
BURST_GAP_S = 0.25
TYPING_QUIET_S = 1.0


@dataclass(slots=True)
class TypingGuard:
    """Decides, key by key, whether printable keys are answers or text. Pure state; the screen acts."""

    clock: Callable[[], float] = time.monotonic
    burst_gap: float = BURST_GAP_S
    quiet: float = TYPING_QUIET_S
    held: list[str] = field(default_factory=list)
    burst: int = 0
    typing: bool = False
    _last: float = float("-inf")

    def key(self, character: str) -> list[str]:
        """A printable key: the text to send to the prompt now (empty while still undecided)."""
        now = self.clock()
        self.burst = self.burst + 1 if now - self._last <= self.burst_gap else 1
        self._last = now
        if self.typing:
            return [character]
        self.held.append(character)
        if self.burst >= TEXT_BURST_KEYS:
            self.typing = True
            text, self.held = self.held, []
            return text
        return []

    def is_typing(self) -> bool:
        if self.typing and self.clock() - self._last >= self.quiet:
            self.typing = False
        return self.typing

    def due(self, answers: Container[str]) -> str | None:
        """The first held answer key to act on, once the keys have stopped without becoming text."""
        if not self.held or self.clock() - self._last < self.burst_gap:
            return None
        held, self.held = self.held, []
        return next((k for k in held if k in answers), None)


def send_to_prompt(app: Any, text: str = "", *, backspace: bool = False) -> None:
    """Put typed text into the app's prompt (a TextArea or an Input with id `prompt`)."""
    try:
        prompt = app.query_one("#prompt")
    except Exception:
        return
    if backspace:
        action = getattr(prompt, "action_delete_left", None)
        if action is not None:
            action()
        return
    if hasattr(prompt, "insert_text_at_cursor"):
        prompt.insert_text_at_cursor(text)
    elif hasattr(prompt, "insert"):
        prompt.insert(text)


def route_key(app: Any, guard: TypingGuard, event: Any, answers: Container[str]) -> bool:
    """A dialog's key through `guard`: text goes to the prompt, answer keys and keys typed as text stop
    here, Enter answers nothing while typing (Backspace reaches the prompt). True when the typing state
    changed (the dialog redraws its hint)."""
    typing = guard.is_typing()
    if event.is_printable and event.character:
        text = guard.key(event.character)
        if text:
            send_to_prompt(app, "".join(text))
        if text or guard.typing or event.character in answers:
            event.stop()
            event.prevent_default()
        return guard.typing != typing
    if typing and event.key in ("enter", "backspace"):
        event.stop()
        event.prevent_default()
        if event.key == "backspace":
            send_to_prompt(app, backspace=True)
    return False
