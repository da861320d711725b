"""Where to cut a history that is too long: summarise the oldest part, keep the newest verbatim.

Used when the API answered `prompt is too long: N tokens > M maximum` (its N calibrates our estimate)
and when the whole history would not fit in one summary request. The cut falls just before an
assistant message, so the summarised part ends with a user message (the summary instruction joins it)
and the kept part starts a valid exchange after the summary message.
"""

from __future__ import annotations

import re
from typing import Any

from .tokens import message_tokens
from .window import AUTOCOMPACT_BUFFER, OUTPUT_RESERVE_CAP, Thresholds

_LIMIT = re.compile(r"(\d[\d,]*)\s*tokens?\s*>\s*(\d[\d,]*)\s*maximum", re.I)

TOO_LONG_HINT = (
    "The conversation does not fit in the model's context window, even after compacting it. "
    "Use /compact (with instructions on what to keep) to summarise it, or /clear to start over."
)


def parse_limit(message: str) -> tuple[int, int] | None:
    """(tokens sent, maximum) from `prompt is too long: 215000 tokens > 200000 maximum`."""
    found = _LIMIT.search(message)
    if found is None:
        return None
    return int(found.group(1).replace(",", "")), int(found.group(2).replace(",", ""))


def target_tokens(t: Thresholds, maximum: int | None = None) -> int:
    """How full the context may be right after a compaction, with room to spare for the next turns."""
    window = min(t.window, maximum) if maximum else t.window
    return min(t.autocompact, window - OUTPUT_RESERVE_CAP - AUTOCOMPACT_BUFFER)


def keep_count(history: list[dict[str, Any]], budget: int) -> int | None:
    """How many of the newest messages to keep verbatim: as many as fit in `budget` tokens (our
    estimate), starting at an assistant message after the first message; None when none fit or
    nothing would be left to summarise."""
    total = 0
    best: int | None = None
    for i in range(len(history) - 1, 0, -1):
        total += message_tokens(history[i])
        if total > budget:
            break
        if history[i].get("role") == "assistant" and history[i - 1].get("role") == "user":
            best = len(history) - i
    return best
