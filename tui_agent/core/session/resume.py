"""Resume, continue, fork: the one place every front end (the app, -p, the SDK protocol) opens a session.

- new: a fresh session (optionally with a given id);
- `continue_`: the most recently modified session of this directory, same id, same file;
- `resume`: a session by id or name from any directory, same id, same file;
- `fork`: with either, a new id and file holding a copy of the history (the original is untouched);
- a Claude Code session (found by id under ~/.claude/projects) always continues in a new session of ours:
  its file is only read.
The history comes back valid (see reader.py); what was repaired is said in `notes`.

One writer per session (lock.py): the session opened is locked until `Session.close()`. A session to carry
on that another live process is writing is busy; `busy` says what to do then: "fork" (headless front ends)
carries on in a new session holding its history as of its last completed turn, "raise" (the app, which
asks) raises SessionBusy.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from .index import Source, find_session, latest_session, not_an_id_note, unreadable_note
from .chain import is_rewind
from .lines import RUN_LINE
from .lock import SessionBusy, holder_words, is_free, take
from .reader import Conversation, load, read_lines, rebuild
from .writer import Session

UNSAFE_TO_RESTORE = ("bypassPermissions", "plan")
BusyPolicy = Literal["fork", "raise"]
HISTORY_WRITTEN = "history_written"
"""Our `system` fact after a history copied into a new session (a fork, an import): a completed state,
as a run's end is, for a busy fork of that session (see completed_conversation)."""


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
    busy: BusyPolicy = "fork",
) -> OpenedSession:
    """Open the session the flags ask for, locked for this process. Raises NoConversationFound, ValueError
    for bad flags, or SessionBusy (with busy="raise") when another live process writes the session."""
    if session_id is not None and not _valid_uuid(session_id):
        raise ValueError(f"Invalid session ID: {session_id} (it must be a UUID)")
    if session_id is not None and (resume or continue_) and not fork:
        raise ValueError("--session-id can only be used with --continue or --resume if --fork-session is also specified.")
    if not resume and not continue_:
        session = Session(cwd, session_id, root)
        if session.transcript_path.exists():
            raise ValueError(f"Session ID {session_id} is already in use.")
        try:
            _lock(session)
        except SessionBusy:  # another process started with this --session-id and has not written yet
            raise ValueError(f"Session ID {session_id} is already in use.") from None
        return _named(OpenedSession(session), name)

    if continue_ and not resume:
        path = latest_session(cwd)
        if path is None:
            raise NoConversationFound("No conversation found to continue")
        source: Source = "tui-agent"
    else:
        found = find_session(str(resume), cwd)
        if found is None:
            raise NoConversationFound(f"No conversation found with session ID: {resume}" + unreadable_note(str(resume), cwd)
                                      + not_an_id_note(str(resume), cwd))
        path, source = found
    busy_source = False
    if fork or source == "claude-code":  # only read: the new session is the one locked
        # A fork of one of ours that another process is writing takes it as of its last completed turn.
        busy_source = source == "tui-agent" and not is_free(path)
        conv = completed_conversation(path) if busy_source else load(path)
        opened = OpenedSession(_lock(Session(cwd, session_id, root)), conv, source, conv.session_id)
    else:
        # Locked before reading: no line can be added to it by another process after we read it.
        try:
            lock = take(path, path.stem)
        except SessionBusy as exc:
            if busy == "raise":
                raise
            return _named(_busy_fork(cwd, path, exc, root), name)
        try:
            conv = load(path)
        except BaseException:
            lock.release()
            raise
        session = Session(cwd, conv.session_id, path.parent)
        session.lock = lock
        opened = OpenedSession(session, conv, source, conv.session_id)
    if source == "claude-code":
        opened.notes.append(("info", f"Continuing Claude Code session {conv.session_id} as tui-agent session {opened.session.id} (Claude Code's file is only read)."))
    elif fork:
        opened.notes.append(("info", f"Forked session {conv.session_id} into {opened.session.id}; the original is untouched."
                                     + (" It is in use by another process: the fork holds it as of its last completed turn." if busy_source else "")))
    else:
        opened.notes.append(("info", f"Resumed session {conv.session_id} ({len(conv.history)} messages)."))
    opened.notes.extend(("warning", f"Repaired: {r}") for r in conv.repairs)
    _restore_mode(opened, conv)
    _write_start(opened, conv)
    return _named(opened, name)


def _lock(session: Session) -> Session:
    session.lock = take(session.transcript_path, session.id)
    return session


def _busy_fork(cwd: Path, path: Path, busy: SessionBusy, root: Path | None) -> OpenedSession:
    """Another process is writing the session: carry on in a new one, from its last completed turn (never
    the prompt that process is answering now, nor its tools' results)."""
    conv = completed_conversation(path)
    opened = OpenedSession(_lock(Session(cwd, None, root)), conv, "tui-agent", conv.session_id)
    opened.notes.append(("warning", f"Session {busy.session_id} is in use by {holder_words(busy.pid)}; continuing in a new "
                                    f"session {opened.session.id} forked from its last completed turn."))
    opened.notes.extend(("warning", f"Repaired: {r}") for r in conv.repairs)
    _restore_mode(opened, conv)
    _write_start(opened, conv)
    return opened


def completed_conversation(path: Path) -> Conversation:
    """The session's conversation as of its last completed turn: what a resume would have found when its
    writer's last run ended (a `tui-agent-run` line) or its copied history was written. What follows belongs
    to a turn under way: the prompt being answered, blocks written ahead of a response still streaming,
    results of tools that ran; a torn last line is the writer's, mid-write."""
    lines, _torn = read_lines(path)
    conv = rebuild(lines[: _completed_end(lines)])
    conv.session_id = conv.session_id or path.stem
    return conv


def _completed_end(lines: list[dict[str, Any]]) -> int:
    end = 0
    for i in range(len(lines) - 1, -1, -1):
        line = lines[i]
        if not line.get("isSidechain") and (line.get("type") == RUN_LINE or _is_history_written(line) or is_rewind(line)):
            end = i + 1
            break
    # A message starting a new chain after it: a /clear, so the conversation that ended is not current.
    if any(l.get("type") in ("user", "assistant") and not l.get("isSidechain") and l.get("parentUuid") is None for l in lines[end:]):
        return 0
    return end


def _is_history_written(line: dict[str, Any]) -> bool:
    data = line.get("data")
    return line.get("type") == "system" and isinstance(data, dict) and data.get("subtype") == HISTORY_WRITTEN


def _restore_mode(opened: OpenedSession, conv: Conversation) -> None:
    mode = conv.permission_mode
    if mode in UNSAFE_TO_RESTORE:
        opened.notes.append(("warning", f"The session was in {mode} mode; it resumes in default mode (pass --permission-mode {mode} to use it again)."))
    elif mode:
        opened.permission_mode = mode


def _write_start(opened: OpenedSession, conv: Conversation) -> None:
    """A copy gets the whole history; the same file gets only what the repair added. Either ends in a
    completed state, said by a HISTORY_WRITTEN fact."""
    session = opened.session
    if session.id != conv.session_id or opened.source == "claude-code":
        session.write_history(conv.history, conv.metas, conv.tool_meta)
        if conv.history:
            session.append("system", data={"subtype": HISTORY_WRITTEN, "from": conv.session_id})
        return
    session.last_uuid = conv.leaf_uuid
    for block_list in conv.synthetic:
        session.append("user", message={"role": "user", "content": block_list})
    if conv.synthetic:
        session.append("system", data={"subtype": HISTORY_WRITTEN, "from": conv.session_id})


def _named(opened: OpenedSession, name: str | None) -> OpenedSession:
    if name:
        opened.session.set_name(name)
    return opened
