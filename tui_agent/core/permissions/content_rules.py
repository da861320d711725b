"""Rules whose specifier is a tool's own "rule content", e.g. `WebFetch(domain:example.com)`.

A tool that has one says so with `rule_content(input)`; a rule `Tool(content)` then matches that call
exactly, and "allow" offers that rule.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .rules import Rule


@dataclass(frozen=True, slots=True)
class ContentItem:
    """A call checked by its rule content (`domain:example.com`)."""

    content: str


def content_item(tool: Any, tool_input: Any) -> ContentItem | None:
    get = getattr(tool, "rule_content", None)
    content = get(tool_input) if callable(get) else None
    return ContentItem(content) if content else None


def content_rule_applies(rule: Rule, item: ContentItem, tool_name: str) -> bool:
    return rule.tool == tool_name and rule.specifier is not None and rule.specifier.strip() == item.content


def content_suggestion(tool_name: str, item: ContentItem) -> str:
    return f"{tool_name}({item.content})"
