"""+N −M: the lines a change added and removed, counted on the same unified diff the tools show."""

from __future__ import annotations

from pathlib import Path

from ...tools.text_files import decode, unified_diff


def line_changes(before: bytes, after: bytes) -> tuple[int, int]:
    """(added, removed) lines from `before` to `after`; a binary side counts as no lines."""
    if before == after:
        return 0, 0
    old, new = _text(before), _text(after)
    added = removed = 0
    for line in unified_diff(Path("f"), old, new).splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return added, removed


def _text(data: bytes) -> str:
    decoded = decode(data) if data else None
    return decoded[0] if decoded else ""
