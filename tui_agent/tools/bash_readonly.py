"""Classifying shell commands: read-only (safe to run alongside other tools, no ask needed) or not,
and destructive (worth a warning).

A command is read-only when bashlex parses it and every part of it is: each simple command is on a
known list of readers (some with forbidden flags, e.g. `find -delete`, `sort -o`), every command
substitution is itself read-only, no variable assignment, and output is redirected to no file but
/dev/null. Anything unparsable or unknown is not read-only: a false "no" only costs a question.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Iterator

import bashlex

Node = Any  # bashlex.ast.node: untyped
ArgsCheck = Callable[[list[str]], bool]

_HARMLESS_SINKS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})
_INPUT_REDIRECTS = frozenset({"<", "<<", "<<<", "<<-", "<&"})
_OUTPUT_REDIRECTS = frozenset({">", ">>", ">|", "&>", "&>>", ">&"})
# A parameter expansion bashlex does not look inside, e.g. ${x:-$(rm y)}.
_HIDDEN_SUBSTITUTION = re.compile(r"\$\(|`|[<>]\(")


def _short_flags(args: list[str]) -> str:
    """All single-letter flags, clustered or not: ['-rn', '-k1'] -> 'rnk1'."""
    return "".join(a[1:] for a in args if a.startswith("-") and not a.startswith("--"))


def _anything(args: list[str]) -> bool:
    return True


def _no_args(args: list[str]) -> bool:
    return not args


_FIND_ACTIONS = frozenset({"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fls", "-fprint", "-fprint0", "-fprintf"})


def _find(args: list[str]) -> bool:
    return not any(a in _FIND_ACTIONS for a in args)


def _sort(args: list[str]) -> bool:
    return "o" not in _short_flags(args) and not any(a.startswith("--output") for a in args)


def _date(args: list[str]) -> bool:
    setting = any(a == "-s" or a.startswith("--set") for a in args) or "s" in _short_flags(args)
    # A bare MMDDhhmm[[CC]YY][.ss] argument sets the clock.
    return not setting and not any(re.fullmatch(r"[\d.]+", a) for a in args)


def _uniq(args: list[str]) -> bool:
    # `uniq IN OUT` writes OUT.
    return len([a for a in args if not a.startswith("-")]) <= 1


def _rg(args: list[str]) -> bool:
    # --pre and --hostname-bin run programs.
    return not any(a.startswith(("--pre", "--hostname-bin")) for a in args)


def _file(args: list[str]) -> bool:
    return not any(a in ("-C", "--compile") for a in args)


_GIT_VALUE_OPTIONS = frozenset({"-C", "--git-dir", "--work-tree", "--namespace"})
_GIT_READERS = frozenset({"status", "log", "diff", "show", "rev-parse", "ls-files", "blame", "describe", "shortlog"})
_BRANCH_FLAGS = frozenset(
    {"-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose", "--list", "-l", "--show-current", "--color",
     "--no-color", "--column", "--no-column", "-i", "--ignore-case", "--omit-empty"}
)
_BRANCH_VALUE_FLAGS = frozenset({"--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--sort", "--format"})


def _git(args: list[str]) -> bool:
    i = 0
    while i < len(args) and args[i].startswith("-"):
        if args[i] in ("-c", "--config-env") or args[i].startswith("--exec-path="):
            return False  # `-c core.pager=...` and friends can run anything
        i += 2 if args[i] in _GIT_VALUE_OPTIONS else 1
    if i >= len(args):
        return False
    sub, rest = args[i], args[i + 1 :]
    if any(a.startswith("--output") for a in rest):
        return False
    if sub == "branch":
        return _git_branch_lists(rest)
    return sub in _GIT_READERS


def _git_branch_lists(args: list[str]) -> bool:
    listing = "--list" in args or "-l" in args
    i = 0
    while i < len(args):
        arg = args[i]
        name = arg.split("=", 1)[0]
        if name in _BRANCH_VALUE_FLAGS:
            i += 1 if "=" in arg else 2
            continue
        if arg.startswith("-"):
            if arg not in _BRANCH_FLAGS:
                return False
        elif not listing:
            return False  # `git branch NAME` creates a branch
        i += 1
    return True


_READERS: dict[str, ArgsCheck] = {
    **{name: _anything for name in (
        "ls", "cat", "head", "tail", "wc", "echo", "printf", "pwd", "sleep", "true", "false", "which", "type",
        "grep", "egrep", "fgrep", "stat", "du", "df", "whoami", "id", "uname", "hostname", "cut", "tr", "nl",
        "basename", "dirname", "realpath", "readlink", "test", "[", "seq", "diff", "cmp", "md5sum", "sha1sum",
        "sha256sum", "tree", "printenv", "cd", "read", "column", "jq",
    )},
    "env": _no_args,
    "find": _find,
    "sort": _sort,
    "date": _date,
    "uniq": _uniq,
    "rg": _rg,
    "file": _file,
    "git": _git,
}


def is_read_only(command: str) -> bool:
    try:
        trees = bashlex.parse(command)
    except Exception:  # bashlex raises several types (ParsingError, NotImplementedError, ...)
        return False
    return bool(trees) and all(_read_only(tree) for tree in trees)


def _read_only(node: Node) -> bool:
    kind = node.kind
    if kind in ("operator", "pipe", "reservedword"):
        return True
    if kind in ("list", "pipeline", "for", "if", "while", "until"):
        return all(_read_only(part) for part in node.parts)
    if kind == "compound":
        return all(_read_only(part) for part in node.list) and all(
            _redirect_ok(r) for r in getattr(node, "redirects", [])
        )
    if kind == "command":
        return _command_ok(node)
    if kind == "word":
        return _word_ok(node)
    return False  # function definitions and anything unknown


def _command_ok(node: Node) -> bool:
    words: list[Node] = []
    for part in node.parts:
        if part.kind == "word":
            if not _word_ok(part):
                return False
            words.append(part)
        elif part.kind == "redirect":
            if not _redirect_ok(part):
                return False
        else:  # assignments (LD_PRELOAD=... cmd) and anything else
            return False
    if not words or words[0].parts:  # no command, or one that comes from an expansion
        return False
    check = _READERS.get(words[0].word)
    if check is None:
        return False
    args = words[1:]
    if check is not _anything and any(_has_parameter(w) for w in args):
        return False  # `find . $ACTION`: a flag we cannot see
    return check([w.word for w in args])


def _word_ok(word: Node) -> bool:
    for part in getattr(word, "parts", []):
        if part.kind in ("commandsubstitution", "processsubstitution"):
            if not _read_only(part.command):
                return False
        elif part.kind == "parameter":
            if _HIDDEN_SUBSTITUTION.search(part.value):
                return False
        elif part.kind != "tilde":
            return False
    return True


def _has_parameter(word: Node) -> bool:
    return any(p.kind != "tilde" for p in getattr(word, "parts", []))


def _redirect_ok(redirect: Node) -> bool:
    kind = redirect.type
    target = redirect.output
    if kind in _INPUT_REDIRECTS:
        return not hasattr(target, "kind") or _word_ok(target)
    if kind in _OUTPUT_REDIRECTS:
        if isinstance(target, int):  # 2>&1, >&2
            return True
        return target.word in _HARMLESS_SINKS and not target.parts
    return False


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
        trees = bashlex.parse(command)
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
