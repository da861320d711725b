"""The session folder and its transcript.

Every run has a session id and a folder under the user's data directory:
  $XDG_DATA_HOME/tui-agent/projects/<project>/<session id>/transcript.jsonl
  $XDG_DATA_HOME/tui-agent/projects/<project>/<session id>/tool-results/
Each finished message is appended as one JSON line and flushed at once, so a crash loses nothing
finished; the lines are typed (`TranscriptLine`) so a later resume can read them back.
"""

from __future__ import annotations

import json
import os
import re
import time
import uuid
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field


def data_home() -> Path:
    base = os.environ.get("XDG_DATA_HOME")
    return Path(base) if base else Path.home() / ".local" / "share"


def project_slug(cwd: Path) -> str:
    """The working folder as one safe folder name, like Claude Code's `-home-me-project`."""
    return re.sub(r"[^A-Za-z0-9._-]", "-", str(cwd.resolve()))[:200] or "root"


class TranscriptLine(BaseModel):
    """One line of transcript.jsonl."""

    type: Literal["user", "assistant", "system", "result"]
    """user/assistant: a message of the history; system: a notice; result: a run's end."""
    session_id: str
    uuid: str = Field(default_factory=lambda: uuid.uuid4().hex)
    timestamp: float = Field(default_factory=time.time)
    message: dict[str, Any] | None = None
    """The API message exactly as it is in the history (role and content blocks)."""
    data: dict[str, Any] | None = None
    """For system and result lines: what happened (reason, detail, usage, cost)."""


class Session:
    def __init__(self, cwd: Path, session_id: str | None = None, root: Path | None = None) -> None:
        self.id = session_id or str(uuid.uuid4())
        base = root if root is not None else data_home() / "tui-agent" / "projects" / project_slug(cwd)
        self.dir = base / self.id
        self.dir.mkdir(parents=True, exist_ok=True)
        self.transcript_path = self.dir / "transcript.jsonl"
        self._fh = self.transcript_path.open("a", encoding="utf-8")

    def append(self, kind: Literal["user", "assistant", "system", "result"], *, message: dict[str, Any] | None = None, data: dict[str, Any] | None = None, **extra: Any) -> None:
        """`extra`: more fields of the line (a subagent's side-chain marks: isSidechain, agentId)."""
        line = {
            **extra,
            "type": kind,
            "session_id": self.id,
            "uuid": uuid.uuid4().hex,
            "timestamp": time.time(),
            "message": message,
            "data": data,
        }
        # json.dumps directly: the pydantic model documents the format; the hot path need not build it.
        self._fh.write(json.dumps(line, ensure_ascii=False, default=str) + "\n")
        self._fh.flush()

    def read(self) -> list[TranscriptLine]:
        with self.transcript_path.open(encoding="utf-8") as fh:
            return [TranscriptLine.model_validate_json(line) for line in fh if line.strip()]

    def close(self) -> None:
        if not self._fh.closed:
            self._fh.close()
