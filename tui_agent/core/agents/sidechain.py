"""A subagent's transcript: its lines go into the session's transcript as a side-chain.

The child Agent writes through this object exactly as the main one writes through its Session; each
line is marked as Claude Code marks a subagent's lines (`isSidechain`, `agentId`) and carries the
parent's Agent tool_use id, so resume can show it and a crash loses nothing finished. The side-chain
has a parent chain of its own (see `Session.sidechain`), so the main conversation's chain stays whole.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, Protocol


class TranscriptWriter(Protocol):
    id: str
    dir: Path

    def sidechain(self, **marks: Any) -> Any: ...


class SidechainSession:
    """The session as a child agent sees it: same id, folder and file, lines marked as its side-chain."""

    def __init__(self, parent: TranscriptWriter, agent_id: str, parent_tool_use_id: str, agent_type: str) -> None:
        self.parent = parent
        self.id = parent.id
        self.dir = parent.dir
        self.agent_id = agent_id
        # A grandchild's marks win over ours: the line belongs to the innermost agent.
        self._writer = parent.sidechain(
            isSidechain=True, agentId=agent_id, parent_tool_use_id=parent_tool_use_id, subagent_type=agent_type,
        )
        self.transcript_path = getattr(self._writer, "transcript_path", None)

    def sidechain(self, **marks: Any) -> Any:
        return self._writer.sidechain(**marks)

    def append(self, kind: Literal["user", "assistant", "system", "result"], *, message: dict[str, Any] | None = None, data: dict[str, Any] | None = None, meta: dict[str, Any] | None = None) -> None:
        self._writer.append(kind, message=message, data=data, meta=meta)

    # Write-ahead, as the main chain does it (see Session).
    def assistant_block(self, block: dict[str, Any], meta: dict[str, Any]) -> None:
        self._writer.assistant_block(block, meta)

    def tool_result(self, block: dict[str, Any], info: dict[str, Any] | None = None) -> None:
        self._writer.tool_result(block, info)

    def drop_response(self) -> None:
        self._writer.drop_response()

    def result_written(self, tool_use_id: str) -> dict[str, Any] | None:
        return self._writer.result_written(tool_use_id)

    def close(self) -> None:
        """The session belongs to the main agent: a child never closes it."""
