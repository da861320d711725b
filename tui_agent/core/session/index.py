"""Finding sessions: ours and Claude Code's, for this directory or all, newest first, by id or by name.

One file never hides the others: a file that cannot be read, or holds no conversation that could be read,
is a skipped row with its path and the reason (the picker shows it, a failed `-r` names it).
"""

from __future__ import annotations

import os
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Literal

from .paths import claude_projects_root, project_slug, sessions_root
from .reader import COMPACT_SUMMARY_PREFIX, Conversation, content_blocks, load, read_lines

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
    unreadable: int = 0
    """Lines of the file that could not be read."""

    @property
    def title(self) -> str:
        return self.name or self.first_prompt or "(no prompt)"

    @classmethod
    def of(cls, conv: Conversation, path: Path, source: Source, modified: float, size: int) -> SessionInfo:
        """The row for a conversation read from `path`."""
        first = next((m for m, hidden in zip(conv.history, conv.hidden) if m["role"] == "user" and not hidden and _text(m)), None)
        # A compacted session's history starts at its summary: its title is still its very first prompt.
        words = (_first_prompt_in_file(path) if conv.compacted else "") or (_text(first) if first else "")
        return cls(conv.session_id or path.stem, path, source, modified, size, name=conv.name,
                   first_prompt=words.strip().splitlines()[0][:200] if words.strip() else "", branch=conv.branch,
                   message_count=len(conv.history), ended_mid_turn=conv.ended_mid_turn, cwd=conv.cwd, unreadable=conv.unreadable)


@dataclass(slots=True)
class Skipped:
    """A session file left out of the list, and why."""

    path: Path
    source: Source
    reason: str


@dataclass(slots=True)
class Listing:
    sessions: list[SessionInfo]
    """Newest first."""
    skipped: list[Skipped]


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
    info = SessionInfo.of(conv or load(path), path, source, stat.st_mtime, stat.st_size)
    _described[key] = info
    return info


def _first_prompt_in_file(path: Path) -> str:
    """The user's first prompt in the file, in file order (before any compaction), never a summary; lines
    of any shape (a damaged file) are passed over."""
    try:
        lines, _ = read_lines(path)
    except OSError:
        return ""
    for line in lines:
        if line.get("type") != "user" or line.get("isMeta") or line.get("isCompactSummary") or line.get("isSidechain"):
            continue
        try:
            words = _text(line["message"])
        except (KeyError, TypeError, AttributeError):
            continue
        if words.strip():
            return words
    return ""


def _text(message: dict | None) -> str:
    """A prompt's words (never a reminder, an interrupt note or a compaction's summary)."""
    if not message:
        return ""
    return " ".join(b["text"] for b in content_blocks(message["content"]) if b.get("type") == "text"
                    and not b["text"].startswith(("<system-reminder>", "[Request interrupted", COMPACT_SUMMARY_PREFIX)))


def examine(path: Path, source: Source) -> SessionInfo | Skipped | None:
    """The file's row, why it is skipped, or None when it holds nothing to list (no messages yet, or gone)."""
    try:
        info = describe(path, source)
    except FileNotFoundError:
        return None  # removed while we looked
    except Exception as exc:  # noqa: BLE001 - whatever is wrong with one file (even a bug of ours) must not hide the others
        return Skipped(path, source, f"could not be read: {str(exc) or type(exc).__name__}")
    if info.message_count:
        return info
    if info.unreadable:
        s = "" if info.unreadable == 1 else "s"
        return Skipped(path, source, f"no conversation could be read ({info.unreadable} unreadable line{s})")
    return None


def scan_sessions(cwd: Path | None, *, include_claude: bool = True) -> Listing:
    """Sessions of `cwd` (all projects when None), ours and Claude Code's, newest first, and the files
    skipped (see the module's docstring)."""
    listing = Listing([], [])
    sources: list[tuple[Path, Source]] = [(sessions_root(), "tui-agent")]
    if include_claude:
        sources.append((claude_projects_root(), "claude-code"))
    for root, source in sources:
        for path in _files(root, cwd):
            found = examine(path, source)
            if isinstance(found, SessionInfo):
                listing.sessions.append(found)
            elif found is not None:
                listing.skipped.append(found)
    listing.sessions.sort(key=lambda i: i.modified, reverse=True)
    return listing


def list_sessions(cwd: Path | None, *, include_claude: bool = True) -> list[SessionInfo]:
    """The sessions scan_sessions finds (without the skipped files)."""
    return scan_sessions(cwd, include_claude=include_claude).sessions


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
    for path, source in _named_by_id(target, cwd):
        if not isinstance(examine(path, source), Skipped):
            return path, source
    for info in list_sessions(cwd, include_claude=False):
        if info.name and info.name == target:
            return info.path, info.source
    return None


def _named_by_id(target: str, cwd: Path) -> Iterator[tuple[Path, Source]]:
    """The files named by a session id: ours first, then Claude Code's; this directory first, then any."""
    if not is_session_id(target):
        return
    roots: tuple[tuple[Path, Source], ...] = ((sessions_root(), "tui-agent"), (claude_projects_root(), "claude-code"))
    for root, source in roots:
        here = root / project_slug(cwd.resolve()) / f"{target}.jsonl"
        if here.is_file():
            yield here, source
        if root.is_dir():
            yield from ((p, source) for p in root.glob(f"*/{target}.jsonl") if p != here and p.is_file())


def unreadable_note(target: str, cwd: Path) -> str:
    """For a failed `-r`: the files of this directory (or named by `target`) that were skipped, and why."""
    skipped = {s.path: s for s in scan_sessions(cwd).skipped}
    for path, source in _named_by_id(target, cwd):
        found = examine(path, source)
        if isinstance(found, Skipped):
            skipped[path] = found
    if not skipped:
        return ""
    return "\nSkipped (could not be read): " + "; ".join(f"{s.path}: {s.reason}" for s in skipped.values())


def latest_session(cwd: Path) -> Path | None:
    """The most recently modified of our sessions of `cwd` (what --continue continues)."""
    files = [p for p in _files(sessions_root(), cwd) if p.stat().st_size > 0]
    return max(files, key=lambda p: p.stat().st_mtime, default=None)


def not_an_id_note(target: str, cwd: Path) -> str:
    """For a failed `-r` whose value is not a session id: it was taken as a name, and names belong to a
    folder. Where a session of another folder has that name, its id resumes it from anywhere."""
    if is_session_id(target) or not is_safe_reference(target):
        return ""
    elsewhere = next((i for i in list_sessions(None, include_claude=False) if i.name == target), None)
    if elsewhere is None:
        return (f'\n"{target}" is not a session ID, and no session in this folder has that name '
                "(tui-agent --resume without a value lists them).")
    return (f'\n"{target}" is not a session ID but a session name, and names belong to a folder: the session named '
            f"so is in {elsewhere.cwd or elsewhere.path.parent}. Resume it from anywhere with: "
            f"tui-agent --resume {elsewhere.session_id}")
