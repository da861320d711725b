"""Classifying shell commands: read-only (safe to run alongside other tools, no ask needed) or not,
and destructive (worth a warning).

A command is read-only when bashlex parses it and every part of it is: each simple command is on a
known list of readers (some with forbidden flags, e.g. `find -delete`, `sort -o`), every command
substitution is itself read-only, no variable assignment, and output is redirected to no file but
/dev/null. Anything unparsable or unknown is not read-only: a false "no" only costs a question.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import bashlex

from .bash_paths import UnknownPath, path_arguments

Node = Any  # bashlex.ast.node: untyped
ArgsCheck = Callable[[list[str]], bool]

_HARMLESS_SINKS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})
_INPUT_REDIRECTS = frozenset({"<", "<<", "<<<", "<<-", "<&"})
_OUTPUT_REDIRECTS = frozenset({">", ">>", ">|", "&>", "&>>", ">&"})
# A parameter expansion bashlex does not look inside, e.g. ${x:-$(rm y)}.
_HIDDEN_SUBSTITUTION = re.compile(r"\$\(|`|[<>]\(")
_GLOB_CHARS = frozenset("*?[")
# Readers with flags that write or run programs: an unquoted glob could expand to such a flag.
_FLAG_TAKERS = frozenset({"find", "sort", "git", "tree", "rg", "date", "uniq", "hostname", "file", "jq"})
# git subcommands that may run an external diff program (`diff.external`, a diff driver's command).
_GIT_DIFFERS = frozenset({"diff", "log", "show"})


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
    # --compress-program runs a program of the caller's choosing.
    return "o" not in _short_flags(args) and not any(a.startswith(("--output", "--compress-program")) for a in args)


def _tree(args: list[str]) -> bool:
    # -o FILE writes the listing to FILE; -R writes a 00Tree.html into every folder (with -H).
    flags = _short_flags(args)
    return "o" not in flags and "R" not in flags and not any(a.startswith("--output") for a in args)


_HOSTNAME_SETTERS = frozenset({"-F", "--file", "-b", "--boot"})


def _hostname(args: list[str]) -> bool:
    # `hostname NAME` renames the machine; only flags that print are read-only.
    return all(a.startswith("-") and a.split("=")[0] not in _HOSTNAME_SETTERS for a in args)


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
# Options that write a file (--output), run a program (--ext-diff, --textconv, --show-signature runs gpg)
# or read an order file the repository may not hold (-O<file>).
_GIT_RUNS_OR_WRITES = ("--output", "--ext-diff", "--textconv", "--show-signature", "--exec-path", "--upload-pack")
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
    if any(a.startswith(_GIT_RUNS_OR_WRITES) or (a.startswith("-O") and a != "-O") or a == "-O" for a in rest):
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
        "grep", "egrep", "fgrep", "stat", "du", "df", "whoami", "id", "uname", "cut", "tr", "nl",
        "basename", "dirname", "realpath", "readlink", "test", "[", "seq", "diff", "cmp", "md5sum", "sha1sum",
        "sha256sum", "printenv", "cd", "read", "column", "jq",
    )},
    "tree": _tree,
    "hostname": _hostname,
    "env": _no_args,
    "find": _find,
    "sort": _sort,
    "date": _date,
    "uniq": _uniq,
    "rg": _rg,
    "file": _file,
    "git": _git,
}


@dataclass(slots=True)
class Analysis:
    """What a shell line does, as far as permissions care. `read_only`: every part is a known reader that
    writes nothing and runs no program of anyone's choosing. `paths`: the files and folders the readers
    name (tilde expanded; relative ones joined to each folder a `cd` may have moved to; globs kept), which
    the permission engine treats as reads. `git_dirs`: where read-only git runs (to disable what the
    repository configures there). `git_flag_at`: offsets after `git diff|log|show` where the Bash tool
    inserts `--no-ext-diff`."""

    read_only: bool = True
    paths: list[str] = field(default_factory=list)
    git_dirs: list[str] = field(default_factory=list)
    git_flag_at: list[int] = field(default_factory=list)
    cwds: list[str] = field(default_factory=lambda: ["."])
    cwd_unknown: bool = False


def analyse(command: str) -> Analysis | None:
    """The analysis of `command`, or None when bashlex cannot parse it (never read-only)."""
    try:
        trees = bashlex.parse(command)
    except Exception:  # bashlex raises several types (ParsingError, NotImplementedError, ...)
        return None
    if not trees:
        return None
    found = Analysis()
    for tree in trees:
        if not _read_only(tree, found, command):
            found.read_only = False
    return found


def is_read_only(command: str) -> bool:
    found = analyse(command)
    return found is not None and found.read_only


def _read_only(node: Node, found: Analysis, source: str) -> bool:
    """Whether `node` is read-only; walks all of it either way, so every path and `cd` is seen."""
    kind = node.kind
    if kind in ("operator", "pipe", "reservedword"):
        return True
    if kind in ("list", "pipeline", "for", "if", "while", "until"):
        return all([_read_only(part, found, source) for part in node.parts])
    if kind == "compound":
        inner = all([_read_only(part, found, source) for part in node.list])
        return inner and all([_redirect_ok(r, found, source) for r in getattr(node, "redirects", [])])
    if kind == "command":
        return _command_ok(node, found, source)
    if kind == "word":
        return _word_ok(node, found, source)
    return False  # function definitions and anything unknown


def _command_ok(node: Node, found: Analysis, source: str) -> bool:
    words: list[Node] = []
    ok = True
    for part in node.parts:
        if part.kind == "word":
            ok = _word_ok(part, found, source) and ok
            words.append(part)
        elif part.kind == "redirect":
            ok = _redirect_ok(part, found, source) and ok
        else:  # assignments (LD_PRELOAD=... cmd) and anything else
            ok = False
    if not words or words[0].parts:  # no command, or one that comes from an expansion
        return False
    name = words[0].word
    args = words[1:]
    _follow_cd(name, args, found)
    check = _READERS.get(name)
    if check is None:
        return False
    if check is not _anything and any(_has_parameter(w) for w in args):
        return False  # `find . $ACTION`: a flag we cannot see
    if name in _FLAG_TAKERS and any(_unquoted_glob(w, source) for w in args):
        return False  # `find . *` could expand to a file named `-delete`
    try:
        # `<(ls a)` is a pipe (/dev/fd/N), not a file anyone named.
        files = [w for w in args if not _is_process_substitution(w)]
        named = [] if name == "cd" else path_arguments(name, [(w.word, _has_tilde(w), _has_parameter(w)) for w in files])
    except UnknownPath:
        return False
    for path in named:
        _add_path(found, path)
    if not check([w.word for w in args]):
        return False
    if name == "git":
        _note_git(args, found)
    return ok


def _follow_cd(name: str, args: list[Node], found: Analysis) -> None:
    """A `cd` moves every later relative path; where it can't be known, later relative paths ask."""
    if name in ("cd", "pushd"):
        targets = [w for w in args if not w.word.startswith("-")]
        if not targets:
            found.cwds.append(os.path.expanduser("~"))
        elif _has_parameter(targets[0]) or targets[0].word == "-":
            found.cwd_unknown = True
        else:
            try:
                [target] = path_arguments("cd", [(targets[0].word, _has_tilde(targets[0]), False)])
            except UnknownPath:
                found.cwd_unknown = True
                return
            _add_path(found, target)
            found.cwds += [os.path.join(c, target) for c in found.cwds]
    elif name in ("popd", "source", ".", "eval", "exec", "builtin"):
        found.cwd_unknown = True


def _add_path(found: Analysis, path: str) -> None:
    if os.path.isabs(path):
        found.paths.append(path)
    elif found.cwd_unknown:
        found.paths.append("/")  # relative to a folder we can't know: ask, like a read of anything
    else:
        found.paths += [os.path.normpath(os.path.join(c, path)) for c in found.cwds]


def _note_git(args: list[Node], found: Analysis) -> None:
    dirs = [c for c in found.cwds]
    i = 0
    while i < len(args) and args[i].word.startswith("-"):
        option, eq, value = args[i].word.partition("=")
        if option in _GIT_VALUE_OPTIONS and not eq and i + 1 < len(args):
            value = args[i + 1].word
        if option == "-C" and value:
            dirs = [os.path.join(c, value) for c in dirs]
        elif option in ("--git-dir", "--work-tree") and value:
            dirs += [os.path.join(c, value) for c in found.cwds]
        i += 2 if option in _GIT_VALUE_OPTIONS and not eq else 1
    found.git_dirs += [d for d in dirs if d not in found.git_dirs]
    if i < len(args) and args[i].word in _GIT_DIFFERS:
        found.git_flag_at.append(args[i].pos[1])


def _word_ok(word: Node, found: Analysis, source: str) -> bool:
    ok = True
    for part in getattr(word, "parts", []):
        if part.kind in ("commandsubstitution", "processsubstitution"):
            ok = _read_only(part.command, found, source) and ok
        elif part.kind == "parameter":
            if _HIDDEN_SUBSTITUTION.search(part.value):
                ok = False
        elif part.kind != "tilde":
            ok = False
    return ok


def _has_parameter(word: Node) -> bool:
    return any(p.kind != "tilde" for p in getattr(word, "parts", []))


def _is_process_substitution(word: Node) -> bool:
    parts = getattr(word, "parts", [])
    return len(parts) == 1 and parts[0].kind == "processsubstitution" and parts[0].pos == word.pos


def _has_tilde(word: Node) -> bool:
    return any(p.kind == "tilde" for p in getattr(word, "parts", []))


def _unquoted_glob(word: Node, source: str) -> bool:
    raw = source[word.pos[0] : word.pos[1]]
    return bool(_GLOB_CHARS & set(raw)) and raw[:1] not in ("'", '"')


def _redirect_ok(redirect: Node, found: Analysis, source: str) -> bool:
    kind = redirect.type
    target = redirect.output
    if kind in _INPUT_REDIRECTS:
        if not hasattr(target, "kind"):
            return True  # `<&3`
        if kind in ("<", "<>"):  # a file is read: a path like any other
            if _has_parameter(target):
                _word_ok(target, found, source)
                return False
            try:
                [path] = path_arguments("cat", [(target.word, _has_tilde(target), False)])
            except UnknownPath:
                return False
            _add_path(found, path)
        return _word_ok(target, found, source)
    if kind in _OUTPUT_REDIRECTS:
        if isinstance(target, int):  # 2>&1, >&2
            return True
        return target.word in _HARMLESS_SINKS and not target.parts
    return False


# What the Bash tool's description tells the model runs without asking.
READER_NAMES: tuple[str, ...] = tuple(sorted(_READERS))
GIT_READER_NAMES: tuple[str, ...] = (*sorted(_GIT_READERS), "branch (listing)")


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
