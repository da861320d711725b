"""How many tokens the context holds: the last response's `usage`, plus an estimate of what was added since.

The API counts exactly, but only once a request is answered; between answers (tool results arriving,
a prompt typed) the difference is estimated cheaply: four characters a token for text and JSON, and
an image by its encoded size (base64 characters / 4, as the results budget weighs it) but never more
than `IMAGE_MAX_TOKENS`, what the API's largest resized image costs. The estimate errs on the high
side for code-like text, which is the safe side for a threshold.

`ContextMeter` keeps the last response's total and the history message it covers (by identity, so a
history that was replaced — a compaction, /clear, a resume — falls back to a full estimate).
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Mapping

CHARS_PER_TOKEN = 4
IMAGE_MAX_TOKENS = 1_600


def text_tokens(text: str) -> int:
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


def block_tokens(block: Mapping[str, Any]) -> int:
    """One content block: text, thinking, a tool call's input, a result (recursively), an image."""
    kind = block.get("type")
    if kind == "text":
        return text_tokens(str(block.get("text", "")))
    if kind == "image":
        data = (block.get("source") or {}).get("data", "")
        return min(IMAGE_MAX_TOKENS, text_tokens(data)) if isinstance(data, str) and data else IMAGE_MAX_TOKENS
    if kind == "thinking":
        return text_tokens(str(block.get("thinking", ""))) + text_tokens(str(block.get("signature", "")))
    if kind == "redacted_thinking":
        return text_tokens(str(block.get("data", "")))
    if kind == "tool_use":
        return text_tokens(str(block.get("name", ""))) + text_tokens(json.dumps(block.get("input", {}), ensure_ascii=False))
    if kind == "tool_result":
        content = block.get("content", "")
        return 4 + (text_tokens(content) if isinstance(content, str) else content_tokens(content))
    return text_tokens(json.dumps(block, ensure_ascii=False, default=str))


def content_tokens(content: str | Iterable[Mapping[str, Any]]) -> int:
    if isinstance(content, str):
        return text_tokens(content)
    return sum(block_tokens(b) for b in content)


def message_tokens(message: Mapping[str, Any]) -> int:
    """One history message, with a few tokens for its role framing."""
    return 4 + content_tokens(message.get("content", ""))


def messages_tokens(messages: Iterable[Mapping[str, Any]]) -> int:
    return sum(message_tokens(m) for m in messages)


def request_tokens(request: Mapping[str, Any]) -> int:
    """A whole request: system prompt, tool definitions, messages."""
    system = request.get("system") or []
    total = content_tokens(system) if not isinstance(system, str) else text_tokens(system)
    tools = request.get("tools") or []
    if tools:
        total += text_tokens(json.dumps(tools, ensure_ascii=False, default=str))
    return total + messages_tokens(request.get("messages") or [])


def usage_tokens(usage: Mapping[str, Any]) -> int:
    """The context one response occupied: input + cache read + cache creation + output tokens."""
    keys = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens", "output_tokens")
    return sum(int(usage.get(k) or 0) for k in keys)


class ContextMeter:
    """The context size of the conversation now (tokens): `observe` each response, `used` before a request."""

    def __init__(self) -> None:
        self._known = 0
        self._anchor: object | None = None
        """The history message the known total ends with (the response's own message)."""

    def observe(self, usage: Mapping[str, Any], last_message: object | None) -> None:
        """A response arrived with `usage`; `last_message` is the history's last message now."""
        total = usage_tokens(usage)
        if total > 0:
            self._known, self._anchor = total, last_message

    def reset(self) -> None:
        """The history changed under the known total (compaction, pruning, /clear): estimate anew."""
        self._known, self._anchor = 0, None

    def used(self, history: list[dict[str, Any]], overhead: int = 0) -> int:
        """Known total + estimate of the messages after it; without a known total, `overhead` (system
        prompt, tools, memory) + an estimate of the whole history."""
        if self._anchor is not None:
            for i in range(len(history) - 1, -1, -1):
                if history[i] is self._anchor:
                    return self._known + messages_tokens(history[i + 1 :])
        return overhead + messages_tokens(history)
