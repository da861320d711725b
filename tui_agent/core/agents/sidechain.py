"""A subagent's transcript: its lines go into the session's transcript as a side-chain.

The child Agent writes through this object exactly as the main one writes through its Session; each
line is marked as Claude Code marks a subagent's lines (`isSidechain`, `agentId`) and carries the
parent's Agent tool_use id, so resume can show it and a crash loses nothing finished.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, Protocol


class TranscriptWriter(Protocol):
    id: str
    dir: Path

    def append(self, kind: Literal["user", "assistant", "system", "result"], *, message: dict[str, Any] | None = None, data: dict[str, Any] | None = None, **extra: Any) -> None: ...


class SidechainSession:
    """The session as a child agent sees it: same id and folder, lines marked as its side-chain."""

    def __init__(self, parent: TranscriptWriter, agent_id: str, parent_tool_use_id: str, agent_type: str) -> None:
        self.parent = parent
        self.id = parent.id
        self.dir = parent.dir
        self.agent_id = agent_id
        self._marks = {
            "isSidechain": True,
            "agentId": agent_id,
            "parent_tool_use_id": parent_tool_use_id,
            "subagent_type": agent_type,
        }

    def append(self, kind: Literal["user", "assistant", "system", "result"], *, message: dict[str, Any] | None = None, data: dict[str, Any] | None = None, **extra: Any) -> None:
        # A grandchild's marks (passed in `extra`) win over ours: the line belongs to the innermost agent.
        self.parent.append(kind, message=message, data=data, **{**self._marks, **extra})

    def close(self) -> None:
        """The session belongs to the main agent: a child never closes it."""
