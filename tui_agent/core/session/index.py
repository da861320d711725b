"""Finding sessions: ours and Claude Code's, for this directory or all, newest first, by id or by name."""

from __future__ import annotations

import os
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Literal

from .paths import claude_projects_root, project_slug, sessions_root
from .reader import Conversation, content_blocks, load

Source = Literal["tui-agent", "claude-code"]


@dataclass(slots=True)
class SessionInfo:
    """One row of the picker."""

    session_id: str
    path: Path
    source: Source
    modified: float
    """The file's modification time (epoch seconds)."""
    size: int
    """The file's size in bytes."""
    name: str = ""
    first_prompt: str = ""
    branch: str = ""
    message_count: int = 0
    ended_mid_turn: bool = False
    cwd: str = ""

    @property
    def title(self) -> str:
        return self.name or self.first_prompt or "(no prompt)"


def _files(root: Path, cwd: Path | None) -> Iterator[Path]:
    folders = [root / project_slug(cwd.resolve())] if cwd is not None else (p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
    for folder in folders:
        if folder.is_dir():
            yield from (p for p in folder.glob("*.jsonl") if p.is_file())


_described: dict[tuple[Path, int, int], SessionInfo] = {}
"""Files already described, by (path, mtime, size): the picker opened again reads only what changed."""


def describe(path: Path, source: Source, conv: Conversation | None = None) -> SessionInfo:
    """Read a session file enough to list it."""
    stat = path.stat()
    key = (path, stat.st_mtime_ns, stat.st_size)
    if conv is None and key in _described:
        return _described[key]
    conv = conv or load(path)
    first = next((m for m, hidden in zip(conv.history, conv.hidden) if m["role"] == "user" and not hidden and _text(m)), None)
    info = SessionInfo(conv.session_id or path.stem, path, source, stat.st_mtime, stat.st_size, name=conv.name,
                       first_prompt=_text(first).strip().splitlines()[0][:200] if first else "", branch=conv.branch,
                       message_count=len(conv.history), ended_mid_turn=conv.ended_mid_turn, cwd=conv.cwd)
    _described[key] = info
    return info


def _text(message: dict | None) -> str:
    if not message:
        return ""
    return " ".join(b.get("text", "") for b in content_blocks(message["content"]) if b.get("type") == "text" and not b.get("text", "").startswith(("<system-reminder>", "[Request interrupted")))


def list_sessions(cwd: Path | None, *, include_claude: bool = True) -> list[SessionInfo]:
    """Sessions of `cwd` (all projects when None), ours and Claude Code's, newest first. A file that
    cannot be read is left out (never hides the others)."""
    found: list[SessionInfo] = []
    sources: list[tuple[Path, Source]] = [(sessions_root(), "tui-agent")]
    if include_claude:
        sources.append((claude_projects_root(), "claude-code"))
    for root, source in sources:
        for path in _files(root, cwd):
            try:
                info = describe(path, source)
            except OSError:
                continue
            if info.message_count:
                found.append(info)
    found.sort(key=lambda i: i.modified, reverse=True)
    return found


def is_session_id(value: str) -> bool:
    """A UUID in its canonical form (what session files are named by)."""
    try:
        return str(uuid.UUID(value)) == value.lower()
    except ValueError:
        return False


def is_safe_reference(value: str) -> bool:
    """What `-r` may name: a session id or a name, never a path (`/`, `\\`, `..`) or a pattern (`*?[]`)."""
    return bool(value) and not any(part in value for part in ("/", "\\", os.sep, "..", "*", "?", "[", "]", "\0"))


def find_session(target: str, cwd: Path) -> tuple[Path, Source] | None:
    """A session by id (ours first, then Claude Code's; this directory first, then any) or by name.
    Only an id names a file, and only inside the two sessions folders: a path or a pattern finds nothing."""
    if not is_safe_reference(target):
        return None
    for root, source in ((sessions_root(), "tui-agent"), (claude_projects_root(), "claude-code")):
        if not is_session_id(target):
            break
        here = root / project_slug(cwd.resolve()) / f"{target}.jsonl"
        if here.is_file():
            return here, source  # type: ignore[return-value]
        if root.is_dir():
            for path in root.glob(f"*/{target}.jsonl"):
                return path, source  # type: ignore[return-value]
    for info in list_sessions(cwd, include_claude=False):
        if info.name and info.name == target:
            return info.path, info.source
    return None


def latest_session(cwd: Path) -> Path | None:
    """The most recently modified of our sessions of `cwd` (what --continue continues)."""
    files = [p for p in _files(sessions_root(), cwd) if p.stat().st_size > 0]
    return max(files, key=lambda p: p.stat().st_mtime, default=None)
