"""`/export [file]`: the conversation as Markdown, built from the agent's history (never from the screen).

As Claude Code's /export: a name without an extension gets one (Claude Code adds `.txt` to its plain
text; ours is Markdown, so `.md`), the path is relative to the working folder, missing folders are
made, an existing file is overwritten (a name is an explicit choice), and without a name the file is
`YYYY-MM-DD-HHMMSS-<first prompt, slugged>.md` (or `conversation-<date>.md`) in the working folder.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any

from .history import blocks_of

EXTENSION = ".md"
SUMMARY_KEYS = ("command", "file_path", "path", "pattern", "url", "query", "description", "prompt", "skill")
RESULT_LIMIT = 20_000  # characters of one tool result kept in the file; a huge output is cut, and says so


def _fenced(text: str, language: str = "") -> str:
    """`text` in a code fence longer than any backtick run inside it, so nothing in it can close the fence."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text}\n{fence}"


def input_summary(tool_input: Any) -> str:
    """One line telling what a call did: its command, path, pattern…, else its input as compact JSON."""
    if isinstance(tool_input, dict):
        for key in SUMMARY_KEYS:
            value = tool_input.get(key)
            if isinstance(value, str) and value.strip():
                return value.strip().splitlines()[0][:200]
    text = json.dumps(tool_input, ensure_ascii=False, separators=(",", ":"))
    return text if len(text) <= 200 else text[:199] + "…"


def _result_text(block: dict[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, str):
        text = content
    else:
        parts = []
        for part in content or []:
            if part.get("type") == "text":
                parts.append(str(part.get("text", "")))
            else:
                parts.append(f"[{part.get('type', 'content')}]")  # an image or a document: named, not inlined
        text = "\n".join(parts)
    if len(text) > RESULT_LIMIT:
        text = text[:RESULT_LIMIT] + f"\n… ({len(text) - RESULT_LIMIT} more characters)"
    return text


def conversation_markdown(history: list[dict[str, Any]], *, model: str = "", when: datetime | None = None) -> str:
    """The conversation as Markdown: the prompts, the answers, each tool call (name, input summary, full
    input) followed by its result. Thinking is left out (it is not shown by default either)."""
    stamp = (when or datetime.now()).strftime("%Y-%m-%d %H:%M:%S")
    out = [f"# Conversation exported {stamp}" + (f" · {model}" if model else "")]
    results: dict[str, dict[str, Any]] = {}
    for message in history:
        if message.get("role") == "user":
            for block in blocks_of(message):
                if block.get("type") == "tool_result":
                    results[str(block.get("tool_use_id"))] = block
    for message in history:
        role = message.get("role")
        user_text: list[str] = []
        for block in blocks_of(message):
            kind = block.get("type")
            if kind == "text" and str(block.get("text", "")).strip() and not _reminder(block):
                if role == "user":
                    user_text.append(str(block["text"]))
                else:
                    out += ["", "## Assistant", "", str(block["text"]).strip()]
            elif kind == "image" and role == "user":
                user_text.append("[image]")
            elif kind == "tool_use":
                out += _tool_call(block, results.get(str(block.get("id"))))
        if user_text:
            out += ["", "## User", "", "\n\n".join(t.strip() for t in user_text)]
    return "\n".join(out) + "\n"


def _reminder(block: dict[str, Any]) -> bool:
    # Context the agent adds to a prompt (memory, reminders) is not something the user typed.
    return str(block.get("text", "")).lstrip().startswith("<system-reminder>")


def _tool_call(block: dict[str, Any], result: dict[str, Any] | None) -> list[str]:
    tool_input = block.get("input", {})
    lines = ["", f"### Tool: {block.get('name', '?')} — `{input_summary(tool_input).replace('`', 'ˋ')}`", ""]
    lines += [_fenced(json.dumps(tool_input, ensure_ascii=False, indent=2), "json"), ""]
    if result is None:
        lines.append("*(no result)*")
    else:
        label = "Error" if result.get("is_error") else "Result"
        lines += [f"{label}:", "", _fenced(_result_text(result))]
    return lines


def _slug(text: str) -> str:
    # Claude Code's: lower case, only [a-z0-9 -], spaces to dashes, no repeated or outer dashes.
    text = re.sub(r"[^a-z0-9\s-]", "", text.lower())
    return re.sub(r"-+", "-", re.sub(r"\s+", "-", text)).strip("-")


def first_prompt(history: list[dict[str, Any]]) -> str:
    for message in history:
        if message.get("role") == "user":
            texts = [str(b.get("text", "")) for b in blocks_of(message) if b.get("type") == "text"]
            if texts:
                text = " ".join(texts[0].split())
                return text if len(text) <= 50 else text[:49] + "…"
    return ""


def default_name(history: list[dict[str, Any]], now: datetime | None = None) -> str:
    stamp = (now or datetime.now()).strftime("%Y-%m-%d-%H%M%S")
    slug = _slug(first_prompt(history))
    return f"{stamp}-{slug}{EXTENSION}" if slug else f"conversation-{stamp}{EXTENSION}"


def export_path(name: str, cwd: Path, history: list[dict[str, Any]], now: datetime | None = None) -> Path:
    """Where `/export name` writes: relative to the working folder; no extension → `.md`; no name → dated."""
    name = name.strip() or default_name(history, now)
    path = Path(name).expanduser()
    if not path.suffix:
        path = path.with_name(path.name + EXTENSION)
    return path if path.is_absolute() else cwd / path


def export_conversation(history: list[dict[str, Any]], name: str, cwd: Path, *, model: str = "") -> Path:
    """Write the Markdown; the path written. OSError when it cannot be written."""
    path = export_path(name, cwd, history)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(conversation_markdown(history, model=model), encoding="utf-8")
    return path
