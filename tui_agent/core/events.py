"""The core's typed events: past-tense facts that a UI or the headless printer consumes.

Events are plain frozen dataclasses (cheap to make on the streaming hot path); the core never
imports Textual, and consumers never reach back into the core through an event.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

ToolStatus = Literal["ok", "error", "denied", "cancelled"]
EndReason = Literal[
    "completed",
    "max_turns",
    "aborted",
    "max_budget_usd",
    "model_error",
    "prompt_too_long",
    "max_tokens",
    "refusal",
    "max_structured_output_retries",
]


@dataclass(frozen=True, slots=True)
class RunStarted:
    """A prompt was accepted and a run of the loop began."""

    session_id: str
    model: str
    prompt: str
    tools: tuple[str, ...]
    cwd: str
    demo: bool = False


@dataclass(frozen=True, slots=True)
class TurnStarted:
    """A model request is about to be sent (turn counts requests, from 1)."""

    turn: int


@dataclass(frozen=True, slots=True)
class TextDelta:
    """A piece of the assistant's answer text arrived."""

    text: str
    index: int = 0


@dataclass(frozen=True, slots=True)
class ThinkingDelta:
    """A piece of the assistant's thinking arrived."""

    text: str
    index: int = 0


@dataclass(frozen=True, slots=True)
class AssistantMessageFinished:
    """The assistant message arrived whole and was appended to the history."""

    message: dict[str, Any]
    stop_reason: str | None
    id: str = ""
    model: str = ""
    """The model that answered, as the API named it."""
    usage: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ToolQueued:
    """A tool_use block was complete in the stream and handed to the executor."""

    id: str
    name: str
    input: dict[str, Any]
    summary: str
    safe: bool
    t: float


@dataclass(frozen=True, slots=True)
class ToolStarted:
    """A tool's call began in a lane (a small integer slot, reused when free)."""

    id: str
    name: str
    lane: int
    t: float


@dataclass(frozen=True, slots=True)
class ToolProgress:
    """A tool reported progress (e.g. a line of shell output)."""

    id: str
    text: str


@dataclass(frozen=True, slots=True)
class ToolFinished:
    """A tool's result is final. `lane` is -1 for tools that never ran (denied, invalid, cancelled early)."""

    id: str
    name: str
    status: ToolStatus
    lane: int
    t_start: float
    t_end: float
    preview: str
    is_error: bool
    data: Any = None

    @property
    def duration(self) -> float:
        return max(0.0, self.t_end - self.t_start)


@dataclass(frozen=True, slots=True)
class HookStarted:
    """A settings command hook began (core/hook_events.py): the app shows it in the lanes like a tool."""

    id: str
    event: str
    command: str
    t: float


@dataclass(frozen=True, slots=True)
class HookFinished:
    """A command hook ended: "ok" (exit 0), "denied" (exit 2, it blocked), "error" (another exit, a timeout,
    no start), "cancelled" (ESC)."""

    id: str
    event: str
    command: str
    status: ToolStatus
    t_start: float
    t_end: float


@dataclass(frozen=True, slots=True)
class StreamMark:
    """A stream event other than a delta (message_start, content_block_start/stop, message_delta,
    message_stop), as received, after the core acted on it (a stopped block is on disk by then)."""

    event: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ServerToolBlock:
    """A block the API's own tools produced (a web search and its results), complete, as received."""

    block: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ToolResultsSent:
    """All results of one assistant turn were appended as one user message."""

    message: dict[str, Any]


@dataclass(frozen=True, slots=True)
class PermissionAsked:
    """A tool waits for the user's answer (the ask callback has the request)."""

    request_id: str
    tool_use_id: str
    name: str
    summary: str
    t: float


@dataclass(frozen=True, slots=True)
class PermissionAnswered:
    """The user (or a policy) answered an ask."""

    request_id: str
    tool_use_id: str
    allowed: bool
    words: str = ""


@dataclass(frozen=True, slots=True)
class UsageUpdated:
    """Token counts and cost after a model response, for the turn and for the session."""

    model: str
    input_tokens: int
    output_tokens: int
    cache_read_input_tokens: int
    cache_creation_input_tokens: int
    total_input_tokens: int
    total_output_tokens: int
    cost_usd: float | None
    total_cost_usd: float | None


@dataclass(frozen=True, slots=True)
class Retrying:
    """A model request failed with a retryable error; the next attempt starts after `delay` seconds."""

    attempt: int
    delay: float
    why: str


@dataclass(frozen=True, slots=True)
class Notice:
    """Something the user should see that is not part of the conversation (settings errors, etc.)."""

    level: Literal["info", "warning", "error"]
    text: str

    @classmethod
    def of(cls, level: str, text: str) -> "Notice":
        """A notice from a component that names its levels freely (unknown levels become info)."""
        return cls(level if level in ("info", "warning", "error") else "info", text)  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class ContextUpdated:
    """How full the context is (tokens, `core.context.tokens`), emitted after each response, compaction
    and pruning (`Agent.context_size()` gives it at any moment): what the status line's meter and
    `/context` show."""

    used: int
    window: int
    threshold: int
    """Automatic compaction happens before a request whose context would pass this."""
    prune_threshold: int
    """Old tool results are pruned above this."""
    model: str
    cause: Literal["response", "compaction", "pruning", "estimate"] = "response"
    auto_compact: bool = True
    """False when automatic compaction is off (autoCompactEnabled, DISABLE_AUTO_COMPACT)."""

    @property
    def left_until_compaction(self) -> float:
        """The share (0..1) of the way to automatic compaction that is still free."""
        return max(0.0, min(1.0, (self.threshold - self.used) / self.threshold)) if self.threshold > 0 else 0.0

    @property
    def share_of_window(self) -> float:
        return self.used / self.window if self.window > 0 else 0.0


CompactionTrigger = Literal["auto", "manual", "recovery"]


@dataclass(frozen=True, slots=True)
class CompactionStarted:
    """A compaction turn began: the conversation is being summarised (show it with a timer)."""

    trigger: CompactionTrigger
    pre_tokens: int
    t: float
    instructions: str = ""


@dataclass(frozen=True, slots=True)
class CompactionProgress:
    """A piece of the summary arrived (`chars` so far, for a live count)."""

    text: str
    chars: int


@dataclass(frozen=True, slots=True)
class CompactionFinished:
    """The compaction turn ended. `outcome`: compacted (the history now starts with the summary),
    aborted (ESC: the history is as it was), blocked (a PreCompact hook), failed (`detail` says why)."""

    trigger: CompactionTrigger
    outcome: Literal["compacted", "aborted", "blocked", "failed"]
    pre_tokens: int
    post_tokens: int
    t_start: float
    t_end: float
    summary: str = ""
    detail: str = ""

    @property
    def duration(self) -> float:
        return max(0.0, self.t_end - self.t_start)


@dataclass(frozen=True, slots=True)
class LoopEnded:
    """The run ended; the reason is always explicit."""

    reason: EndReason
    detail: str
    result: str
    num_turns: int
    duration_ms: int
    duration_api_ms: int
    total_cost_usd: float | None
    usage: dict[str, int] = field(default_factory=dict)
    permission_denials: tuple[dict[str, Any], ...] = ()
    structured_output: Any = None
    """--json-schema: the value the model gave through StructuredOutput (None without one)."""
    model_usage: dict[str, dict[str, Any]] = field(default_factory=dict)
    """The session's usage per model, in Claude Code's `modelUsage` shape (core/model_usage.py)."""

    @property
    def is_error(self) -> bool:
        return self.reason != "completed"


@dataclass(frozen=True, slots=True)
class SubagentStarted:
    """An Agent tool call started a child agent (its events follow wrapped in SubagentEvent)."""

    parent_tool_use_id: str
    agent_id: str
    agent_type: str
    description: str
    prompt: str
    model: str
    t: float


@dataclass(frozen=True, slots=True)
class SubagentFinished:
    """A child agent's run ended; `result` is its final text (what the parent's tool_result carries)."""

    parent_tool_use_id: str
    agent_id: str
    reason: str
    result: str
    total_tokens: int
    tool_uses: int
    duration_ms: int
    t: float


@dataclass(frozen=True, slots=True)
class SubagentEvent:
    """An event of a child agent, tagged with the parent's Agent tool_use id (nested children nest)."""

    parent_tool_use_id: str
    agent_id: str
    event: "Event"

    @property
    def innermost(self) -> tuple[str, "Event"]:
        """(the tool_use id of the agent that emitted it, the unwrapped event)."""
        wrapped: Event = self
        parent = self.parent_tool_use_id
        while isinstance(wrapped, SubagentEvent):
            parent, wrapped = wrapped.parent_tool_use_id, wrapped.event
        return parent, wrapped


Event = (
    RunStarted
    | TurnStarted
    | TextDelta
    | ThinkingDelta
    | AssistantMessageFinished
    | ToolQueued
    | ToolStarted
    | ToolProgress
    | ToolFinished
    | HookStarted
    | HookFinished
    | ToolResultsSent
    | ServerToolBlock
    | StreamMark
    | PermissionAsked
    | PermissionAnswered
    | UsageUpdated
    | Retrying
    | Notice
    | ContextUpdated
    | CompactionStarted
    | CompactionProgress
    | CompactionFinished
    | LoopEnded
    | SubagentStarted
    | SubagentFinished
    | SubagentEvent
)
