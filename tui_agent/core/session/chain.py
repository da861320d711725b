"""Which lines of a transcript are the conversation: the `parentUuid` chain from the newest leaf back to the
start, or to a compaction boundary (whose summary then opens the conversation).

Lines are checked first (sanitize.py), so every field read here has its type. On the way:
- lines that are not part of the conversation but sit in the chain are linked around, as Claude Code's loader
  does: Claude Code 2.1.x up to about 2.1.9x chained its `progress` lines (hook runs, shell output, subagent
  steps) between messages; a line whose parent is such a line takes that line's parent instead. Claude Code's
  chain members are `user`, `assistant`, `attachment` and `system`; everything else with a uuid is linked
  around, whatever the order in the file;
- a parent that is not in the file at all (a line lost to a crash or an edit) is replaced by the line before
  it in the file, as Claude Code falls back to the nearest earlier line by time; each such join is counted;
- blocks of a chain message that sit off the chain (a text block after a tool_use whose results hang from
  the tool_use's line) are put back after the message's last line on the chain;
- messages Claude Code keeps verbatim across a compaction are put back after the summary.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

CHAIN_TYPES = frozenset({"user", "assistant", "attachment", "system"})
LEAF_TYPES = frozenset({"user", "assistant", "attachment"})


@dataclass(slots=True)
class Chain:
    lines: list[dict[str, Any]] = field(default_factory=list)
    compacted: bool = False
    """The chain starts at a compaction boundary."""
    joined: int = 0
    """Missing parents replaced by the line before in the file."""


def is_boundary(line: dict[str, Any]) -> bool:
    return line.get("type") == "system" and line.get("subtype") == "compact_boundary"


def conversation_chain(lines: list[dict[str, Any]]) -> Chain:
    """The main conversation's lines in order (see the module's docstring)."""
    # Only lines with a real uuid: a damaged line's `"uuid": null` must not make every uuid-less line (a title,
    # a queue operation) look like part of the chain.
    by_uuid = {l["uuid"]: l for l in lines if isinstance(l.get("uuid"), str) and l["type"] in CHAIN_TYPES}
    around = {l["uuid"]: l.get("parentUuid") for l in lines if isinstance(l.get("uuid"), str) and l["type"] not in CHAIN_TYPES}
    main = [l for l in lines if l.get("uuid") in by_uuid and not l.get("isSidechain")]
    position = {id(l): i for i, l in enumerate(main)}
    leaf = _newest_leaf(main, by_uuid, around)
    chain = Chain()
    seen: set[str] = set()
    node = leaf
    while node is not None and node["uuid"] not in seen:
        seen.add(node["uuid"])
        chain.lines.append(node)
        if is_boundary(node):
            chain.compacted = True
            break
        parent = resolved_parent(node, around)
        node = by_uuid.get(parent) if parent is not None else None
        if parent is not None and node is None:
            node = _line_before(main, position.get(id(chain.lines[-1]), 0), seen)
            chain.joined += node is not None
    chain.lines.reverse()
    if chain.compacted:
        chain.lines = _with_preserved(chain.lines, by_uuid)
    chain.lines = _with_message_siblings(chain.lines, lines, around)
    return chain


REWIND = "rewind"
"""Our `system` fact's subtype when the conversation was rewound (core/session/rewind.py): its parent is where
the conversation now ends, until a newer message hangs from there."""


def is_rewind(line: dict[str, Any]) -> bool:
    data = line.get("data")
    return line.get("type") == "system" and isinstance(data, dict) and data.get("subtype") == REWIND


def _newest_leaf(main: list[dict[str, Any]], by_uuid: dict[str, dict[str, Any]], around: dict[str, Any]) -> dict[str, Any] | None:
    """The newest message, unless a rewind came after it: then the line the rewind went back to (None: to
    before the first prompt)."""
    for line in reversed(main):
        if line["type"] in LEAF_TYPES:
            return line
        if is_rewind(line):
            parent = resolved_parent(line, around)
            return by_uuid.get(parent) if parent is not None else None
    return None


def resolved_parent(line: dict[str, Any], around: dict[str, Any]) -> str | None:
    """The line's parent, past any chain of lines that are not part of the conversation."""
    parent = line.get("parentUuid")
    passed: set[str] = set()
    while parent in around and parent not in passed:
        passed.add(parent)
        parent = around[parent]
    return parent if isinstance(parent, str) else None


def _line_before(main: list[dict[str, Any]], index: int, seen: set[str]) -> dict[str, Any] | None:
    for line in reversed(main[:index]):
        if line["uuid"] not in seen:
            return line
    return None


def _message_id(line: dict[str, Any]) -> str | None:
    if line.get("type") != "assistant":
        return None
    msg_id = line["message"].get("id")
    return msg_id if isinstance(msg_id, str) and msg_id else None


def _with_message_siblings(chain: list[dict[str, Any]], lines: list[dict[str, Any]], around: dict[str, Any]) -> list[dict[str, Any]]:
    """Blocks of a chain message that sit off the chain: a line of the same `message.id` hanging from a
    line of that message (a text block after a tool_use, when the results hang from the tool_use's
    line). Kept in file order, which is block order."""
    on_chain = {l["uuid"] for l in chain}
    members: dict[str, set[str]] = {}
    for line in chain:
        msg_id = _message_id(line)
        if msg_id is not None:
            members.setdefault(msg_id, set()).add(line["uuid"])
    if not members:
        return chain
    extra: dict[str, list[dict[str, Any]]] = {}
    for line in lines:
        msg_id = _message_id(line)
        if msg_id is None or line.get("isSidechain") or line["uuid"] in on_chain or msg_id not in members:
            continue
        if resolved_parent(line, around) in members[msg_id]:
            members[msg_id].add(line["uuid"])
            extra.setdefault(msg_id, []).append(line)
    if not extra:
        return chain
    out: list[dict[str, Any]] = []
    for i, line in enumerate(chain):
        out.append(line)
        msg_id = _message_id(line)
        last_of_message = msg_id is not None and (i + 1 == len(chain) or _message_id(chain[i + 1]) != msg_id)
        if last_of_message and msg_id in extra:
            out.extend(extra.pop(msg_id))
    return out


def _with_preserved(chain: list[dict[str, Any]], by_uuid: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Claude Code keeps a few messages verbatim across a compaction: put them back after the summary."""
    meta = chain[0].get("compactMetadata") or {}
    kept = meta.get("preservedMessages")
    if not isinstance(kept, dict) or not isinstance(kept.get("uuids"), list):
        return chain
    anchor = kept.get("anchorUuid")
    uuids = [u for u in kept["uuids"] if isinstance(u, str) and u in by_uuid]
    if not uuids or not isinstance(anchor, str):
        return chain
    present = {l["uuid"] for l in chain}
    for i, line in enumerate(chain):
        if line["uuid"] == anchor:
            return chain[: i + 1] + [by_uuid[u] for u in uuids if u not in present] + chain[i + 1 :]
    return chain
