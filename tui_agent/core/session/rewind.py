"""Rewinding the conversation to before one of its prompts (the app's Esc Esc and /rewind; no Textual).

Which prompts can be gone back to is read from the transcript itself, so the list is the conversation a
resume would show: the prompts on the current `parentUuid` chain (chain.py), newest last. Prompts that a
compaction summarised are listed too, marked: their code can still be restored (the checkpoint store keeps
it), their conversation cannot (the summary replaced it, as in Claude Code, which lists only what follows).

A rewind forks as Claude Code does: the next line hangs from the line before the rewound prompt, so the
rewound lines stay in the file as a dead branch that no resume follows (Session.rewind_to also writes a
fact that says so until a new message comes). The history the model sees next is the file's conversation
read back, exactly what `--resume` would give.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ...tools.base import FileReadState
from ..shell_mode import parse_input
from .chain import conversation_chain, is_boundary
from .reader import LOCAL_COMMAND_PREFIXES, Conversation, content_blocks, load, read_lines
from .sanitize import clean_lines
from .writer import HARNESS_PREFIXES


@dataclass(frozen=True, slots=True)
class PromptPoint:
    """A prompt the conversation (or its code) can be rewound to: the state just before it was sent."""

    uuid: str
    """Its transcript line's uuid (the checkpoint store's key)."""
    text: str
    """What the user typed (its text blocks), put back in the input box by a rewind."""
    timestamp: float | None
    """When it was sent (seconds since the epoch), if the line says."""
    parent: str | None
    """The line the conversation ends with after a rewind to it (None: nothing before it)."""
    in_conversation: bool = True
    """False: a compaction summarised it; only its code can be restored."""


class CannotRewind(Exception):
    """The conversation cannot go back to this prompt (the message says why, for the user)."""


def prompt_text(content: Any) -> str:
    """A prompt's words: its text blocks, harness reminders left out; a `!` command as it was typed (its
    output and Claude Code's caveat are not words the user typed)."""
    if isinstance(content, str):
        return content
    texts = []
    for block in content_blocks(content):
        text = block.get("text", "") if block["type"] == "text" else ""
        command = parse_input(text)
        if command is not None:
            texts.append("!" + command)
        elif text and not text.startswith(HARNESS_PREFIXES + _NOT_TYPED):
            texts.append(text)
    return "\n".join(texts)


_NOT_TYPED = ("<bash-stdout>", "<local-command-caveat>")


def is_prompt_line(line: dict[str, Any]) -> bool:
    """A prompt the user sent: a main-chain user line with words, not results, a reminder or a summary."""
    if line.get("type") != "user" or line.get("isSidechain") or line.get("isMeta") or line.get("isCompactSummary"):
        return False
    content = line["message"].get("content")
    if isinstance(content, str):
        return bool(content.strip()) and not content.startswith(LOCAL_COMMAND_PREFIXES)
    blocks = content_blocks(content)
    return not any(b["type"] == "tool_result" for b in blocks) and bool(prompt_text(blocks).strip())


def prompt_points(lines: list[dict[str, Any]]) -> list[PromptPoint]:
    """The prompts a rewind can go back to, oldest first (see the module's docstring)."""
    lines = clean_lines(lines).lines
    chain = conversation_chain(lines)
    points = [_point(line, True) for line in chain.lines if is_prompt_line(line)]
    if chain.compacted and chain.lines:
        points[:0] = [_point(line, False) for line in _compacted_prompts(lines, chain.lines[0])]
    return points


def _point(line: dict[str, Any], in_conversation: bool) -> PromptPoint:
    parent = line.get("parentUuid")
    return PromptPoint(line["uuid"], prompt_text(line["message"]["content"]), _epoch(line.get("timestamp")),
                       parent if isinstance(parent, str) else None, in_conversation)


def _compacted_prompts(lines: list[dict[str, Any]], boundary: dict[str, Any]) -> list[dict[str, Any]]:
    """The prompts before a compaction: back from the boundary's logical parent, through earlier boundaries."""
    by_uuid = {l["uuid"]: l for l in lines if isinstance(l.get("uuid"), str) and not l.get("isSidechain")}
    found: list[dict[str, Any]] = []
    seen: set[str] = set()
    node = by_uuid.get(boundary.get("logicalParentUuid") or "")
    while node is not None and node["uuid"] not in seen:
        seen.add(node["uuid"])
        if is_prompt_line(node):
            found.append(node)
        parent = node.get("logicalParentUuid") if is_boundary(node) else node.get("parentUuid")
        node = by_uuid.get(parent) if isinstance(parent, str) else None
    found.reverse()
    return found


def _epoch(stamp: Any) -> float | None:
    if not isinstance(stamp, str):
        return None
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def session_points(agent: Any) -> list[PromptPoint]:
    """This session's prompts, oldest first, read from its transcript."""
    path = agent.session.transcript_path
    if not path.exists():
        return []
    lines, _bad = read_lines(path)
    return prompt_points(lines)


def rewind_conversation(agent: Any, point: PromptPoint) -> Conversation:
    """Fork the conversation just before `point`: the transcript's next line hangs from the line before it,
    and the agent's history becomes what a resume of the file now gives. Call it on the core's thread, with
    no run in flight. Raises CannotRewind."""
    if agent.running:
        raise CannotRewind("The agent is working: stop it (Esc) before rewinding.")
    if not point.in_conversation:
        raise CannotRewind("That prompt is before the last compaction: its conversation was replaced by the "
                           "summary and cannot be restored (its code can).")
    if point.uuid not in {p.uuid for p in session_points(agent) if p.in_conversation}:
        raise CannotRewind("That prompt is no longer in the conversation.")
    session = agent.session
    session.rewind_to(point.parent, point.uuid)
    conv = load(session.transcript_path)
    agent.history[:] = conv.history
    # What the model read after the point is no longer in its history: an edit must read its file again.
    agent.context.read_state = FileReadState()
    agent.context_manager.meter.reset()  # its last known size was of the longer history
    return conv
