"""What a transcript line may hold, checked once before anything reads it.

Session files come from every Claude Code version, from us, from a crash mid-write and from people's
editors. The reader trusts only what passes here, so nothing it reads can raise: a field of the wrong type
is left out as if absent (None counts as absent), a content block the API would refuse is left out, and a
line that cannot be used at all (no type; a message line without a message or an id) is dropped. Each
left-out part is counted so the resume can say so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

_NONE = type(None)
LINE_FIELDS: dict[str, tuple[type, ...]] = {
    "uuid": (str,), "parentUuid": (str,), "logicalParentUuid": (str,), "sessionId": (str,), "timestamp": (str,),
    "cwd": (str,), "gitBranch": (str,), "subtype": (str,), "permissionMode": (str,), "customTitle": (str,),
    "summary": (str,), "leafUuid": (str,), "sourceToolAssistantUUID": (str,),
    "isSidechain": (bool,), "isMeta": (bool,), "isCompactSummary": (bool,), "isVisibleInTranscriptOnly": (bool,),
    "isApiErrorMessage": (bool,),
    "message": (dict,), "attachment": (dict,), "compactMetadata": (dict,), "data": (dict,), "tuiAgentTool": (dict,),
}
"""The line fields the reader looks at, with the types they may have."""
MESSAGE_FIELDS: dict[str, tuple[type, ...]] = {"id": (str,), "model": (str,), "role": (str,), "stop_reason": (str,), "usage": (dict,)}
_ID = ("id", "name")
BLOCK_FIELDS: dict[str, dict[str, tuple[type, ...]]] = {
    "text": {"text": (str,)},
    "image": {"source": (dict,)},
    "document": {"source": (dict,)},
    "search_result": {"source": (str,), "title": (str,), "content": (list,)},
    "thinking": {"thinking": (str,), "signature": (str,)},
    "redacted_thinking": {"data": (str,)},
    "tool_use": {"id": (str,), "name": (str,), "input": (dict,)},
    "server_tool_use": {"id": (str,), "name": (str,), "input": (dict,)},
    "mcp_tool_use": {"id": (str,), "name": (str,), "input": (dict,)},
    "tool_result": {"tool_use_id": (str,)},
    "tool_reference": {"tool_name": (str,)},
}
"""Per block type, the fields it must have and their types (the API's own block shapes). The API's server
tools' result blocks (`*_tool_result`) need only their `tool_use_id`."""
RESULT_CONTENT = frozenset({"text", "image", "document", "search_result", "tool_reference"})
"""What a tool_result's content list (and a queued prompt) may hold; ToolSearch answers with `tool_reference`."""


@dataclass(slots=True)
class Cleaned:
    lines: list[dict[str, Any]]
    unreadable: int = 0
    """Lines dropped whole."""
    damaged: int = 0
    """Fields and blocks left out of the lines kept."""


def clean_lines(lines: list[Any]) -> Cleaned:
    """The lines the reader may trust (see the module's docstring)."""
    out = Cleaned([])
    for line in lines:
        cleaned = clean_line(line, out)
        if cleaned is None:
            out.unreadable += 1
        else:
            out.lines.append(cleaned)
    return out


def clean_line(line: Any, count: Cleaned) -> dict[str, Any] | None:
    if not isinstance(line, dict) or not isinstance(line.get("type"), str) or not line["type"]:
        return None
    out = dict(line)
    for key, types in LINE_FIELDS.items():
        if key in out and out[key] is not None and type(out[key]) not in types:
            del out[key]
            count.damaged += 1
    if out.get("parentUuid") == "":
        out["parentUuid"] = None  # Claude Code treats an empty parent as none
    if out["type"] in ("user", "assistant"):
        message = out.get("message")
        if not isinstance(out.get("uuid"), str) or not out["uuid"] or not isinstance(message, dict):
            return None
        cleaned = clean_message(message, count)
        if cleaned is None:
            return None
        out["message"] = cleaned
    elif out["type"] == "attachment" and isinstance(out.get("attachment"), dict):
        if not isinstance(out["attachment"].get("type"), str):
            del out["attachment"]
            count.damaged += 1
    return out


def clean_message(message: dict[str, Any], count: Cleaned) -> dict[str, Any] | None:
    """A message whose content is a string or a list of blocks the API accepts (None when neither)."""
    content = message.get("content")
    if not isinstance(content, (str, list)):
        return None
    out = {k: v for k, v in message.items() if k not in MESSAGE_FIELDS or v is None or type(v) in MESSAGE_FIELDS[k]}
    count.damaged += len(message) - len(out)
    out["content"] = content if isinstance(content, str) else clean_blocks(content, count)
    return out


def clean_blocks(blocks: list[Any], count: Cleaned, allowed: frozenset[str] | None = None) -> list[dict[str, Any]]:
    """The blocks with every field they need, of its type; the others are left out and counted."""
    out = []
    for block in blocks:
        cleaned = _block(block, count) if isinstance(block, dict) else None
        if cleaned is not None and (allowed is None or cleaned["type"] in allowed):
            out.append(cleaned)
        elif not _blank_text(block):  # not damage: the API refuses a text block of only whitespace (Claude Code drops it too)
            count.damaged += 1
    return out


def _block(block: dict[str, Any], count: Cleaned) -> dict[str, Any] | None:
    kind = block.get("type")
    if not isinstance(kind, str):
        return None
    needs = BLOCK_FIELDS.get(kind)
    if needs is None:
        # The API's server tools answer in blocks of their own; anything else it would refuse.
        return dict(block) if kind.endswith("_tool_result") and _text(block.get("tool_use_id")) else None
    for field, types in needs.items():
        if type(block.get(field)) not in types:
            return None
    if any(not _text(block.get(key)) for key in _ID if key in needs):
        return None
    if _blank_text(block):
        return None
    if kind != "tool_result":
        return dict(block)
    out = dict(block)
    for key, types in (("is_error", (bool,)), ("content", (str, list))):
        if key in out and type(out[key]) not in types:
            count.damaged += out.pop(key) is not None  # a null is only absent, the API refuses it all the same
    if "content" in out and isinstance(out["content"], list):
        out["content"] = clean_blocks(out["content"], count, RESULT_CONTENT)
    return out


def _blank_text(block: Any) -> bool:
    return isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str) and not block["text"].strip()


def _text(value: Any) -> bool:
    return isinstance(value, str) and bool(value)
