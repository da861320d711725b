"""Parsing a shell line with bashlex, working around what bashlex gets wrong.

bashlex (0.18) cannot end a here-document whose delimiter is quoted (`<<'EOF'`, `<<"EOF"`, `<<\\EOF`): it
looks for a line equal to the delimiter with its quotes. Such a body is literal — nothing in it is expanded —
which is the one kind of here-document a read-only line may carry. So before parsing, the quotes around such
a delimiter are blanked out (replaced by spaces, so every offset stays the same); callers read words from the
original line by their offsets and ask `quoted_heredoc_at` about a here-document.
"""

from __future__ import annotations

import re
from typing import Any

_QUOTED_DELIMITER = re.compile(r"<<(-?)([ \t]*)(?:'(\w+)'|\"(\w+)\"|\\(\w+))")


def _blank_quotes(match: re.Match[str]) -> str:
    word = match.group(3) or match.group(4) or match.group(5)
    padding = len(match.group(0)) - len(f"<<{match.group(1)}{match.group(2)}{word}")
    return f"<<{match.group(1)}{match.group(2)}{word}{' ' * padding}"


def parse_line(command: str) -> list[Any]:
    """bashlex's trees for `command` (raises what bashlex raises when it cannot parse it)."""
    import bashlex  # its import builds the LALR tables every time (~80 ms): only when a line is parsed

    return bashlex.parse(_QUOTED_DELIMITER.sub(_blank_quotes, command))


def quoted_heredoc_at(source: str, offset: int) -> bool:
    """Whether the here-document redirection at `offset` of the original line has a quoted delimiter (a
    literal body)."""
    return _QUOTED_DELIMITER.match(source, offset) is not None
