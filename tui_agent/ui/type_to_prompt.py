"""Keys never lost to focus: a printable key typed while another widget of the main view has focus (the
conversation pane, the tool lanes) goes to the prompt, as in Claude Code. Keys the focused widget binds
(arrows, Enter, PgUp/PgDn, the lanes' `x`) keep their meaning there."""

from __future__ import annotations

from typing import Any

from textual import events
from textual.widget import Widget


def hand_key_to_prompt(widget: Widget, event: events.Key) -> bool:
    """From `widget`'s own key handler (it runs before Textual's non-priority bindings): move focus to the
    prompt and hand it `event` (a copy, so `/`, `@` and `!` act as if typed there). True when taken.

    A terminal delivers `/cost⏎` at once: all five keys are queued for the pane before the `/` moves the
    focus. So once the focus is on the prompt, every key still queued here follows it, Enter included."""
    app: Any = widget.app
    if len(app.screen_stack) != 1:  # a dialog or the palette owns its keys
        return False
    if app.focused is widget:
        if not (event.is_printable and event.character) or event.key in app.active_bindings:
            return False
    elif app.focused is not app.prompt:
        return False  # the focus went somewhere else (a find bar): not ours to guess
    event.stop()
    event.prevent_default()
    # Focused now, not by `focus()`'s callback: the keys queued behind this one must find it moved.
    app.screen.set_focus(app.prompt)
    app.prompt.post_message(events.Key(event.key, event.character))
    return True
