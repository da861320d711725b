"""Splitting a shell command into the simple commands rules are matched against, with bashlex.

`a && b | c; d $(e) > f` yields a, b, c, d $(e) and e, each with its leading `VAR=value` assignments and
its output redirections kept apart. Subshells, pipes, lists, loops, functions, command and process
substitutions are all walked; anything bashlex cannot parse makes the whole command unparseable (None),
which the engine never auto-allows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import re

from ...tools.shell_parse import parse_line

# Redirections that write to their target (`<` and heredocs only read).
_WRITE_REDIRECTS = frozenset({">", ">>", ">|", "&>", "&>>", ">&", "<>"})
_HARMLESS_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"})
# bashlex can't parse the `time` keyword; it is swapped for a plain word of the same length before parsing
# (word texts are still sliced from the original line, so `time` stays `time` and is stripped as a wrapper).
ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")
"""A shell assignment's start (`FOO=`, `PATH+=`): also what `env`/`sudo` take before the command they run."""
_TIME_KEYWORD = re.compile(r"(^|[;&|(\n])(\s*)time(?=\s)")

# Wrappers that run the rest of the line as a command: name -> (options taking an argument, positional args).
_WRAPPERS: dict[str, tuple[frozenset[str], int]] = {
    "timeout": (frozenset({"-s", "--signal", "-k", "--kill-after"}), 1),
    "time": (frozenset(), 0),
    "nice": (frozenset({"-n", "--adjustment"}), 0),
    "nohup": (frozenset(), 0),
    "stdbuf": (frozenset({"-i", "-o", "-e", "--input", "--output", "--error"}), 0),
    "command": (frozenset(), 0),
}


@dataclass(frozen=True, slots=True)
class SimpleCommand:
    """One command of a compound line. Words are kept as written (quotes included)."""

    assignments: tuple[str, ...]
    words: tuple[str, ...]
    redirect_targets: tuple[str, ...]  # files written by `>`/`>>` (not /dev/null, not fd duplications)
    # The command as written, with its redirections and here-document bodies: what a read-only check of
    # this one part must see (its words alone hide `<<EOF … $(…) … EOF`).
    source: str = ""

    @property
    def core_words(self) -> tuple[str, ...]:
        """The words with wrappers (`timeout 5`, `nice -n 10`, ...) stripped."""
        return strip_wrappers(self.words)

    @property
    def text(self) -> str:
        return " ".join((*self.assignments, *self.words))

    def allow_forms(self) -> tuple[str, ...]:
        """Texts an allow rule is tried on: without wrappers, without and with the assignments."""
        core = " ".join(self.core_words)
        return _unique((core, " ".join((*self.assignments, *self.core_words))))

    def deny_forms(self) -> tuple[str, ...]:
        """Texts deny and ask rules are tried on: every combination, so no spelling slips through."""
        words, core = " ".join(self.words), " ".join(self.core_words)
        return _unique((core, words, " ".join((*self.assignments, *self.core_words)), self.text))


def split_command(command: str) -> list[SimpleCommand] | None:
    """The simple commands of `command`, or None when it cannot be parsed (or expands a redirect target)."""
    if not command.strip():
        return []
    try:
        trees = parse_line(_TIME_KEYWORD.sub(r"\1\2TIME", command))
        found: list[SimpleCommand] = []
        for tree in trees:
            _walk(tree, command, found)
    except Exception:  # _Unsupported, or bashlex's assorted errors (ParsingError, NotImplementedError, ...)
        return None
    return found


def strip_wrappers(words: tuple[str, ...]) -> tuple[str, ...]:
    i = 0
    while i < len(words) and words[i] in _WRAPPERS:
        takes_arg, positional = _WRAPPERS[words[i]]
        j = i + 1
        while j < len(words) and words[j].startswith("-") and words[j] != "-":
            if words[j] == "--":
                j += 1
                break
            j += 2 if words[j] in takes_arg else 1
        j += positional
        if j >= len(words):
            break  # a wrapper with nothing to run is matched as written
        i = j
    return words[i:]


class _Unsupported(Exception):
    """A construct whose effect can't be known statically (e.g. a redirect to `$FILE`)."""


def _walk(node: Any, source: str, out: list[SimpleCommand]) -> None:
    if node.kind == "command":
        _command(node, source, out)
        return
    for child in _children(node):
        _walk(child, source, out)


def _children(node: Any) -> list[Any]:
    kids: list[Any] = []
    for attr in ("parts", "list"):
        kids.extend(getattr(node, attr, None) or [])
    inner = getattr(node, "command", None)
    if inner is not None and hasattr(inner, "kind"):
        kids.append(inner)
    if node.kind == "redirect" and hasattr(node.output, "kind"):
        kids.append(node.output)  # `cat < $(cmd)`, `cat < <(cmd)`: the substitution in the target runs
    return kids


def _command(node: Any, source: str, out: list[SimpleCommand]) -> None:
    assignments: list[str] = []
    words: list[str] = []
    targets: list[str] = []
    for part in node.parts:
        text = source[part.pos[0] : part.pos[1]]
        # bashlex calls `FOO=1` after a leading redirect a word; bash still takes it as an assignment.
        if not words and (part.kind == "assignment" or (part.kind == "word" and ASSIGNMENT.match(text))):
            assignments.append(text)
        elif part.kind in ("word", "assignment"):
            words.append(text)
        elif part.kind == "redirect":
            if _heredoc_expands(part, source):
                raise _Unsupported  # `<<EOF` … `$(cmd)` … `EOF`: bashlex leaves the body unparsed, but it runs
            target = _redirect_target(part)
            if target is not None:
                targets.append(target)
        # Substitutions inside words, assignments and redirections run too: each is a command of its own.
        for child in _children(part):
            _walk(child, source, out)
    start = min(p.pos[0] for p in node.parts)
    end = max(max(p.pos[1], getattr(getattr(p, "heredoc", None), "pos", (0, 0))[1]) for p in node.parts)
    out.append(SimpleCommand(tuple(assignments), tuple(words), tuple(targets), source[start:end]))


def _redirect_target(node: Any) -> str | None:
    if node.type not in _WRITE_REDIRECTS:
        return None
    output = node.output
    if not hasattr(output, "kind"):
        return None  # `2>&1`, `>&2`: a file descriptor, not a file
    if getattr(output, "parts", None):
        raise _Unsupported  # `> $F`, `> ~/x`, `> $(...)`: the file isn't known until run
    return None if output.word in _HARMLESS_TARGETS else output.word


def _heredoc_expands(node: Any, source: str) -> bool:
    """A here-document whose delimiter is unquoted expands `$(…)` and backquotes in its body."""
    body = getattr(getattr(node, "heredoc", None), "value", None)
    if body is None:
        return False
    delimiter = source[node.output.pos[0] : node.output.pos[1]]
    return not any(q in delimiter for q in "'\"\\") and ("$(" in body or "`" in body)


def _unique(items: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(i for i in items if i))
