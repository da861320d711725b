"""What fills the context: Claude Code's `/context` as data, computed from the request as it would be sent.

Categories (tokens estimated by `tokens.py`, the same estimator as the meter): the system prompt, the
built-in tool definitions, MCP tool definitions (deferred ones cost only their name), memory files,
the messages (prompts, answers, tool calls) and the tool results; then the free space and the
autocompact buffer (the window above the compaction threshold). The largest items are named: each
memory file, the largest MCP tools, and the largest tool results with their tool and what they were
about (a path, a command, a pattern, a URL).

A pure function of its inputs, so the app, `-p "/context"` and tests compute the same thing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from .tokens import block_tokens, content_tokens, message_tokens, text_tokens
from .window import Thresholds

LARGEST = 5
MCP_PREFIX = "mcp__"
# The input keys that say what a call was about, in order of preference.
_SUBJECT_KEYS = ("file_path", "notebook_path", "path", "command", "pattern", "url", "query", "description", "prompt")


@dataclass(frozen=True, slots=True)
class Item:
    """One named thing in the context."""

    name: str
    tokens: int
    detail: str = ""


@dataclass(frozen=True, slots=True)
class Category:
    name: str
    tokens: int
    items: tuple[Item, ...] = ()
    deferred: int = 0
    """Tools sent only by name (loaded on demand), not counted in `tokens`."""


@dataclass(frozen=True, slots=True)
class ContextBreakdown:
    model: str
    window: int
    threshold: int
    auto_compact: bool
    used: int
    """The meter's figure (the last response's usage plus an estimate since), or the estimate's sum."""
    categories: tuple[Category, ...]
    largest_results: tuple[Item, ...] = field(default_factory=tuple)

    @property
    def estimated(self) -> int:
        return sum(c.tokens for c in self.categories)

    @property
    def buffer(self) -> int:
        """The autocompact buffer: the part of the window compaction keeps free."""
        return max(0, self.window - self.threshold) if self.auto_compact else 0

    @property
    def free(self) -> int:
        return max(0, self.window - self.used - self.buffer)

    def share(self, tokens: int) -> float:
        return tokens / self.window if self.window > 0 else 0.0

    def as_sdk(self) -> dict[str, Any]:
        """The shape of claude-agent-sdk's `get_context_usage()` answer (the parts we have)."""
        categories = [{"name": c.name, "tokens": c.tokens} for c in self.categories]
        categories.append({"name": "Free space", "tokens": self.free})
        if self.auto_compact:
            categories.append({"name": "Autocompact buffer", "tokens": self.buffer})
        return {
            "categories": categories,
            "totalTokens": self.used,
            "maxTokens": self.threshold if self.auto_compact else self.window,
            "rawMaxTokens": self.window,
            "percentage": round(100 * self.share(self.used), 1),
            "model": self.model,
            "isAutoCompactEnabled": self.auto_compact,
            "autoCompactThreshold": self.threshold,
        }


def shorten(text: str, room: int) -> str:
    """`text` in at most `room` characters: a path keeps its end (the file's name), anything else its start."""
    if len(text) <= room:
        return text
    if text.startswith(("/", "~")) or (len(text) > 2 and text[1] == ":" and text[2] in "\\/"):
        return "…" + text[len(text) - room + 1 :]
    return text[: room - 1] + "…"


def subject(tool_input: Mapping[str, Any] | None) -> str:
    """What a call was about, in one short line (its path, command, pattern...)."""
    for key in _SUBJECT_KEYS:
        value = (tool_input or {}).get(key)
        if isinstance(value, str) and value.strip():
            return shorten(value.strip().splitlines()[0], 80)
    return ""


def _tool_tokens(definition: Mapping[str, Any]) -> int:
    if definition.get("defer_loading"):
        return 0
    return text_tokens(json.dumps(definition, ensure_ascii=False, default=str))


def _tools(definitions: Iterable[Mapping[str, Any]]) -> tuple[Category, Category]:
    builtin: list[Item] = []
    mcp: list[Item] = []
    deferred = 0
    for d in definitions:
        name = str(d.get("name", d.get("type", "?")))
        item = Item(name, _tool_tokens(d))
        if name.startswith(MCP_PREFIX):
            deferred += bool(d.get("defer_loading"))
            mcp.append(item)
        else:
            builtin.append(item)
    largest_mcp = tuple(sorted((i for i in mcp if i.tokens), key=lambda i: -i.tokens)[:LARGEST])
    return (
        Category("System tools", sum(i.tokens for i in builtin), tuple(builtin)),
        Category("MCP tools", sum(i.tokens for i in mcp), largest_mcp, deferred),
    )


def _messages(history: list[dict[str, Any]]) -> tuple[int, int, list[Item]]:
    """(message tokens without tool results, tool result tokens, one item per tool result)."""
    calls: dict[str, tuple[str, str]] = {}
    messages = results = 0
    items: list[Item] = []
    for message in history:
        content = message.get("content", "")
        if isinstance(content, str):
            messages += message_tokens(message)
            continue
        messages += 4
        for block in content:
            kind = block.get("type")
            if kind == "tool_use":
                calls[str(block.get("id"))] = (str(block.get("name", "?")), subject(block.get("input")))
            if kind == "tool_result":
                tokens = block_tokens(block)
                results += tokens
                name, about = calls.get(str(block.get("tool_use_id")), ("?", ""))
                items.append(Item(name, tokens, about))
            else:
                messages += block_tokens(block)
    return messages, results, items


def context_breakdown(
    *,
    request: Mapping[str, Any],
    history: list[dict[str, Any]],
    memory_files: Iterable[tuple[str, str]],
    thresholds: Thresholds,
    used: int | None = None,
) -> ContextBreakdown:
    """The breakdown of `request` (as the agent would send it now: system, tools) with the `history`
    and the memory files (path, content) it carries; `used` is the meter's figure when known."""
    system = request.get("system") or []
    system_tokens = text_tokens(system) if isinstance(system, str) else content_tokens(system)
    builtin, mcp = _tools(request.get("tools") or [])
    memory = tuple(Item(path, text_tokens(content)) for path, content in memory_files)
    messages, results, result_items = _messages(history)
    categories = (
        Category("System prompt", system_tokens),
        builtin,
        mcp,
        Category("Memory files", sum(i.tokens for i in memory), memory),
        Category("Messages", messages),
        Category("Tool results", results, tuple(result_items)),
    )
    largest = tuple(sorted(result_items, key=lambda i: -i.tokens)[:LARGEST])
    total = used if used is not None and used > 0 else sum(c.tokens for c in categories)
    return ContextBreakdown(thresholds.model, thresholds.window, thresholds.autocompact, thresholds.autocompact_enabled,
                            total, categories, largest)


def format_breakdown(b: ContextBreakdown, width: int = 80) -> str:
    """The breakdown as plain text lines (the app's `/context`, and `-p "/context"`)."""
    def k(n: int) -> str:
        return f"{n / 1000:.1f}k" if n >= 1000 else str(n)

    def pct(n: int) -> str:
        return f"{100 * b.share(n):.1f}%"

    lines = [f"Context usage · {b.model} · {k(b.used)}/{k(b.window)} tokens ({pct(b.used)})"]
    if b.auto_compact:
        left = max(0, b.threshold - b.used)
        lines.append(f"Context left until auto-compact: {round(100 * left / b.threshold) if b.threshold else 0}% (compacts at {k(b.threshold)})")
    else:
        lines.append("Automatic compaction is off")
    shown = [c for c in b.categories if c.tokens or c.deferred or c.name == "Messages"]
    label = max(len(name) for name in [*(c.name for c in shown), "Free space", "Autocompact buffer"]) + 2
    for c in shown:
        extra = f" · {c.deferred} deferred" if c.deferred else ""
        lines.append(f"  {c.name + ':':<{label}}{k(c.tokens):>7} tokens ({pct(c.tokens)}){extra}")
    lines.append(f"  {'Free space:':<{label}}{k(b.free):>7} tokens ({pct(b.free)})")
    if b.auto_compact:
        lines.append(f"  {'Autocompact buffer:':<{label}}{k(b.buffer):>7} tokens ({pct(b.buffer)})")
    named = [c for c in b.categories if c.name in ("Memory files", "MCP tools") and c.items]
    for c in named:
        lines.append(f"{c.name}:")
        lines += [_item_line(i, k, width) for i in c.items]
    if b.largest_results:
        lines.append("Largest tool results:")
        lines += [_item_line(i, k, width) for i in b.largest_results]
    if b.used != b.estimated:
        lines.append(f"(the categories are estimates: {k(b.estimated)} in all)")
    return "\n".join(lines)


def _item_line(item: Item, k: Any, width: int) -> str:
    head = f"  {k(item.tokens):>7}  "
    head += shorten(item.name, max(10, width - len(head)))
    if item.detail:
        head += "  " + shorten(item.detail, max(10, width - len(head) - 4))
    return head


def agent_breakdown(agent: Any) -> ContextBreakdown:
    """The breakdown of an Agent's context now (call it on the agent's own thread)."""
    memory = agent.memory
    files = [(str(f.path), f.content) for f in memory.startup_files] if memory is not None else []
    manager = agent.context_manager
    return context_breakdown(
        request=agent.build_request(),
        history=agent.history,
        memory_files=files,
        thresholds=manager.thresholds(),
        used=manager.used(),
    )
