"""A past conversation as the events the live one produced, so that one renderer draws both: the app feeds
these through the very code that applies the core's live events (ui/session_view.py, Conversation.apply).

The history holds what the model saw; what the screen showed beside it is recorded in the transcript:
- per tool call, our `tuiAgentTool` field on its result line (status, durationMs, summary, data), read
  back as `Conversation.tool_meta`;
- per `!` command, a `shell_command` record (core/shell_mode.py: status, durationMs, the file holding a
  long or interrupted output), matched to the command's message by its command, from the end.
Without them (older files, Claude Code's) the status comes from the result (is_error; Claude Code's
rejection text means denied), and a duration that is not known is not shown (never a made-up 0.0s).

Two facts have no core event, because live the app draws them itself: the prompt the user sent
(`PromptReplayed`) and a line about the history (`NoteReplayed`: earlier messages not shown, an earlier
compaction).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..events import (
    AssistantMessageFinished,
    Event,
    LoopEnded,
    ServerToolBlock,
    TextDelta,
    ThinkingDelta,
    ToolFinished,
    ToolQueued,
    ToolResultsSent,
    ToolStarted,
    ToolStatus,
)
from ..shell_mode import (
    LOCAL_COMMAND_CAVEAT,
    OUTPUT_PATH_KEY,
    SHELL_RECORD,
    cell_data,
    failed,
    parse_input,
    parse_output,
    saved_output,
    shown_output,
)
from .reader import COMPACT_SUMMARY_PREFIX, Conversation, content_blocks

SHOWN_MESSAGES = 200
"""A resumed conversation shows its last this many messages (the rest stays in the transcript)."""
PREVIEW_CHARS = 2_000
"""As much of a result as the executor puts in `ToolFinished.preview`."""
STATUSES = frozenset({"ok", "error", "denied", "cancelled"})
DENIED_PREFIXES = ("The user doesn't want to proceed with this tool use",)
"""How a rejected call's result begins, ours (core/tool_call.REJECTED) and Claude Code's."""
CANCELLED_PREFIXES = ("Interrupted by user", "[Request interrupted by user", "The user doesn't want to take this action right now")
_POLICY_DENIED = re.compile(r"\APermission to use \S.* (?:has been denied|was not granted)")
_USER_SAID = re.compile(r"the user said:\n", re.IGNORECASE)
COMPACTED_EARLIER = "Conversation compacted earlier · the summary opens the history; the full history stays in the transcript"


@dataclass(frozen=True, slots=True)
class PromptReplayed:
    """The user sent this prompt (live, the app draws it the moment it is sent, not from an event)."""

    text: str


@dataclass(frozen=True, slots=True)
class NoteReplayed:
    """A line about the history itself, not from the conversation (`kind`: a transcript notice's kind)."""

    kind: str
    text: str


Replayed = Event | PromptReplayed | NoteReplayed


def replay(conv: Conversation, *, last: int = SHOWN_MESSAGES) -> list[Replayed]:
    """The events that draw `conv`'s last `last` messages as the live session drew them (the `!`
    commands' records come with the conversation: `Conversation.shell_records`)."""
    return _Replay(conv, last).run()


class _Replay:
    def __init__(self, conv: Conversation, last: int) -> None:
        self.conv = conv
        self.tool_meta: dict[str, dict[str, Any]] = getattr(conv, "tool_meta", None) or {}
        self.start = max(0, len(conv.history) - last)
        self.out: list[Replayed] = []
        self.names: dict[str, str] = {}  # tool_use id -> tool name, of the messages shown
        self.run_open = False
        self.pending: str | None = None  # a `!` command whose output has not come yet
        self.shells = 0  # `!` commands seen, in order
        self.records: dict[int, dict[str, Any]] = {}

    def run(self) -> list[Replayed]:
        conv = self.conv
        if self.start:
            self.out.append(NoteReplayed("info", f"… {self.start} earlier messages not shown"))
        self.records = self._match_records()
        for i in range(self.start, len(conv.history)):
            if self._hidden(i):
                continue
            message = conv.history[i]
            if message["role"] == "assistant":
                self._flush_shell()
                self._assistant(message, (conv.metas[i] if i < len(conv.metas) else None) or {})
            else:
                self._user(message)
        self._flush_shell()
        self._end_run()
        return self.out

    def _hidden(self, i: int) -> bool:
        """Only harness text (reminders): not drawn."""
        return i < len(self.conv.hidden) and self.conv.hidden[i]

    # ----- messages ------------------------------------------------------------------------------
    def _assistant(self, message: dict[str, Any], meta: dict[str, Any]) -> None:
        self.run_open = True
        for block in content_blocks(message["content"]):
            kind = block.get("type")
            if kind == "text":
                if block.get("text"):
                    self.out.append(TextDelta(block["text"]))
            elif kind == "thinking":
                if block.get("thinking"):
                    self.out.append(ThinkingDelta(block["thinking"]))
            elif kind == "tool_use":
                self._queued(block)
            elif kind != "redacted_thinking":  # the API's own tools (a web search): drawn as they came
                self.out.append(ServerToolBlock(block))
        usage = meta.get("usage")
        self.out.append(AssistantMessageFinished(message, meta.get("stop_reason"), str(meta.get("id") or ""), str(meta.get("model") or ""),
                                                 dict(usage) if isinstance(usage, dict) else {}))

    def _user(self, message: dict[str, Any]) -> None:
        blocks = content_blocks(message["content"])
        results = [b for b in blocks if b.get("type") == "tool_result"]
        for block in results:
            self._finished(block)
        if results:
            self.out.append(ToolResultsSent(message))
        for block in blocks:
            if block.get("type") == "text":
                self._text(str(block.get("text", "")))

    def _text(self, text: str) -> None:
        if text.startswith(("<system-reminder>", LOCAL_COMMAND_CAVEAT)):
            return
        if text.startswith("[Request interrupted"):
            self._flush_shell(interrupted=True)
            self._end_run("aborted")
            return
        command = parse_input(text)
        if command is not None:
            self._prompt("!" + command)
            self.pending = command
            return
        output = parse_output(text)
        if output is not None and self.pending is not None:
            self._shell(self.pending, *output)
            return
        if text.startswith(COMPACT_SUMMARY_PREFIX):  # a compaction's summary opens the history (any version's wording)
            self.out.append(NoteReplayed("done", COMPACTED_EARLIER))
            return
        self._prompt(text)

    def _prompt(self, text: str) -> None:
        self._flush_shell()
        self._end_run()
        self.out.append(PromptReplayed(text))
        self.run_open = True

    def _end_run(self, reason: str = "completed") -> None:
        """The run's end, as the live one ended (an interrupted one says so)."""
        if self.run_open or reason == "aborted":
            detail = "Interrupted by user." if reason == "aborted" else ""
            self.out.append(LoopEnded(reason, detail, "", 0, 0, 0, None))  # type: ignore[arg-type]
        self.run_open = False

    # ----- tool calls ----------------------------------------------------------------------------
    def _queued(self, block: dict[str, Any]) -> None:
        tool_id, name = str(block.get("id", "")), str(block.get("name", "?"))
        data = block.get("input") if isinstance(block.get("input"), dict) else {}
        meta = self.tool_meta.get(tool_id)
        summary = str(meta.get("summary") or "") if meta is not None else fallback_summary(name, data)
        self.names[tool_id] = name
        self.out.append(ToolQueued(tool_id, name, data, summary, False, 0.0))

    def _finished(self, block: dict[str, Any]) -> None:
        tool_id = str(block.get("tool_use_id", ""))
        name = self.names.get(tool_id)
        if name is None:  # its tool_use is before the messages shown
            return
        meta = self.tool_meta.get(tool_id)
        content = block.get("content")
        text = result_text(content)
        is_error = bool(block.get("is_error"))
        status = result_status(text, is_error, meta)
        if meta is not None:
            preview = content if isinstance(content, str) else "[non-text result]" if content else ""
            data = meta.get("data")
        else:
            preview, data = text, denied_data(text) if status == "denied" else None
        seconds = _seconds(meta, status)
        self._finish(tool_id, name, status, seconds, preview[:PREVIEW_CHARS], is_error, data)

    def _finish(self, tool_id: str, name: str, status: ToolStatus, seconds: float | None, preview: str, is_error: bool, data: Any) -> None:
        """A call that ran (its duration known) starts in a lane; one that never ran, or whose duration is
        not known, ends without starting: its cell shows no duration."""
        if seconds is not None:
            self.out.append(ToolStarted(tool_id, name, 0, 0.0))
            self.out.append(ToolFinished(tool_id, name, status, 0, 0.0, seconds, preview, is_error, data))
        else:
            self.out.append(ToolFinished(tool_id, name, status, -1, 0.0, 0.0, preview, is_error, data))

    # ----- `!` commands --------------------------------------------------------------------------
    def _shell(self, command: str, stdout: str, stderr: str, saved: Path | None, interrupted: bool = False) -> None:
        """The `!` command's cell, as shell_mode.ShellCommand drew it."""
        self.pending = None
        record = self.records.get(self.shells)
        self.shells += 1
        recorded = record.get("status") if record is not None else None
        status: ToolStatus = recorded if recorded in STATUSES else "cancelled" if interrupted else "error" if failed(stderr) else "ok"  # type: ignore[assignment]
        path = Path(record[OUTPUT_PATH_KEY]) if record is not None and isinstance(record.get(OUTPUT_PATH_KEY), str) else saved
        whole = saved_output(path) if path is not None else None
        tool_id = f"shell-{self.shells}"
        self.out.append(ToolQueued(tool_id, "Bash", {"command": command}, f"! {command}", False, 0.0))
        ms = record.get("durationMs") if record is not None else None
        seconds = ms / 1000 if isinstance(ms, (int, float)) and not isinstance(ms, bool) else None
        self._finish(tool_id, "Bash", status, seconds, shown_output(stdout if whole is None else whole, stderr), status != "ok", cell_data(path))

    def _flush_shell(self, interrupted: bool = False) -> None:
        """A `!` command whose output never came (interrupted, or a file cut short)."""
        if self.pending is not None:
            self._shell(self.pending, "", "", None, interrupted)

    def _match_records(self) -> dict[int, dict[str, Any]]:
        """The shown `!` commands' records, by their order: matched by command from the end (the shown
        messages are the transcript's last ones; records of commands no longer shown come earlier)."""
        commands = [c for i in range(self.start, len(self.conv.history)) if not self._hidden(i) for c in _commands(self.conv.history[i])]
        if not commands:
            return {}
        records = self.conv.shell_records
        matched: dict[int, dict[str, Any]] = {}
        j = len(records) - 1
        for k in range(len(commands) - 1, -1, -1):
            while j >= 0 and records[j].get("command") != commands[k]:
                j -= 1
            if j < 0:
                break
            matched[k] = records[j]
            j -= 1
        return matched


def _commands(message: dict[str, Any]) -> list[str]:
    if message["role"] != "user":
        return []
    found = (parse_input(str(b.get("text", ""))) for b in content_blocks(message["content"]) if b.get("type") == "text")
    return [c for c in found if c is not None]


def _seconds(meta: dict[str, Any] | None, status: str) -> float | None:
    """How long the call ran, when it ran and that is known. A recorded 0 ms for a call that ended
    before it could run (denied, refused, cancelled in the queue) is not a duration."""
    ms = meta.get("durationMs") if meta is not None else None
    if not isinstance(ms, (int, float)) or isinstance(ms, bool):
        return None
    assert meta is not None
    ran = meta["ran"] if isinstance(meta.get("ran"), bool) else status != "denied" and (status == "ok" or ms > 0)
    return ms / 1000 if ran else None


def result_text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
    return str(content or "")


def result_status(text: str, is_error: bool, meta: dict[str, Any] | None) -> ToolStatus:
    """The recorded status, else what the result says: Claude Code's rejection or a policy's denial is
    denied, an interruption cancelled, another error an error."""
    if meta is not None and meta.get("status") in STATUSES:
        return meta["status"]  # type: ignore[no-any-return]
    if not is_error:
        return "ok"
    if text.startswith(DENIED_PREFIXES) or _POLICY_DENIED.match(text):
        return "denied"
    if text.startswith(CANCELLED_PREFIXES):
        return "cancelled"
    return "error"


def denied_data(text: str) -> dict[str, Any]:
    """A denied call's data as the executor gives it (tool_call._deny): the user's words, if they said any."""
    said = _USER_SAID.search(text)
    return {"type": "denied", "words": text[said.end():].strip() if said else ""}


def fallback_summary(name: str, data: dict[str, Any]) -> str:
    """What the tool's `summarize` says, for a call recorded without it (Claude Code's files), without
    importing the tools (a resume draws before the agent is built)."""
    if name in ("Agent", "Task") and data.get("description"):
        return f"{data.get('subagent_type') or 'general-purpose'}: {data['description']}"
    if name == "TodoWrite" and isinstance(data.get("todos"), list):
        todos = [t for t in data["todos"] if isinstance(t, dict)]
        return f"{sum(t.get('status') == 'completed' for t in todos)}/{len(todos)} todos completed"
    for key in ("url", "bash_id", "shell_id") if name in ("WebFetch", "BashOutput", "KillShell") else ():
        if data.get(key):
            return str(data[key])[:200]
    for key in ("command", "file_path", "pattern", "path"):
        value = data.get(key)
        if value:
            return str(value).splitlines()[0][:200]
    return ""
