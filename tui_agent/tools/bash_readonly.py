"""Classifying shell commands: read-only (runs without asking, alongside other tools) or not, and
destructive (worth a warning).

Read-only is proven, not guessed. A line is read-only only when every part of it is inside a small, closed
grammar:
  - simple commands joined by `|`, `&&`, `||`, `;` (and `( … )` / `{ …; }` groups of them);
  - words that are literals after quote removal (`shell_words`): no `$`, backquote, `$(…)`, `<(…)`,
    arithmetic, brace expansion or tilde other than a leading `~/`; globs are expanded by us and checked;
  - no assignments, no here-documents; redirections only `< FILE` (a read like any other), `<<< 'literal'`,
    output to /dev/null and fd duplications (`2>&1`);
  - each command on the list in `shell_commands`, its options parsed as the command parses them, none of
    them one that writes, runs a program, reads a list of further files or shows the environment.
Anything else asks: a false "no" only costs a question. The paths the readers name are collected for the
permission engine (every command is walked, even in a line that is not read-only, so a rule that allows one
part never lets another part read outside unseen).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Iterator

from .shell_commands import READER_NAMES as _COMMAND_NAMES, Reading, reading
from .shell_git import READER_NAMES as _GIT_NAMES, SAFETY_FLAGS
from .shell_parse import parse_line, quoted_heredoc_at
from .shell_words import Word, literal_word

Node = Any  # bashlex.ast.node: untyped

_HARMLESS_SINKS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})
_OUTPUT_REDIRECTS = frozenset({">", ">>", ">|", "&>", "&>>"})
_LIST_OPERATORS = frozenset({";", "&&", "||", "\n"})
_GROUP_WORDS = frozenset({"(", ")", "{", "}"})
_GLOB_START = frozenset("*?[")
# Commands that move the shell to a folder we cannot follow: later relative paths could be anywhere.
_CWD_CHANGERS = frozenset({"pushd", "popd", "source", ".", "eval", "exec", "builtin", "command"})


def _short_flags(args: list[str]) -> str:
    """All single-letter flags, clustered or not: ['-rn', '-k1'] -> 'rnk1'."""
    return "".join(a[1:] for a in args if a.startswith("-") and not a.startswith("--"))


@dataclass(slots=True)
class Analysis:
    """What a shell line does, as far as permissions care. `read_only`: every part is in the grammar above.
    `paths`: the files and folders the readers name (tilde expanded; relative ones joined to each folder a
    `cd` may have moved to, never normalised: `link/..` is left for the kernel's walk; globs kept).
    `follows`: folders a reader walks following symbolic links (each link under them is a read of its
    target). `option_globs`: globs in an option's place, which could expand to a file named like an option.
    `git_dirs`: where read-only git runs (to disable what the repository configures there). `git_flag_at`:
    (offset, flags): after `git diff|log|show|blame` the Bash tool inserts `--no-ext-diff`, `--no-textconv`."""

    read_only: bool = True
    paths: list[str] = field(default_factory=list)
    follows: list[str] = field(default_factory=list)
    option_globs: list[tuple[str, str]] = field(default_factory=list)  # (folder, pattern)
    git_dirs: list[str] = field(default_factory=list)
    git_flag_at: list[tuple[int, str]] = field(default_factory=list)
    cwds: list[str] = field(default_factory=lambda: ["."])
    cwd_unknown: bool = False


def analyse(command: str) -> Analysis | None:
    """The analysis of `command`, or None when bashlex cannot parse it (never read-only). Cached: the
    executor, the permission engine and the tool each ask about the same line; callers must not change it."""
    return _analyse(command, os.environ.get("HOME"))


@lru_cache(maxsize=256)
def _analyse(command: str, home: str | None) -> Analysis | None:
    try:
        trees = parse_line(command)
    except Exception:  # bashlex raises several types (ParsingError, NotImplementedError, ...)
        return None
    if not trees:
        return None
    found = Analysis()
    for tree in trees:
        if not _node(tree, found, command):
            found.read_only = False
    return found


def is_read_only(command: str) -> bool:
    found = analyse(command)
    return found is not None and found.read_only


def _node(node: Node, found: Analysis, source: str) -> bool:
    """Whether `node` is in the grammar; walks all of it either way, so every path and `cd` is seen."""
    kind = node.kind
    if kind == "list":
        ok = [_node(p, found, source) if p.kind != "operator" else p.op in _LIST_OPERATORS for p in node.parts]
        return all(ok)
    if kind == "pipeline":
        ok = [_node(p, found, source) if p.kind != "pipe" else p.pipe == "|" for p in node.parts]
        return all(ok)
    if kind == "compound":
        inner = [_node(p, found, source) if p.kind != "reservedword" else p.word in _GROUP_WORDS for p in node.list]
        redirects = [_redirect_ok(r, found, source) for r in getattr(node, "redirects", [])]
        return all(inner) and all(redirects)
    if kind == "command":
        return _command_ok(node, found, source)
    for child in _children(node):  # if/for/while/functions: outside the grammar, but their paths count
        _node(child, found, source)
    return False


def _children(node: Node) -> Iterator[Node]:
    for attr in ("parts", "list"):
        for child in getattr(node, attr, None) or []:
            if hasattr(child, "kind"):
                yield child
    inner = getattr(node, "command", None)
    if inner is not None and hasattr(inner, "kind"):
        yield inner


def _command_ok(node: Node, found: Analysis, source: str) -> bool:
    words: list[Word | None] = []
    ok = True
    for part in node.parts:
        if part.kind == "word":
            plain = all(p.kind == "tilde" for p in part.parts)  # a leading `~` is checked by literal_word
            word = literal_word(source[part.pos[0] : part.pos[1]], part.pos[1]) if plain else None
            ok = ok and word is not None
            words.append(word)
            _walk_substitutions(part, found, source)
        elif part.kind == "redirect":
            ok = _redirect_ok(part, found, source) and ok
        else:  # assignments (LD_PRELOAD=… cmd) and anything else
            ok = False
            _walk_substitutions(part, found, source)
    if not words or words[0] is None:
        return False  # no command, or one that comes from an expansion
    name = words[0].text
    args = words[1:]
    literal = [w for w in args if w is not None]
    if len(literal) < len(args):  # some word is only known when bash runs the line
        _cd_unknown_if(name, found)
        _add_guessed_paths(name, literal, found)
        return False
    texts = [w.text for w in literal]
    # A glob as the command name could be anything; `[` alone is no valid pattern, so bash keeps it.
    read = reading(name, texts) if words[0].pattern is None or name == "[" else None
    if read is None:
        _cd_unknown_if(name, found)
        _add_guessed_paths(name, literal, found)
        return False
    if name == "find" and any(w.is_glob for w in literal):
        return False  # `find . -name *` could expand to `-delete`: find's expression has no `--`
    _note_option_globs(literal, found)
    for path, word in _read_paths(read, literal):
        _add_path(found, path, word)
    for word in literal:  # `echo ~`: a leading ~ must resolve into an allowed folder, path or not
        if word.tilde and word.text not in read.paths:
            _add_path(found, word.text, word)
    for folder in read.follows:
        found.follows += _joined(found, os.path.expanduser(folder) if folder.startswith("~") else folder)
    if read.git is not None:
        found.git_dirs += [d for c in found.cwds for d in [os.path.join(c, g) for g in read.git.dirs] if d not in found.git_dirs]
        if read.git.subcommand_at is not None:
            at = read.git.subcommand_at
            found.git_flag_at.append((literal[at].end, SAFETY_FLAGS[literal[at].text]))
    if read.cd is not None:
        _follow_cd(read.cd, found)
    return ok


def _read_paths(read: Reading, literal: list[Word]) -> Iterator[tuple[str, Word | None]]:
    """Each path with the word it came from (for its glob pattern and tilde), when one word is it."""
    by_text = {w.text: w for w in literal}
    for path in read.paths:
        yield path, by_text.get(path)


def _add_guessed_paths(name: str, literal: list[Word], found: Analysis) -> None:
    """For a command we cannot read exactly: every literal word that is not an option is taken as a path,
    and an option's attached value that looks like one, so a rule that allows the command still never lets it
    read outside unseen."""
    if name not in _COMMAND_NAMES or name in ("echo", "printf", "test", "["):
        return
    for word in literal:
        text = word.text
        if text.startswith("-"):
            _, eq, value = text.partition("=")
            if eq and ("/" in value or value.startswith("~")):
                _add_path(found, value, None)
            continue
        _add_path(found, text, word)


def _note_option_globs(literal: list[Word], found: Analysis) -> None:
    """A glob that starts with a glob character can expand to `-delete` or `--files0-from=x`: a file named so
    in the folder turns it into an option. Those globs are checked against the folder before the line runs."""
    for word in literal:
        if word.text == "--":
            return
        if word.pattern is not None and word.pattern[:1] in _GLOB_START:
            found.option_globs += [(c, word.pattern) for c in found.cwds]


def _cd_unknown_if(name: str, found: Analysis) -> None:
    if name in _CWD_CHANGERS or name == "cd":
        found.cwd_unknown = True


def _follow_cd(target: str, found: Analysis) -> None:
    """A `cd` moves every later relative path (we keep the folders before it too: it may fail)."""
    target = os.path.expanduser(target) if target.startswith("~") else target
    found.cwds += [os.path.join(c, target) for c in found.cwds]


def _joined(found: Analysis, path: str) -> list[str]:
    if os.path.isabs(path):
        return [path]
    if found.cwd_unknown:
        return ["/"]  # relative to a folder we can't know: ask, like a read of anything
    return [os.path.join(c, path) for c in found.cwds]


def _add_path(found: Analysis, path: str, word: Word | None) -> None:
    if word is not None and word.pattern is not None and word.text == path:
        path = word.pattern  # quoted glob characters stay literal
    if path.startswith("~"):
        path = os.path.expanduser(path)
    found.paths += _joined(found, path)


def _walk_substitutions(part: Node, found: Analysis, source: str) -> None:
    for child in _children(part):
        if child.kind in ("commandsubstitution", "processsubstitution"):
            _node(child.command, found, source)
        else:
            _walk_substitutions(child, found, source)


def _redirect_ok(redirect: Node, found: Analysis, source: str) -> bool:
    kind = redirect.type
    target = redirect.output
    if kind in ("<<", "<<-"):
        return quoted_heredoc_at(source, redirect.pos[0])  # a quoted delimiter: the body is never expanded
    if not hasattr(target, "kind"):
        return kind in (">&", "<&")  # `2>&1`, `>&2`, `<&3`: a file descriptor, not a file
    _walk_substitutions(target, found, source)
    plain = all(p.kind == "tilde" for p in target.parts)
    word = literal_word(source[target.pos[0] : target.pos[1]]) if plain else None
    if word is None or word.pattern is not None:
        return False
    if kind == "<":
        _add_path(found, word.text, word)
        return True
    if kind == "<<<":
        return True  # a literal string on stdin
    if kind in _OUTPUT_REDIRECTS:
        return word.text in _HARMLESS_SINKS
    return False  # here-documents, `<>`, `>&FILE`


# What the Bash tool's description tells the model runs without asking.
READER_NAMES: tuple[str, ...] = _COMMAND_NAMES
GIT_READER_NAMES: tuple[str, ...] = _GIT_NAMES


# --- destructive commands -------------------------------------------------------------------------

_DESTRUCTIVE_GIT = (
    ("reset", "--hard"),
    ("clean", "-f"),
    ("clean", "-fd"),
    ("clean", "-fdx"),
    ("push", "--force"),
    ("push", "-f"),
    ("push", "--force-with-lease"),
    ("branch", "-D"),
    ("checkout", "--"),
    ("checkout", "."),
    ("restore", "."),
    ("stash", "clear"),
)


def is_destructive(command: str) -> bool:
    """True for commands that delete or overwrite work irrecoverably (rm -r, git reset --hard, dd...)."""
    try:
        trees = parse_line(command)
    except Exception:
        return bool(re.search(r"\brm\s+-\w*[rRf]", command))
    return any(_destructive(words) for tree in trees for words in _simple_commands(tree))


def _destructive(words: list[str]) -> bool:
    if not words:
        return False
    name, args = words[0], words[1:]
    if name == "rm":
        flags = _short_flags(args)
        return any(f in flags for f in "rRf") or any(a in ("--recursive", "--force") for a in args)
    if name in ("dd", "shred", "mkfs", "wipefs", "truncate") or name.startswith("mkfs."):
        return True
    if name == "find":
        return "-delete" in args
    if name == "git" and args:
        return any(args[0] == sub and flag in args[1:] for sub, flag in _DESTRUCTIVE_GIT)
    return False


def _simple_commands(node: Node) -> Iterator[list[str]]:
    """The words of every simple command anywhere in the tree, substitutions included."""
    if node.kind == "command":
        yield [p.word for p in node.parts if p.kind == "word"]
    for attr in ("parts", "list"):
        for child in getattr(node, attr, None) or []:
            yield from _simple_commands(child)
    command = getattr(node, "command", None)
    if command is not None:
        yield from _simple_commands(command)
