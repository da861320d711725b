"""Strict models of Claude Code's message lines, for validating in tests (never for reading).

Derived from the lines Claude Code 2.1.197 wrote itself (fixtures/claude_code_tool_turn.jsonl,
claude_code_2.1.197_thinking_edit_write.jsonl, claude_code_2.1.197_outside_git.jsonl): every model
forbids fields it does not name and takes no coercion, so a misspelt, unknown or mistyped field fails.
The product's reader (tui_agent/core/session/lines.py) stays lenient: it must keep what newer Claude Code
versions add. Our own additions are named here too (`OurToolResultLine.tuiAgentTool`, `OurRunLine`),
so a field we add without saying so fails as well.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


# ----- content blocks ------------------------------------------------------------------------------
class TextBlock(Strict):
    type: Literal["text"]
    text: str


class ThinkingBlock(Strict):
    type: Literal["thinking"]
    thinking: str
    signature: str


class ToolUseBlock(Strict):
    type: Literal["tool_use"]
    id: str
    name: str
    input: dict[str, Any]


class ToolResultBlock(Strict):
    type: Literal["tool_result"]
    tool_use_id: str
    content: str | list[TextBlock]
    is_error: bool | None = None
    """Claude Code 2.1.197 writes `false` on Bash's results and leaves it out on Read's, Edit's, Write's."""


AssistantBlock = Annotated[TextBlock | ThinkingBlock | ToolUseBlock, Field(discriminator="type")]
UserBlock = Annotated[TextBlock | ToolResultBlock, Field(discriminator="type")]


# ----- messages ----------------------------------------------------------------------------------
class Usage(Strict):
    input_tokens: int
    output_tokens: int
    cache_creation_input_tokens: int
    cache_read_input_tokens: int
    # Claude Code fills these in itself (the scripted server never sends them).
    server_tool_use: dict[str, int] | None = None
    service_tier: str | None = None
    cache_creation: dict[str, int] | None = None
    inference_geo: str | None = None
    iterations: list[Any] | None = None
    speed: str | None = None


class AssistantMessage(Strict):
    id: str
    type: Literal["message"]
    role: Literal["assistant"]
    model: str
    content: Annotated[list[AssistantBlock], Field(min_length=1, max_length=1)]
    """One block per line (2.1.x)."""
    stop_reason: Literal["end_turn", "tool_use", "max_tokens", "stop_sequence", "pause_turn", "refusal"] | None
    stop_sequence: str | None
    usage: Usage
    stop_details: None = None


class UserMessage(Strict):
    role: Literal["user"]
    content: str | list[UserBlock]


# ----- lines -------------------------------------------------------------------------------------
class Envelope(Strict):
    """What every conversation line carries (`insertMessageChain`)."""

    parentUuid: str | None
    isSidechain: bool
    uuid: str
    timestamp: Annotated[str, Field(pattern=r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")]
    userType: Literal["external"]
    entrypoint: str
    cwd: str
    sessionId: str
    version: str
    gitBranch: str


class AssistantLine(Envelope):
    type: Literal["assistant"]
    message: AssistantMessage
    requestId: str | None


class PromptLine(Envelope):
    """A prompt, or text sent with tool results (`isMeta`: the harness's, not typed)."""

    type: Literal["user"]
    message: UserMessage
    promptId: str | None = None
    permissionMode: Literal["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"] | None = None
    promptSource: str | None = None
    isMeta: bool | None = None


class ToolResultLine(Envelope):
    type: Literal["user"]
    message: UserMessage
    toolUseResult: Any
    sourceToolAssistantUUID: str
    promptId: str | None = None


class AttachmentLine(Envelope):
    type: Literal["attachment"]
    attachment: dict[str, Any]


# ----- toolUseResult: the tools' own outputs (2.1.197) -----------------------------------------------
class BashResult(Strict):
    stdout: str
    stderr: str
    interrupted: bool
    isImage: bool
    noOutputExpected: bool


class ReadFile(Strict):
    filePath: str
    content: str
    numLines: int
    startLine: int
    totalLines: int


class ReadResult(Strict):
    type: Literal["text"]
    file: ReadFile


class Hunk(Strict):
    oldStart: int
    oldLines: int
    newStart: int
    newLines: int
    lines: list[str]


class EditResult(Strict):
    filePath: str
    oldString: str
    newString: str
    originalFile: str
    structuredPatch: list[Hunk]
    userModified: bool
    replaceAll: bool


class WriteResult(Strict):
    type: Literal["create", "update"]
    filePath: str
    content: str
    structuredPatch: list[Hunk]
    originalFile: str | None
    userModified: bool


TOOL_RESULTS: dict[str, type[Strict]] = {"Bash": BashResult, "Read": ReadResult, "Edit": EditResult, "Write": WriteResult}


# ----- ours --------------------------------------------------------------------------------------
class TuiAgentTool(Strict):
    """Our `tuiAgentTool` field on a result line: what the screen showed of the call."""

    status: str
    durationMs: int
    ran: bool
    summary: str | None = None
    data: dict[str, Any] | None = None


class OurToolResultLine(ToolResultLine):
    tuiAgentTool: TuiAgentTool | None = None


class OurRunLine(Strict):
    type: Literal["tui-agent-run"]
    sessionId: str
    timestamp: str
    parentUuid: str | None
    reason: str
    detail: str
    num_turns: int
    total_cost_usd: float | None


def is_tool_result(line: dict[str, Any]) -> bool:
    content = line.get("message", {}).get("content")
    return isinstance(content, list) and bool(content) and content[0].get("type") == "tool_result"


def claude_code_model(line: dict[str, Any]) -> type[Strict]:
    """The strict model of one of Claude Code's lines (KeyError: a line type not modelled here)."""
    if line["type"] == "user":
        return ToolResultLine if is_tool_result(line) else PromptLine
    return {"assistant": AssistantLine, "attachment": AttachmentLine}[line["type"]]


def our_model(line: dict[str, Any]) -> type[Strict]:
    """The strict model of a line we write: Claude Code's, plus only the additions named above."""
    if line["type"] == "user" and is_tool_result(line):
        return OurToolResultLine
    if line["type"] == "tui-agent-run":
        return OurRunLine
    return claude_code_model(line)
