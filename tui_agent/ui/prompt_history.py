"""Prompt history: every prompt sent in a project, across sessions, newest last.

Kept in the user data dir (`$XDG_DATA_HOME/tui-agent/history.jsonl`) in the line shape of Claude Code's
`~/.claude/history.jsonl` (`display`, `pastedContents`, `timestamp` in ms, `project`, `sessionId`; a `!`
shell command is stored as `!CMD`). This project's entries in Claude Code's own file are offered too; that
file is only ever read.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..core.session import data_home
from ..tools.private_files import open_private

MAX_ENTRIES = 1000


class HistoryEntry(BaseModel):
    """One line of history.jsonl (Claude Code's fields; unknown ones are kept)."""

    model_config = ConfigDict(extra="allow")

    display: str
    """The prompt as typed (`!CMD` for a shell-mode command)."""
    pastedContents: dict[str, Any] = Field(default_factory=dict)
    """Pasted blocks referenced from `display` (Claude Code's; empty here)."""
    timestamp: int = Field(default_factory=lambda: int(time.time() * 1000))
    """When it was sent, in milliseconds since the epoch."""
    project: str = ""
    """The working folder it was sent in."""
    sessionId: str | None = None
    """The session it was sent in."""


def history_path() -> Path:
    return data_home() / "tui-agent" / "history.jsonl"


def claude_history_path() -> Path:
    base = os.environ.get("CLAUDE_CONFIG_DIR")
    return (Path(base) if base else Path.home() / ".claude") / "history.jsonl"


def _read(path: Path, project: str) -> list[HistoryEntry]:
    entries: list[HistoryEntry] = []
    try:
        with path.open(encoding="utf-8", errors="replace") as f:
            for line in f:
                try:
                    entry = HistoryEntry.model_validate(json.loads(line))
                except (ValueError, ValidationError):
                    continue  # a torn or foreign line: skip it, keep the rest
                if entry.project == project and entry.display.strip():
                    entries.append(entry)
    except OSError:
        pass
    return entries


class PromptHistory:
    """This project's prompts (ours and Claude Code's), oldest first, each text once (its latest use)."""

    def __init__(self, project: Path, path: Path | None = None, claude_path: Path | None = None) -> None:
        self.project = str(project.resolve())
        self.path = path or history_path()
        self.claude_path = claude_path or claude_history_path()
        self._entries: list[HistoryEntry] | None = None
        self._unwritten: list[HistoryEntry] = []
        """Prompts sent before the session existed (typed while the app starts): written when it does."""

    @property
    def entries(self) -> list[HistoryEntry]:
        if self._entries is None:
            merged = sorted([*_read(self.claude_path, self.project), *_read(self.path, self.project)], key=lambda e: e.timestamp)
            latest: dict[str, HistoryEntry] = {}
            for entry in merged:
                latest.pop(entry.display, None)
                latest[entry.display] = entry
            self._entries = list(latest.values())[-MAX_ENTRIES:]
        return self._entries

    def texts(self) -> list[str]:
        return [e.display for e in self.entries]

    def add(self, display: str, session_id: str | None) -> None:
        """Record a sent prompt (appended as one line at once; a write failure loses only this line). With no
        session yet (keys typed while the app starts) the line waits for `session_started`, so it names the
        session the prompt is sent in, as Claude Code's lines do."""
        entry = HistoryEntry(display=display, project=self.project, sessionId=session_id)
        entries = self.entries
        if entries and entries[-1].display == display:
            entries.pop()
        entries.append(entry)
        if session_id is None:
            self._unwritten.append(entry)
        else:
            self._write([entry])

    def session_started(self, session_id: str | None) -> None:
        """The session exists: write the prompts that were sent before it, naming it (None: the app is closing
        before it ever existed, and the lines are written without one rather than lost)."""
        waiting, self._unwritten = self._unwritten, []
        for entry in waiting:
            entry.sessionId = session_id
        self._write(waiting)

    def _write(self, entries: list[HistoryEntry]) -> None:
        if not entries:
            return
        try:
            with open_private(self.path, "a") as f:  # prompts are the user's words: 0600, as Claude Code's
                f.write("".join(entry.model_dump_json() + "\n" for entry in entries))
        except OSError:
            pass

    def search(self, query: str, before: int | None = None) -> int | None:
        """Index of the newest entry (older than `before`) containing `query`, case-insensitively."""
        texts = self.texts()
        low = query.lower()
        for i in range((len(texts) if before is None else before) - 1, -1, -1):
            if low in texts[i].lower():
                return i
        return None
