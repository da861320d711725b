"""Scripted conversations for the context tests: a model that reports `usage` near the window and
answers summary requests with a summary."""

from __future__ import annotations

import json
from typing import Any, Callable

from tui_agent.core.context.summary import CUSTOM_HEADER, SUMMARY_INSTRUCTION
from tui_agent.providers.scripted import Reply, Step, Text, ToolUse

SUMMARY = "1. Primary Request and Intent: the user wants the widget fixed.\n8. Current Work: editing widget.py"


def request_texts(body: dict[str, Any]) -> list[str]:
    out = []
    for message in body.get("messages", []):
        content = message["content"]
        if isinstance(content, str):
            out.append(content)
        else:
            out.extend(b.get("text", "") if b.get("type") == "text" else json.dumps(b) for b in content)
    return out


def is_summary_request(body: dict[str, Any]) -> bool:
    last = body["messages"][-1]
    content = last["content"]
    return last["role"] == "user" and not isinstance(content, str) and content[-1].get("text", "").startswith(SUMMARY_INSTRUCTION[:40])


def custom_instructions(body: dict[str, Any]) -> str:
    text = body["messages"][-1]["content"][-1]["text"]
    return text.split(CUSTOM_HEADER, 1)[1].split("\n\n")[0].strip() if CUSTOM_HEADER in text else ""


def summary_reply(summary: str = SUMMARY, **kw: Any) -> Reply:
    return Reply([Text(f"<analysis>went through it</analysis>\n<summary>\n{summary}\n</summary>")], input_tokens=kw.pop("input_tokens", 3_000), output_tokens=400, **kw)


def conversation(turns: list[Step], *, summary: Callable[[dict[str, Any], int], Step] | None = None) -> tuple[Callable[[dict[str, Any], int], Step], dict[str, list[dict[str, Any]]]]:
    """A handler: summary requests get `summary(body, n)` (a summary by default), other requests the
    next of `turns`. `seen["turns"]` and `seen["summaries"]` keep the bodies of each kind."""
    seen: dict[str, list[dict[str, Any]]] = {"turns": [], "summaries": []}

    def handler(body: dict[str, Any], index: int) -> Step:
        if is_summary_request(body):
            seen["summaries"].append(body)
            return summary(body, len(seen["summaries"]) - 1) if summary else summary_reply()
        seen["turns"].append(body)
        n = len(seen["turns"]) - 1
        return turns[n] if n < len(turns) else Reply([Text(f"(no turn #{n + 1})")])

    return handler, seen


def read_turn(text: str, tokens: int, tool_id: str | None = None) -> Reply:
    """A response calling SleepRead (returning `text`) whose usage says the context holds `tokens`."""
    return Reply([ToolUse("SleepRead", {"text": text}, id=tool_id)], input_tokens=tokens, output_tokens=50)
