"""Resume, continue, fork: the one place every front end (the app, -p, the SDK protocol) opens a session.

- new: a fresh session (optionally with a given id);
- `continue_`: the most recently modified session of this directory, same id, same file;
- `resume`: a session by id or name from any directory, same id, same file;
- `fork`: with either, a new id and file holding a copy of the history (the original is untouched);
- a Claude Code session (found by id under ~/.claude/projects) always continues in a new session of ours:
  its file is only read.
The history comes back valid (see reader.py); what was repaired is said in `notes`.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from pathlib import Path

from .index import Source, find_session, latest_session
from .reader import Conversation, load
from .writer import Session

UNSAFE_TO_RESTORE = ("bypassPermissions", "plan")


class NoConversationFound(Exception):
    """Nothing to resume or continue; the message is Claude Code's."""


@dataclass(slots=True)
class OpenedSession:
    session: Session
    conversation: Conversation | None = None
    """The history resumed (None for a new session)."""
    source: Source | None = None
    resumed_from: str | None = None
    """The id of the session whose history this one carries on."""
    permission_mode: str | None = None
    """The mode to restore (never bypassPermissions or plan: those are said in `notes` instead)."""
    notes: list[tuple[str, str]] = field(default_factory=list)
    """(level, text) for the user: what was resumed, repaired, or not restored."""

    @property
    def history(self) -> list[dict]:
        return self.conversation.history if self.conversation else []


def _valid_uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


def open_session(
    cwd: Path,
    *,
    resume: str | None = None,
    continue_: bool = False,
    fork: bool = False,
    session_id: str | None = None,
    name: str | None = None,
    root: Path | None = None,
) -> OpenedSession:
    """Open the session the flags ask for. Raises NoConversationFound, or ValueError for bad flags."""
    if session_id is not None and not _valid_uuid(session_id):
        raise ValueError(f"Invalid session ID: {session_id} (it must be a UUID)")
    if session_id is not None and (resume or continue_) and not fork:
        raise ValueError("--session-id can only be used with --continue or --resume if --fork-session is also specified.")
    if not resume and not continue_:
        session = Session(cwd, session_id, root)
        if session.transcript_path.exists():
            raise ValueError(f"Session ID {session_id} is already in use.")
        return _named(OpenedSession(session), name)

    if continue_ and not resume:
        path = latest_session(cwd)
        if path is None:
            raise NoConversationFound("No conversation found to continue")
        source: Source = "tui-agent"
    else:
        found = find_session(str(resume), cwd)
        if found is None:
            raise NoConversationFound(f"No conversation found with session ID: {resume}")
        path, source = found
    conv = load(path)
    opened = OpenedSession(Session(cwd, session_id, root) if fork or source == "claude-code" else Session(cwd, conv.session_id, path.parent),
                           conv, source, conv.session_id)
    if source == "claude-code":
        opened.notes.append(("info", f"Continuing Claude Code session {conv.session_id} as tui-agent session {opened.session.id} (Claude Code's file is only read)."))
    elif fork:
        opened.notes.append(("info", f"Forked session {conv.session_id} into {opened.session.id}; the original is untouched."))
    else:
        opened.notes.append(("info", f"Resumed session {conv.session_id} ({len(conv.history)} messages)."))
    opened.notes.extend(("warning", f"Repaired: {r}") for r in conv.repairs)
    _restore_mode(opened, conv)
    _write_start(opened, conv)
    return _named(opened, name)


def _restore_mode(opened: OpenedSession, conv: Conversation) -> None:
    mode = conv.permission_mode
    if mode in UNSAFE_TO_RESTORE:
        opened.notes.append(("warning", f"The session was in {mode} mode; it resumes in default mode (pass --permission-mode {mode} to use it again)."))
    elif mode:
        opened.permission_mode = mode


def _write_start(opened: OpenedSession, conv: Conversation) -> None:
    """A copy gets the whole history; the same file gets only what the repair added."""
    session = opened.session
    if session.id != conv.session_id or opened.source == "claude-code":
        session.write_history(conv.history, conv.metas)
        return
    session.last_uuid = conv.leaf_uuid
    for block_list in conv.synthetic:
        session.append("user", message={"role": "user", "content": block_list})


def _named(opened: OpenedSession, name: str | None) -> OpenedSession:
    if name:
        opened.session.set_name(name)
    return opened
