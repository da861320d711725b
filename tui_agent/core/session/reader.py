"""Reading a transcript back into a valid conversation (ours or Claude Code's: one shape).

The conversation is the chain of `parentUuid` links from the last line back to the start, or to a
compaction boundary (whose summary then opens the conversation). On the way:
- per-block assistant lines are merged into one message by `message.id`;
- each tool_use gets its result wherever its line sits: Claude Code hangs parallel results off their own
  tool_use lines, so only the last of them is on the chain;
- lines that are not understood, side chains (subagents) and torn lines are skipped;
- a subdirectory's memory (`nested_memory` attachment) becomes the reminder the model was sent;
- repairs after a crash: a tool_use without a result gets an is_error result saying the session ended
  while the tool ran, and each repair is reported.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..context.pruning import apply_records
from .lines import MessageLine


CHAIN_TYPES = frozenset({"user", "assistant", "attachment", "system"})
CRASHED_TOOL = (
    "The session ended while this tool was running (tui-agent was closed or killed); "
    "it may have run partway. Check its effects before running it again."
)
# Claude Code's local slash-command bookkeeping: not part of the conversation.
LOCAL_COMMAND_PREFIXES = ("<local-command-caveat>", "<command-name>", "<local-command-stdout>", "<local-command-stderr>")


@dataclass(slots=True)
class Conversation:
    """A transcript read back: the API history and what a resume needs to know."""

    history: list[dict[str, Any]] = field(default_factory=list)
    metas: list[dict[str, Any] | None] = field(default_factory=list)
    """Per message: an assistant response's id, model, stop_reason and usage (None for user messages)."""
    hidden: list[bool] = field(default_factory=list)
    """Per message: only harness text (reminders), not shown as a prompt."""
    session_id: str = ""
    leaf_uuid: str | None = None
    """The last line of the conversation: where new lines hang."""
    name: str = ""
    model: str = ""
    permission_mode: str = ""
    cwd: str = ""
    branch: str = ""
    """The git branch of the last line."""
    repairs: list[str] = field(default_factory=list)
    """What was repaired or skipped, in words for the user."""
    ended_mid_turn: bool = False
    compacted: bool = False
    synthetic: list[list[dict[str, Any]]] = field(default_factory=list)
    """Results made up by the repair, per assistant message: a resumed file gets them appended."""


def read_lines(path: Path) -> tuple[list[dict[str, Any]], int]:
    """The file's JSON objects, and how many lines could not be read (torn or not JSON)."""
    lines: list[dict[str, Any]] = []
    bad = 0
    with path.open(encoding="utf-8", errors="replace") as fh:
        for raw in fh:
            if not raw.strip():
                continue
            try:
                obj = json.loads(raw)
            except json.JSONDecodeError:
                bad += 1
                continue
            if isinstance(obj, dict):
                lines.append(obj)
            else:
                bad += 1
    return lines, bad


def _chain(lines: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], bool]:
    """The main conversation's lines in order, from the newest leaf back; and whether it was compacted."""
    by_uuid = {l["uuid"]: l for l in lines if isinstance(l.get("uuid"), str) and l.get("type") in CHAIN_TYPES}
    leaf = next((l for l in reversed(lines) if l.get("type") in ("user", "assistant", "attachment") and not l.get("isSidechain") and l.get("uuid") in by_uuid), None)
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    node = leaf
    compacted = False
    while node is not None and node["uuid"] not in seen:
        seen.add(node["uuid"])
        out.append(node)
        if node.get("type") == "system" and node.get("subtype") == "compact_boundary":
            compacted = True
            break
        parent = node.get("parentUuid")
        node = by_uuid.get(parent) if isinstance(parent, str) else None
    out.reverse()
    if compacted:
        out = _with_preserved(out, by_uuid)
    return out, compacted


def _with_preserved(chain: list[dict[str, Any]], by_uuid: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Claude Code keeps a few messages verbatim across a compaction: put them back after the summary."""
    meta = (chain[0].get("compactMetadata") or {}).get("preservedMessages") or {}
    anchor, uuids = meta.get("anchorUuid"), [u for u in meta.get("uuids") or [] if u in by_uuid]
    if not uuids or not anchor:
        return chain
    present = {l["uuid"] for l in chain}
    for i, line in enumerate(chain):
        if line["uuid"] == anchor:
            return chain[: i + 1] + [by_uuid[u] for u in uuids if u not in present] + chain[i + 1 :]
    return chain


def content_blocks(content: Any) -> list[dict[str, Any]]:
    """A message's content as blocks (a plain string is one text block)."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    return [b for b in content or [] if isinstance(b, dict) and b.get("type")]


def _memory_reminder(attachment: dict[str, Any]) -> dict[str, Any] | None:
    inner = attachment.get("content")
    text = inner.get("content") if isinstance(inner, dict) else inner
    path = attachment.get("path") or (inner.get("path") if isinstance(inner, dict) else "")
    if not isinstance(text, str):
        return None
    return {"type": "text", "text": f"<system-reminder>\nContents of {path}:\n\n{text}\n</system-reminder>"}


class _Builder:
    """Turns chain lines into API messages: merges per-block lines, places results, repairs."""

    def __init__(self, results: dict[str, dict[str, Any]], conv: Conversation) -> None:
        self.results = results
        self.conv = conv
        self.assistant_id: str | None = None

    def _push(self, role: str, blocks: list[dict[str, Any]], meta: dict[str, Any] | None = None, hidden: bool = False) -> None:
        conv = self.conv
        # Harness text (a reminder, an interrupt note) belongs to the message before it; a prompt after
        # a prompt stays its own message, as the agent's history has it.
        if conv.history and conv.history[-1]["role"] == role == "user" and hidden:
            last = conv.history[-1]
            last["content"] = content_blocks(last["content"]) + blocks
            conv.hidden[-1] = conv.hidden[-1] and hidden
            return
        conv.history.append({"role": role, "content": blocks})
        conv.metas.append(meta)
        conv.hidden.append(hidden)

    def close_assistant(self) -> None:
        """After an assistant message: its results, in tool_use order (synthesised where missing)."""
        if self.assistant_id is None:
            return
        self.assistant_id = None
        message = self.conv.history[-1]
        # A thinking block without its signature cannot be sent back: it was cut off.
        message["content"] = [b for b in message["content"] if b.get("type") != "thinking" or b.get("signature")]
        ids = [b["id"] for b in message["content"] if b.get("type") == "tool_use"]
        blocks = []
        for tool_id in ids:
            found = self.results.get(tool_id)
            if found is None:
                found = {"type": "tool_result", "tool_use_id": tool_id, "content": f"<tool_use_error>{CRASHED_TOOL}</tool_use_error>", "is_error": True}
                name = next(b["name"] for b in message["content"] if b.get("id") == tool_id)
                self.conv.repairs.append(f"{name} ({tool_id}) had no result: the session ended while it ran; it may have run partway.")
                self.conv.ended_mid_turn = True
            blocks.append(found)
        made = [b for b in blocks if b.get("tool_use_id") not in self.results]
        if made:
            self.conv.synthetic.append(made)
        if blocks:
            self._push("user", blocks)
        if not message["content"]:
            self.conv.history.pop(), self.conv.metas.pop(), self.conv.hidden.pop()
            self.conv.repairs.append("A reply cut off before its first complete block was dropped.")

    def add(self, line: dict[str, Any]) -> None:
        kind = line.get("type")
        if kind == "assistant":
            message = line.get("message") or {}
            blocks = content_blocks(message.get("content"))
            msg_id = message.get("id") or line.get("uuid")
            if self.assistant_id != msg_id:
                self.close_assistant()
                meta = {k: message.get(k) for k in ("id", "model", "stop_reason", "usage") if message.get(k) is not None}
                self._push("assistant", [], meta)
                self.assistant_id = msg_id
            self.conv.history[-1]["content"].extend(blocks)
            if message.get("model"):
                self.conv.model = message["model"]
            return
        self.close_assistant()
        if kind == "user":
            message = line.get("message") or {}
            content = message.get("content")
            if isinstance(content, str) and content.startswith(LOCAL_COMMAND_PREFIXES):
                return
            # Results were placed after their assistant message already.
            blocks = [b for b in content_blocks(content) if b.get("type") != "tool_result"]
            hidden = bool(line.get("isMeta")) and not line.get("isCompactSummary")
            if isinstance(content, str) and content and not hidden:
                self._push("user", [], hidden=hidden)
                self.conv.history[-1]["content"] = content  # a prompt stays the string it was
            elif blocks:
                self._push("user", blocks, hidden=hidden)
            if line.get("permissionMode"):
                self.conv.permission_mode = line["permissionMode"]
        elif kind == "attachment":
            attachment = line.get("attachment") or {}
            if attachment.get("type") == "nested_memory":
                block = _memory_reminder(attachment)
                if block is not None:
                    self._push("user", [block], hidden=True)


def _understood(line: dict[str, Any]) -> bool:
    """A message line must have Claude Code's message-line fields; others are judged by their type alone."""
    if line.get("type") not in ("user", "assistant"):
        return True
    try:
        MessageLine.model_validate(line)
    except ValidationError:
        return False
    return isinstance(line["message"].get("content"), (str, list))


def rebuild(lines: list[dict[str, Any]], bad_lines: int = 0) -> Conversation:
    """The conversation a file holds, made valid for the API (see the module's docstring)."""
    conv = Conversation()
    kept = [l for l in lines if _understood(l)]
    bad_lines += len(lines) - len(kept)
    lines = kept
    chain, conv.compacted = _chain(lines)
    results: dict[str, dict[str, Any]] = {}
    for line in lines:
        if line.get("type") == "user" and not line.get("isSidechain"):
            for block in content_blocks((line.get("message") or {}).get("content")):
                if block.get("type") == "tool_result" and isinstance(block.get("tool_use_id"), str):
                    results.setdefault(block["tool_use_id"], block)
        elif line.get("type") == "custom-title" and isinstance(line.get("customTitle"), str):
            conv.name = line["customTitle"]
        elif line.get("type") == "summary" and not conv.name and isinstance(line.get("summary"), str):
            conv.name = line["summary"]
        if not conv.session_id and isinstance(line.get("sessionId"), str):
            conv.session_id = line["sessionId"]
    apply_records(lines, results)
    builder = _Builder(results, conv)
    for line in chain:
        builder.add(line)
    builder.close_assistant()
    if chain:
        conv.leaf_uuid = chain[-1]["uuid"]
        conv.cwd = str(chain[-1].get("cwd") or "")
        conv.branch = str(chain[-1].get("gitBranch") or "")
    if bad_lines:
        conv.repairs.append(f"{bad_lines} unreadable line(s) skipped (a line cut off when the session ended, or not JSON).")
    if not conv.ended_mid_turn:
        conv.ended_mid_turn = _ended_mid_turn(lines, conv)
    if conv.compacted and len(conv.history) == 1 and (chain[0].get("compactMetadata") or {}).get("trigger") == "manual":
        conv.ended_mid_turn = False  # a /compact with no prompt after it: nothing was left unanswered
    return conv


def _ended_mid_turn(lines: list[dict[str, Any]], conv: Conversation) -> bool:
    """The last message is a prompt or tool results nobody answered (closed or killed mid-turn)."""
    if not conv.history or conv.history[-1]["role"] != "user":
        return False
    blocks = content_blocks(conv.history[-1]["content"])
    return not (blocks and blocks[-1].get("type") == "text" and blocks[-1].get("text", "").startswith("[Request interrupted"))


def load(path: Path) -> Conversation:
    lines, bad = read_lines(path)
    conv = rebuild(lines, bad)
    if not conv.session_id:
        conv.session_id = path.stem
    return conv
