"""The conversation history and its rules: what the API accepts, and how a turn's results are built.

The API's rules (checked by `history_problems`, kept by construction in `results_message`):
- once consecutive messages of one role are merged, roles alternate, starting with a user message;
- an assistant message is never empty;
- every tool_use of an assistant message has exactly one tool_result in the very next user message,
  the results come first there and in tool_use order;
- no tool_result answers a tool_use that is not in the message just before it.
"""

from __future__ import annotations

from typing import Any, Callable

from ..tools.validation import tool_use_error

INTERRUPT_NOTE = "[Request interrupted by user]"


def blocks_of(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message["content"]
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content)


def merged(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Consecutive messages of one role as one message (what the API sees)."""
    out: list[dict[str, Any]] = []
    for msg in history:
        blocks = blocks_of(msg)
        if out and out[-1]["role"] == msg["role"]:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": msg["role"], "content": blocks})
    return out


def normalize_for_api(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Merge consecutive messages of one role (an interrupt note followed by the next prompt) and put
    a cache breakpoint on the last block. The history itself is never changed."""
    out = merged(history)
    if out and out[-1]["content"]:
        last = out[-1]["content"]
        last[-1] = {**last[-1], "cache_control": {"type": "ephemeral"}}
    return out


def last_text(message: dict[str, Any] | None) -> str:
    if not message:
        return ""
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content or [] if b.get("type") == "text")


def tool_use_ids(message: dict[str, Any] | None) -> list[str]:
    if not message or message.get("role") != "assistant" or isinstance(message.get("content"), str):
        return []
    return [b["id"] for b in message["content"] if b.get("type") == "tool_use"]


def results_message(
    assistant: dict[str, Any] | None,
    results: list[dict[str, Any]],
    notes: list[str] = (),  # type: ignore[assignment]
    missing: str = "Interrupted by user (the tool did not run)",
) -> dict[str, Any]:
    """The user message answering `assistant`: exactly one result per tool_use, in its order (a result
    without its tool_use is dropped; a tool_use without a result gets an is_error one), then notes."""
    by_id = {r.get("tool_use_id"): r for r in results}
    blocks: list[dict[str, Any]] = []
    for tool_id in tool_use_ids(assistant):
        found = by_id.get(tool_id)
        blocks.append(found if found is not None else {
            "type": "tool_result", "tool_use_id": tool_id, "content": tool_use_error(missing), "is_error": True,
        })
    blocks.extend({"type": "text", "text": note} for note in notes)
    return {"role": "user", "content": blocks}


def repair_message(
    history: list[dict[str, Any]], why: str, known: Callable[[str], dict[str, Any] | None] = lambda _id: None,
) -> dict[str, Any] | None:
    """After an unexpected failure: the results message the last assistant message still lacks
    (`known`: a result that exists already for a tool_use id, e.g. on disk as its tool ended)."""
    if not history or history[-1]["role"] != "assistant" or not tool_use_ids(history[-1]):
        return None
    found = [r for r in (known(i) for i in tool_use_ids(history[-1])) if r is not None]
    return results_message(history[-1], found, missing=why)


def history_problems(history: list[dict[str, Any]]) -> list[str]:
    """Every way `history` breaks the API's rules (empty when the API would accept it)."""
    problems: list[str] = []
    msgs = merged(history)
    if not msgs:
        return ["the history is empty"]
    if msgs[0]["role"] != "user":
        problems.append("the history does not start with a user message")
    for i, msg in enumerate(msgs):
        content = msg["content"]
        if msg["role"] == "assistant":
            if not content:
                problems.append(f"message {i}: an empty assistant message")
            ids = [b.get("id") for b in content if b.get("type") == "tool_use"]
            if len(set(ids)) != len(ids):
                problems.append(f"message {i}: a tool_use id repeats")
            if not ids:
                continue
            if i + 1 >= len(msgs):
                problems.append(f"message {i}: tool_use without a following user message")
                continue
            nxt = msgs[i + 1]["content"]
            results = [b for b in nxt if b.get("type") == "tool_result"]
            if [b.get("tool_use_id") for b in results] != ids:
                problems.append(f"message {i + 1}: results {[b.get('tool_use_id') for b in results]} do not answer {ids} in order")
            if nxt[: len(results)] != results:
                problems.append(f"message {i + 1}: tool_result blocks do not come first")
        else:
            before = msgs[i - 1]["content"] if i > 0 else []
            asked = {b.get("id") for b in before if b.get("type") == "tool_use"}
            for b in content:
                if b.get("type") == "tool_result" and b.get("tool_use_id") not in asked:
                    problems.append(f"message {i}: tool_result {b.get('tool_use_id')} answers no tool_use of the message before")
    return problems
