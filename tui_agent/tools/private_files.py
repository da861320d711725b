"""Files the agent writes for itself hold the conversation (transcripts, prompt history, tool output): only
their owner may read them, as Claude Code writes its transcripts and history 0600.

Files are created 0600 and folders 0700 whatever the umask (a chmod after creating, since the umask can
only narrow a mode). A file of ours that already exists is narrowed too when opened: it is about to get
more of the conversation. A folder that already exists is the user's business and is left as it is,
except the agent's own per-session folders (`owned_from`), which hold nothing but what it wrote.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO, Any

FILE_MODE = 0o600
DIR_MODE = 0o700

_FLAGS = {
    "a": os.O_WRONLY | os.O_CREAT | os.O_APPEND,
    "w": os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
}


def private_dirs(folder: Path, owned_from: Path | None = None) -> None:
    """Make `folder` and its missing parents, each 0700. `owned_from`: an ancestor of `folder` (or itself);
    it and every folder below it down to `folder` are the agent's own, made 0700 even if they exist."""
    missing: list[Path] = []
    at = folder
    while not at.is_dir() and at != at.parent:
        missing.append(at)
        at = at.parent
    for path in reversed(missing):
        try:
            os.mkdir(path, DIR_MODE)
        except FileExistsError:
            continue  # made meanwhile by another process: its mode is not ours to decide
        os.chmod(path, DIR_MODE)
    if owned_from is not None:
        owned = [p for p in (folder, *folder.parents) if p == owned_from or p.is_relative_to(owned_from)]
        for path in owned:
            _narrow(path, DIR_MODE)


def open_private(path: Path, mode: str = "a", *, encoding: str | None = None, owned_from: Path | None = None) -> IO[Any]:
    """Open `path` for writing ("a" or "w", "b" for bytes) as a 0600 file, its folder made by `private_dirs`."""
    private_dirs(path.parent, owned_from)
    fd = os.open(path, _FLAGS[mode.replace("b", "")], FILE_MODE)
    try:
        _narrow(fd, FILE_MODE)
        return os.fdopen(fd, mode, encoding=None if "b" in mode else encoding or "utf-8")
    except BaseException:
        os.close(fd)
        raise


def write_private(path: Path, data: str | bytes, *, owned_from: Path | None = None) -> None:
    """Write `data` as the whole of `path`, a 0600 file."""
    with open_private(path, "wb" if isinstance(data, bytes) else "w", owned_from=owned_from) as f:
        f.write(data)


def _narrow(target: int | Path, mode: int) -> None:
    try:
        os.chmod(target, mode)
    except PermissionError:
        pass  # not ours (another user's, root's): we could write it, but it was never ours to narrow
