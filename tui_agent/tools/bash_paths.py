"""Which arguments of a read-only command name files: the paths a permission check must see.

A reader such as `cat ~/.ssh/id_rsa` writes nothing, yet it must not read outside the working folders
without a question. So every argument of a file-reading command is taken as a path (a relative word that
is not a file resolves inside the working folder and costs nothing), except the values of options known to
take something else (`head -n 5`, `cut -d /`) and the pattern or filter that grep, rg and jq take first.
Options with an attached value (`--file=/etc/x`, `-f/etc/x`) are looked into too. An argument whose value is
only known when the shell runs (`$HOME/x`, `$(...)`, `{a,b}`, `~+`) makes the command not read-only.
"""

from __future__ import annotations

import glob
import os
import re
from pathlib import Path

# Readers that touch no file named by an argument (they print, compute or read stdin only).
NO_PATH_READERS = frozenset({
    "echo", "printf", "pwd", "true", "false", "sleep", "whoami", "id", "uname", "hostname", "seq", "printenv",
    "env", "which", "type", "basename", "dirname", "read", "tr", "test", "[",
})

# Options whose separate value is not a path, per command.
_NON_PATH_VALUES: dict[str, frozenset[str]] = {
    "head": frozenset({"-n", "-c", "--lines", "--bytes"}),
    "tail": frozenset({"-n", "-c", "--lines", "--bytes", "-s", "--sleep-interval", "--pid"}),
    "cut": frozenset({"-d", "-f", "-b", "-c", "--delimiter", "--fields", "--bytes", "--characters", "--output-delimiter"}),
    "sort": frozenset({"-k", "-t", "-S", "--key", "--field-separator", "--buffer-size", "--parallel"}),
    "uniq": frozenset({"-f", "-s", "-w", "--skip-fields", "--skip-chars", "--check-chars"}),
    "ls": frozenset({"-I", "--ignore", "-w", "--width", "--hide", "-T", "--tabsize", "--block-size", "--format", "--sort", "--time-style"}),
    "du": frozenset({"-d", "--max-depth", "-B", "--block-size", "-t", "--threshold", "--exclude"}),
    "df": frozenset({"-B", "--block-size", "-t", "--type", "-x", "--exclude-type", "--output"}),
    "nl": frozenset({"-b", "-s", "-v", "-i", "-w", "-n"}),
    "column": frozenset({"-s", "-c", "-o", "-t", "-N", "-R"}),
    "wc": frozenset(),
    "tree": frozenset({"-L", "-P", "-I", "--filelimit", "--charset", "--sort", "-H", "-T", "--timefmt"}),
    "date": frozenset({"-d", "--date", "-I", "--iso-8601", "--rfc-3339"}),
    "find": frozenset({
        "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-type", "-xtype",
        "-maxdepth", "-mindepth", "-size", "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin", "-perm",
        "-user", "-group", "-uid", "-gid", "-links", "-inum", "-lname", "-ilname", "-printf", "-print0",
        "-regextype", "-used", "-fstype",
    }),
    "grep": frozenset({"-e", "--regexp", "-m", "--max-count", "-A", "-B", "-C", "--context", "--after-context",
                       "--before-context", "-d", "-D", "--label", "--include", "--exclude", "--exclude-dir", "--color"}),
    "rg": frozenset({"-e", "--regexp", "-g", "--glob", "--iglob", "-t", "--type", "-T", "--type-not", "-m",
                     "--max-count", "-A", "-B", "-C", "--context", "-M", "--max-columns", "-j", "--threads", "-r",
                     "--replace", "-E", "--encoding", "-d", "--max-depth", "--sort", "--sortr", "--type-add",
                     "--colors", "--color", "--path-separator", "--max-filesize", "--engine"}),
    "jq": frozenset({"--arg", "--argjson", "--indent"}),
    "git": frozenset({"-n", "--max-count", "--format", "--pretty", "--author", "--grep", "--since", "--until",
                      "-U", "--unified", "-S", "-G", "--abbrev"}),
}
for _grep in ("egrep", "fgrep"):
    _NON_PATH_VALUES[_grep] = _NON_PATH_VALUES["grep"]

# Commands whose first positional argument is a pattern or a program, unless an option gave it.
_PATTERN_FIRST = {"grep": ("-e", "--regexp", "-f", "--file"), "egrep": ("-e", "--regexp", "-f", "--file"),
                  "fgrep": ("-e", "--regexp", "-f", "--file"), "rg": ("-e", "--regexp", "-f", "--file"),
                  "jq": ("-f", "--from-file")}

_BRACE_EXPANSION = re.compile(r"\{[^{}]*(,|\.\.)[^{}]*\}")
_PATH_LIKE = re.compile(r"^[~./]|/")


class UnknownPath(Exception):
    """An argument whose path is only known when the shell runs it."""


def path_arguments(name: str, args: list[tuple[str, bool, bool]]) -> list[str]:
    """The paths a reader names. `args` are (text, expands a tilde, has another expansion) per word.
    Raises UnknownPath when one of them can't be known before the command runs."""
    if name in NO_PATH_READERS:
        return []
    non_path_values = _NON_PATH_VALUES.get(name, frozenset())
    pattern_given = any(a == o or a.startswith(o + "=") or (len(o) == 2 and a.startswith(o) and a != o)
                        for a, _, _ in args for o in _PATTERN_FIRST.get(name, ()))
    skip_pattern = name in _PATTERN_FIRST and not pattern_given
    paths: list[str] = []
    i = 0
    while i < len(args):
        text, tilde, expanded = args[i]
        i += 1
        if text.startswith("-") and text != "-":
            if text in non_path_values or (name == "jq" and text in ("--arg", "--argjson")):
                i += 2 if text in ("--arg", "--argjson") else 1  # the value(s) are not paths
                continue
            value = _attached_value(text)
            if value is not None:
                if expanded:
                    raise UnknownPath(text)
                paths.append(_literal(value, tilde=False))
            continue
        if expanded:
            raise UnknownPath(text)
        if skip_pattern:
            skip_pattern = False
            continue
        if text != "-":
            paths.append(_literal(text, tilde))
    return paths


def _attached_value(option: str) -> str | None:
    """The value glued to an option, when it looks like a path: `--file=/x` -> /x, `-f/x` -> /x."""
    if option.startswith("--"):
        _, eq, value = option.partition("=")
        return value if eq and _PATH_LIKE.search(value) else None
    value = option[2:]
    return value if value and _PATH_LIKE.search(value) else None


def _literal(text: str, tilde: bool) -> str:
    if _BRACE_EXPANSION.search(text):
        raise UnknownPath(text)  # `{/etc/passwd,x}` names files the text does not show
    if tilde:
        expanded = os.path.expanduser(text)
        if expanded.startswith("~"):
            raise UnknownPath(text)  # `~+`, `~-`, `~nobody-known`: bash decides
        return expanded
    return text


_GLOB_MAGIC = re.compile(r"[*?[]")
_MAX_GLOB_MATCHES = 2000


def resolve_named_paths(paths: list[str], cwd: Path) -> list[Path]:
    """Absolute, symlink-resolved paths for the permission check; a glob stands for its fixed prefix and
    every file it matches now (a symlink among them that leads outside counts)."""
    out: list[Path] = []
    for raw in paths:
        full = os.path.join(cwd, raw)
        if not _GLOB_MAGIC.search(full):
            out.append(Path(full).resolve())
            continue
        parts = Path(full).parts
        fixed = next(i for i, part in enumerate(parts) if _GLOB_MAGIC.search(part))
        out.append(Path(*parts[:fixed]).resolve())
        # Every level from the first glob on: a folder matched halfway down may be a symlink that leads out.
        for depth in range(fixed + 1, len(parts) + 1):
            for n, match in enumerate(glob.iglob(os.path.join(*parts[:depth]))):
                if n == _MAX_GLOB_MATCHES:
                    out.append(Path("/"))  # too many to look at: ask
                    break
                out.append(Path(match).resolve())
    return list(dict.fromkeys(out))
