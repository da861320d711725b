"""Transcript lines in Claude Code's shape (2.1): the fields, documented, and the few line types we add.

A message line (`user`, `assistant`) carries the exact API message plus where it sits in the
conversation: `parentUuid` is the line before it, so a conversation is rebuilt by following it back from
the last line (forks and rewinds are branches). Claude Code writes each assistant content block as its
own line, all sharing `message.id`, and each tool result as its own `user` line whose parent is the
line of its tool_use. Other types (`attachment`, `system`, `summary`, `custom-title`, `last-prompt`,
`queue-operation`, ...) exist; readers skip what they do not know. Our own facts go in line types of our
own (`tui-agent-run`), never in changed fields of theirs.

Older versions wrote the same lines with less in them (tests/core/session/fixtures/README.md has one file of
each shape): 0.2.x a whole response per assistant line; 1.0.x one line per block, each parent the line
before, a compaction summary starting a chain of its own (the `compact_boundary` came in later 1.0.x);
2.1.x `progress` lines, which until about 2.1.9x sat in the parentUuid chain between messages.
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


class SummaryLine(BaseModel):
    """`summary` (0.2.x to 2.x): a title for the conversation ending at `leafUuid` (Claude Code names sessions
    by it; we name one by it when it has no `custom-title`)."""

    model_config = ConfigDict(extra="allow")

    type: Literal["summary"]
    summary: str
    leafUuid: str


class ProgressLine(BaseModel):
    """`progress` (2.1.x): a hook run, a shell command's output so far, a subagent's step. Never part of the
    conversation; a line whose parentUuid names one hangs, for the conversation, from that line's parent."""

    model_config = ConfigDict(extra="allow")

    type: Literal["progress"]
    uuid: str
    parentUuid: str | None
    data: dict[str, Any]
    """`{"type": "hook_progress" | "bash_progress" | "agent_progress" | ..., ...}`."""
    toolUseID: str
    parentToolUseID: str


class QueuedCommandAttachment(BaseModel):
    """`attachment.type == "queued_command"`: a message that came while Claude Code was busy, delivered with
    the next request. Typed by the user (`commandMode` "prompt", no `origin` or a human one, not `isMeta`) it
    is the user's prompt; otherwise (a task notification, a coordinator's message) a reminder."""

    model_config = ConfigDict(extra="allow")

    type: Literal["queued_command"]
    prompt: str | list[dict[str, Any]]
    commandMode: str | None = None
    """"prompt" or "task-notification" (absent in older versions: a prompt)."""
    origin: dict[str, Any] | None = None
    """Who sent it: `{"kind": "human" | "task-notification" | "coordinator" | ...}`."""
    isMeta: bool | None = None
    source_uuid: str | None = None


class PermissionModeLine(BaseModel):
    """`permission-mode` (2.1.x): the session's permission mode, written again when it changes and at exit,
    so it may be newer than the last prompt's `permissionMode`."""

    model_config = ConfigDict(extra="allow")

    type: Literal["permission-mode"]
    permissionMode: str
    sessionId: str
