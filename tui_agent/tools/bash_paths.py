"""The files a read-only shell line reads, as the kernel will find them.

Paths are resolved physically: each component in turn, a symbolic link replaced by its target before the
next `..` is applied (`os.path.realpath`), never normalised first — `docs/keys/../x` with `docs/keys ->
~/.ssh` is `~/x`, not `docs/x`. A glob stands for its fixed prefix and every file it matches now, at every
level (a folder matched halfway down may be a link that leads out). A reader that walks a tree following
links (`grep -R`, `rg -L`, `find -L`, `diff -r`) reads what every link under it points to: a bounded walk
lists those targets, so one that leads out is decided like a Read of it.
"""

from __future__ import annotations

import glob
import os
import re
from pathlib import Path

_GLOB_MAGIC = re.compile(r"[*?[]")
_MAX_GLOB_MATCHES = 2000
# Entries a link walk looks at before it gives up and asks (as a read of "/": anything).
MAX_WALK_ENTRIES = 20_000
EVERYTHING = Path("/")


def resolve_named_paths(paths: list[str], cwd: Path) -> list[Path]:
    """Absolute, symlink-resolved paths for the permission check; a glob stands for its fixed prefix and
    every file it matches now (a symlink among them that leads outside counts)."""
    out: list[Path] = []
    for raw in paths:
        full = os.path.join(cwd, raw)
        if not _GLOB_MAGIC.search(full):
            out.append(Path(os.path.realpath(full)))
            continue
        parts = Path(full).parts
        fixed = next(i for i, part in enumerate(parts) if _GLOB_MAGIC.search(part))
        out.append(Path(os.path.realpath(os.path.join(*parts[:fixed]))))
        # Every level from the first glob on: a folder matched halfway down may be a symlink that leads out.
        for depth in range(fixed + 1, len(parts) + 1):
            for n, match in enumerate(glob.iglob(os.path.join(*parts[:depth]))):
                if n == _MAX_GLOB_MATCHES:
                    out.append(EVERYTHING)  # too many to look at: ask
                    break
                out.append(Path(os.path.realpath(match)))
    return list(dict.fromkeys(out))


def link_targets(roots: list[str], cwd: Path, limit: int = MAX_WALK_ENTRIES) -> list[Path]:
    """Where every symbolic link under `roots` leads (resolved), walking through links to folders as a reader
    that follows them does; EVERYTHING when the walk passes `limit` entries."""
    targets: list[Path] = []
    seen: set[str] = set()
    pending = [os.path.realpath(os.path.join(cwd, r)) for r in roots]
    count = 0
    while pending:
        folder = pending.pop()
        if folder in seen or not os.path.isdir(folder):
            continue
        seen.add(folder)
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue  # unreadable: the reader cannot read it either
        for entry in entries:
            count += 1
            if count > limit:
                return [*targets, EVERYTHING]
            if entry.is_symlink():
                target = os.path.realpath(entry.path)
                targets.append(Path(target))
                if os.path.isdir(target):
                    pending.append(target)
            elif entry.is_dir(follow_symlinks=False):
                pending.append(entry.path)
    return list(dict.fromkeys(targets))


def option_like_matches(globs: list[tuple[str, str]], cwd: Path) -> list[tuple[str, str]]:
    """(pattern, match) for each file a glob in an option's place matches now whose name starts with `-`
    (the command would take it as an option). `globs` are (folder relative to `cwd`, pattern)."""
    found: list[tuple[str, str]] = []
    for folder, pattern in globs:
        for n, match in enumerate(glob.iglob(pattern, root_dir=os.path.join(cwd, folder))):
            if n == _MAX_GLOB_MATCHES:
                break
            if match.startswith("-"):
                found.append((pattern, match))
    return found
