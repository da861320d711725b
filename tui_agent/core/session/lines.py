"""Transcript lines in Claude Code's shape (2.1): the fields, documented, and the few line types we add.

A message line (`user`, `assistant`) carries the exact API message plus where it sits in the
conversation: `parentUuid` is the line before it, so a conversation is rebuilt by following it back from
the last line (forks and rewinds are branches). Claude Code writes each assistant content block as its
own line, all sharing `message.id`, and each tool result as its own `user` line whose parent is the
line of its tool_use. Other types (`attachment`, `system`, `summary`, `custom-title`, `last-prompt`,
`queue-operation`, ...) exist; readers skip what they do not know. Our own facts go in line types of our
own (`tui-agent-run`), never in changed fields of theirs.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

VERSION = "2.1.197"
"""The Claude Code transcript version whose shape we write (the `version` field)."""
RUN_LINE = "tui-agent-run"
"""Our line type closing a run: why it ended, turns, cost. Claude Code skips it."""


def now_iso() -> str:
    """ISO 8601 in UTC with milliseconds and `Z`, as Claude Code writes `timestamp`."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class MessageLine(BaseModel):
    """A `user` or `assistant` line (extra fields are kept: a reader must not lose what it does not know)."""

    model_config = ConfigDict(extra="allow")

    type: Literal["user", "assistant"]
    uuid: str
    """This line's id."""
    parentUuid: str | None
    """The line before it in the conversation; None at the start (or after a compaction boundary)."""
    isSidechain: bool = False
    """True for a subagent's lines, which are not part of the main conversation."""
    sessionId: str
    timestamp: str
    """ISO time with milliseconds and `Z`."""
    cwd: str = ""
    version: str = ""
    gitBranch: str = ""
    message: dict[str, Any]
    """The API message: `role` and `content`; an assistant line's holds one content block plus `id`,
    `model`, `stop_reason` and `usage` of the whole response."""
    isMeta: bool | None = None
    """A line the harness added (a reminder), not typed by the user."""
    toolUseResult: Any = None
    """On a tool result line: the tool's result (a string here; Claude Code keeps a tool-specific object)."""
    sourceToolAssistantUUID: str | None = None
    """On a tool result line: the assistant line holding its tool_use."""
    permissionMode: str | None = None
    """On a prompt line: the permission mode when the prompt was sent."""


class CompactBoundaryLine(BaseModel):
    """`system` / `compact_boundary`: the conversation before it was summarised; its parentUuid is None
    (the summary, a `user` line with `isCompactSummary`, follows it)."""

    model_config = ConfigDict(extra="allow")

    type: Literal["system"]
    subtype: Literal["compact_boundary"]
    uuid: str
    parentUuid: None = None
    logicalParentUuid: str | None = None
    compactMetadata: dict[str, Any] | None = None


class NestedMemoryAttachment(BaseModel):
    """`attachment.type == "nested_memory"`: a subdirectory's CLAUDE.md loaded by a tool call."""

    model_config = ConfigDict(extra="allow")

    type: Literal["nested_memory"]
    path: str
    content: dict[str, Any]
    """`{"path", "type", "content"}`: the file's text is `content.content`."""


class CustomTitleLine(BaseModel):
    """`custom-title`: the session's name (/rename, -n)."""

    type: Literal["custom-title"]
    customTitle: str
    sessionId: str


class RunLine(BaseModel):
    """Ours (`tui-agent-run`): a run ended. A session whose last message comes after its last run line
    ended mid-turn (closed or killed while working)."""

    model_config = ConfigDict(extra="allow")

    type: Literal["tui-agent-run"]
    sessionId: str
    timestamp: str
    parentUuid: str | None
    """The last message line of the run."""
    reason: str
    detail: str = ""
    num_turns: int = 0
    total_cost_usd: float | None = None
