"""What a compacted history carries besides the summary, read afresh: the person's most recent prompts in
their own words (up to ~20 k tokens), the todo list, and the files read most recently, re-attached from
disk (at most 5, ~5 k tokens each). Each is a `<system-reminder>` text block of the first message.

A file is re-attached only when its tool call succeeded (its tool_result is not an error: a denied or
failed Read brings nothing back) and the gate (core/access.py) still lets the model see it now."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...tools.base import FileReadState
from ..access import ReadGate, read_head
from ...tools.text_files import decode, numbered, split_lines
from ..history import INTERRUPT_NOTE
from ..stop_reasons import RESUME_PROMPT, SPLIT_THE_WORK
from .summary import CONTINUED
from .tokens import CHARS_PER_TOKEN, text_tokens

RECENT_PROMPTS_TOKENS = 20_000
MAX_FILES = 5
FILE_TOKENS = 5_000
FILE_TOOLS = ("Read", "Edit", "MultiEdit", "Write", "NotebookEdit")
_NOT_PROMPTS = ("<system-reminder>", "[Request interrupted", CONTINUED, RESUME_PROMPT, SPLIT_THE_WORK, INTERRUPT_NOTE)


def _prompt_text(message: dict[str, Any]) -> str:
    """The words a person typed in a user message ('' for tool results and harness text)."""
    content = message.get("content")
    if isinstance(content, str):
        return "" if content.startswith(_NOT_PROMPTS) else content
    if any(b.get("type") == "tool_result" for b in content or []):
        return ""
    texts = [b.get("text", "") for b in content or [] if b.get("type") == "text"]
    return "\n".join(t for t in texts if t and not t.startswith(_NOT_PROMPTS))


def recent_prompts(history: list[dict[str, Any]], budget: int = RECENT_PROMPTS_TOKENS) -> list[str]:
    """The most recent prompts, oldest first, within `budget` tokens (the newest cut to fit if alone)."""
    out: list[str] = []
    left = budget
    for message in reversed(history):
        if message.get("role") != "user":
            continue
        text = _prompt_text(message)
        if not text:
            continue
        cost = text_tokens(text)
        if cost > left:
            if not out:
                out.append(text[: left * CHARS_PER_TOKEN] + "\n[... cut to fit ...]")
            break
        out.append(text)
        left -= cost
    return list(reversed(out))


def prompts_block(prompts: list[str]) -> str:
    body = "\n\n".join(f"<user-message>\n{p}\n</user-message>" for p in prompts)
    return (
        "<system-reminder>\nThe user's most recent messages before the conversation was compacted, in their own "
        f"words (oldest first):\n\n{body}\n</system-reminder>"
    )


def todos_block(todos: list[dict[str, Any]]) -> str:
    lines = [f"{i}. [{t.get('status', 'pending')}] {t.get('content', '')}" for i, t in enumerate(todos, 1)]
    return "<system-reminder>\nThe todo list (TodoWrite) when the conversation was compacted:\n" + "\n".join(lines) + "\n</system-reminder>"


def _succeeded(history: list[dict[str, Any]]) -> set[str]:
    """The ids of tool calls whose result is not an error."""
    return {
        b.get("tool_use_id", "")
        for m in history
        if m.get("role") == "user" and not isinstance(m.get("content"), str)
        for b in m.get("content") or []
        if b.get("type") == "tool_result" and not b.get("is_error")
    }


def recent_files(history: list[dict[str, Any]], limit: int = MAX_FILES, gate: ReadGate | None = None) -> list[Path]:
    """The files the conversation's file tools touched most recently and successfully, newest first, that
    still exist and that `gate` (when given) still allows."""
    ok = _succeeded(history)
    seen: list[Path] = []
    for message in reversed(history):
        if message.get("role") != "assistant" or isinstance(message.get("content"), str):
            continue
        for block in reversed(message["content"]):
            if block.get("type") != "tool_use" or block.get("name") not in FILE_TOOLS or block.get("id") not in ok:
                continue
            raw = (block.get("input") or {}).get("file_path") or (block.get("input") or {}).get("notebook_path")
            if not isinstance(raw, str) or not raw:
                continue
            path = Path(raw)
            if path in seen or not path.is_file() or (gate is not None and not gate.check(path).allowed):
                continue
            seen.append(path)
            if len(seen) >= limit:
                return seen
    return seen


def file_block(path: Path, budget: int = FILE_TOKENS) -> str | None:
    """The file as the Read tool would show it, cut to `budget` tokens; None for binary or unreadable.
    Callers ask the gate first (recent_files does)."""
    limit = budget * CHARS_PER_TOKEN
    head = read_head(path, limit * 2)  # enough for what is shown; never the whole of a big file
    if head is None:
        return None
    data = head.data
    if head.cut and b"\n" in data:  # end on a whole line, not inside a character
        data = data[: data.rindex(b"\n") + 1 + (data[:2] == b"\xff\xfe")]
    decoded = decode(data)
    if decoded is None:
        return None
    lines = split_lines(decoded[0])
    text = numbered(lines, 1) if lines else ""
    if len(text) > limit or head.cut:
        shown = text[:limit].rsplit("\n", 1)[0]
        total = "" if head.cut else f": {len(lines)} lines in all"
        text = f"{shown}\n[... the file continues{total}; Read it with offset/limit for the rest ...]"
    call = json.dumps({"file_path": str(path)})
    return f"<system-reminder>\nCalled the Read tool with the following input: {call}\nResult of calling the Read tool:\n{text}\n</system-reminder>"


@dataclass(slots=True)
class Carryover:
    blocks: list[dict[str, Any]] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    """The files re-attached: the only ones counted as read after the compaction."""


def carryover(history: list[dict[str, Any]], todos: list[dict[str, Any]] | None, *, whole: bool = True,
              gate: ReadGate | None = None) -> Carryover:
    """What the first message carries; a partial compaction (`whole=False`, the newest messages kept
    verbatim) carries only the todo list: the kept messages hold the recent prompts and reads."""
    out = Carryover()
    with_prompts = whole
    prompts = recent_prompts(history) if with_prompts else []
    if prompts:
        out.blocks.append({"type": "text", "text": prompts_block(prompts)})
    if todos:
        out.blocks.append({"type": "text", "text": todos_block(todos)})
    for path in recent_files(history, gate=gate) if whole else []:
        text = file_block(path)
        if text is not None:
            out.blocks.append({"type": "text", "text": text})
            out.files.append(path)
    return out


def read_state_for(files: list[Path]) -> FileReadState:
    """After a compaction only the re-attached files count as read (an edit of another must Read it first)."""
    state = FileReadState()
    for path in files:
        try:
            state.record(path)
        except OSError:
            pass
    return state
