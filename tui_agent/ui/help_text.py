"""`/help` laid out for the width it is shown at: commands in two columns whose descriptions wrap under
themselves (a usage too long for the column gets a line of its own), then the keys and what the lane
panel's columns mean."""

from __future__ import annotations

import textwrap
from typing import Iterable

from .widgets.lanes import PHASE_GLYPH

USAGE_MAX = 30
"""A wider usage goes on its own line rather than pushing every description right."""
TEXT_MIN = 28
"""Narrower than this, descriptions go under their usage."""

_PHASE_WORDS = {"queued": "queued", "waiting": "waiting for you", "running": "running", "ok": "done",
                "error": "failed", "denied": "denied", "cancelled": "cancelled"}

KEYS = (
    ("Enter", "send · Shift+Enter or Ctrl+J: a new line"),
    ("Esc", "interrupt the run (everything in flight stops)"),
    ("Esc Esc", "on an empty prompt: rewind to before an earlier prompt (/rewind)"),
    ("Shift+Tab", "cycle the permission mode"),
    ("Ctrl+T", "show or hide the tools panel"),
    ("Ctrl+O", "fold or unfold the todo list above the prompt"),
    ("Ctrl+F", "find in the conversation"),
    ("Ctrl+P", "command palette"),
    ("Alt+T", "extended thinking on or off"),
)


def help_text(commands: Iterable[tuple[str, str]], width: int) -> str:
    """`commands` as (usage, description), for a conversation `width` cells wide."""
    rows = list(commands)
    lines = _two_columns(rows, width)
    lines += ["", "Keys", *_two_columns(list(KEYS), width)]
    legend = " · ".join(f"{PHASE_GLYPH[phase]} {words}" for phase, words in _PHASE_WORDS.items())
    lines += ["", "The tools panel (Ctrl+T)"]
    lines += _wrapped("Each row is one tool call. The number on its left is its lane: calls in different lanes run at the "
                      "same time, and a lane is reused once free; · marks a call that never ran (denied or cancelled "
                      "before it started).", width)
    lines += _wrapped(legend, width)
    return "\n".join(lines)


def _two_columns(rows: list[tuple[str, str]], width: int) -> list[str]:
    column = min(USAGE_MAX, max((len(usage) for usage, _ in rows), default=0))
    text_w = width - column - 2
    if text_w < TEXT_MIN:  # too narrow for two columns: each description under its usage
        out: list[str] = []
        for usage, text in rows:
            out.append(usage)
            out += textwrap.wrap(text, max(10, width - 4), initial_indent="    ", subsequent_indent="    ")
        return out
    out = []
    pad = " " * (column + 2)
    for usage, text in rows:
        wrapped = textwrap.wrap(text, text_w) or [""]
        if len(usage) > column:
            out.append(usage)
            out += [pad + line for line in wrapped]
            continue
        out.append(f"{usage:<{column}}  {wrapped[0]}")
        out += [pad + line for line in wrapped[1:]]
    return out


def _wrapped(text: str, width: int) -> list[str]:
    return textwrap.wrap(text, max(20, width)) or [""]
