"""A shell word that is a literal: what the command receives is what the line shows.

Read-only is proven, not guessed: a word may only hold plain characters, quotes and backslashes. Every `$`
(variables, `${x@P}`, `${!x}`, `$(…)`, `$((…))`, `$'…'`), every backquote, a brace expansion (`{a,b}`,
`{1..3}`) and a tilde other than a leading `~` or `~/` make it something else: its value is only known when
bash runs it, and some of those forms run programs hidden in data. Globs are kept (as a pattern with the
quoted glob characters escaped) so the caller can expand them itself and look at every match.
"""

from __future__ import annotations

import glob
from dataclasses import dataclass

_GLOB_CHARS = frozenset("*?[")
_DOUBLE_QUOTE_ESCAPES = frozenset('$`"\\')


@dataclass(frozen=True, slots=True)
class Word:
    """A literal word: `text` after quote removal; `pattern` when it has an unquoted glob character (the
    text with quoted glob characters escaped); `tilde` when a leading `~` expands to the home folder."""

    text: str
    pattern: str | None = None
    tilde: bool = False
    end: int = 0  # offset just after the word in the line

    @property
    def is_glob(self) -> bool:
        return self.pattern is not None


def literal_word(raw: str, end: int = 0) -> Word | None:
    """The literal word `raw` stands for (its source text, quotes included), or None when bash would
    expand anything in it other than a glob or a leading `~`/`~/`."""
    tilde = raw == "~" or raw.startswith("~/")
    if raw.startswith("~") and not tilde:
        return None  # `~+`, `~-`, `~user`: bash decides
    text: list[str] = []
    pattern: list[str] = []
    globbing = False
    brace_open = False
    i, n = (1, len(raw)) if tilde else (0, len(raw))
    if tilde:
        text.append("~")
        pattern.append("~")
    while i < n:
        c = raw[i]
        if c == "\\":
            if i + 1 < n and raw[i + 1] != "\n":  # a backslash-newline joins lines: nothing
                text.append(raw[i + 1])
                pattern.append(glob.escape(raw[i + 1]))
            i += 2
        elif c == "'":
            close = raw.find("'", i + 1)
            if close < 0:
                return None
            quoted = raw[i + 1 : close]
            text.append(quoted)
            pattern.append(glob.escape(quoted))
            i = close + 1
        elif c == '"':
            i = _double_quoted(raw, i + 1, text, pattern)
            if i < 0:
                return None
        elif c in "$`":
            return None
        elif c == "~" and raw[i - 1] in "=:":
            return None  # bash expands `x=~/a` and `a:~/b` in words that look like assignments
        else:
            if c == "{":
                brace_open = True
            elif c == "}" and brace_open:
                return None  # `{a,b}`, `{1..9}`: names the text does not show
            if c in _GLOB_CHARS:
                globbing = True
                pattern.append(c)
            else:
                pattern.append(glob.escape(c))
            text.append(c)
            i += 1
    return Word("".join(text), "".join(pattern) if globbing else None, tilde, end)


def _double_quoted(raw: str, i: int, text: list[str], pattern: list[str]) -> int:
    """Reads a double-quoted span from just after its opening quote; the offset after it, or -1 when it
    expands something or is not closed."""
    while i < len(raw):
        c = raw[i]
        if c == '"':
            return i + 1
        if c in "$`":
            return -1
        if c == "\\" and i + 1 < len(raw) and raw[i + 1] in _DOUBLE_QUOTE_ESCAPES | {"\n"}:
            if raw[i + 1] != "\n":
                text.append(raw[i + 1])
                pattern.append(glob.escape(raw[i + 1]))
            i += 2
            continue
        text.append(c)
        pattern.append(glob.escape(c))
        i += 1
    return -1
