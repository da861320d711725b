"""The estimate of a whole request (core/context/tokens.request_tokens) counts its system prompt, a string or
blocks, its tool definitions and its messages: what compaction and the /context report compare with the
window. Found by mutation testing (docs/testing/mutation.md)."""

from __future__ import annotations

import json

from tui_agent.core.context.tokens import messages_tokens, request_tokens, text_tokens

SYSTEM = "You are a coding agent. " * 40
TOOLS = [{"name": "Read", "description": "Read a file. " * 30, "input_schema": {"type": "object", "properties": {}}}]
MESSAGES = [{"role": "user", "content": "hello there " * 20}]


def test_a_string_system_prompt_the_tools_and_the_messages_all_count() -> None:
    tools = text_tokens(json.dumps(TOOLS, ensure_ascii=False))
    assert request_tokens({"system": SYSTEM, "messages": MESSAGES}) == text_tokens(SYSTEM) + messages_tokens(MESSAGES)
    assert request_tokens({"system": SYSTEM, "tools": TOOLS, "messages": MESSAGES}) == (
        text_tokens(SYSTEM) + tools + messages_tokens(MESSAGES))


def test_a_system_prompt_in_blocks_counts_each_block() -> None:
    blocks = [{"type": "text", "text": SYSTEM}, {"type": "text", "text": "Be brief."}]
    assert request_tokens({"system": blocks}) == text_tokens(SYSTEM) + text_tokens("Be brief.")
    assert request_tokens({}) == 0
