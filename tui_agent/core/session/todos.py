"""The todo list a saved conversation ended with: a resumed session starts from it (the next TodoWrite's
`oldTodos`, compaction's carried list, the app's todo panel)."""

from __future__ import annotations

from typing import Any, Iterable

from .reader import content_blocks

TOOL = "TodoWrite"


def last_todo_list(history: Iterable[dict[str, Any]]) -> list[Any] | None:
    """The `todos` of the last TodoWrite that got a result that is not an error (a denied or invalid call
    changed nothing), as the model wrote it; None when there is none."""
    messages = list(history)
    answered: set[str] = set()
    failed: set[str] = set()
    for message in messages:
        if message.get("role") != "user":
            continue
        for block in content_blocks(message.get("content")):
            if block.get("type") == "tool_result":
                answered.add(str(block.get("tool_use_id", "")))
                if block.get("is_error"):
                    failed.add(str(block.get("tool_use_id", "")))
    for message in reversed(messages):
        if message.get("role") != "assistant":
            continue
        for block in reversed(content_blocks(message.get("content"))):
            if block.get("type") != "tool_use" or block.get("name") != TOOL:
                continue
            tool_id = str(block.get("id", ""))
            if tool_id not in answered or tool_id in failed:
                continue
            data = block.get("input")
            todos = data.get("todos") if isinstance(data, dict) else None
            if isinstance(todos, list):
                return todos
    return None
