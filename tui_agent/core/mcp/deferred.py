"""Deferred loading of MCP tools, as Claude Code does it (the `advanced-tool-use-2025-11-20` beta).

When MCP tool definitions would take more than a tenth of the context window (`ENABLE_TOOL_SEARCH`:
`true`, `false`, `auto`, `auto:N` percent), they are deferred: the model gets a `ToolSearch` tool and the
deferred tools' names (`<available-deferred-tools>`); ToolSearch answers with `tool_reference` blocks.
- With the beta every deferred tool is sent with `defer_loading: true`; the API shows the model a tool's
  definition once a `tool_reference` names it.
- Without it (a base URL that is not Anthropic's and no explicit ENABLE_TOOL_SEARCH, or an endpoint that
  refused the beta) the request does the API's part itself: only the referenced tools are sent, plainly,
  and each `tool_reference` becomes a line of text. The history is the same either way.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any, Callable, Iterable
from urllib.parse import urlparse

from ...tools.base import Tool, ToolContext, ToolInput, ToolOutput

BETA = "advanced-tool-use-2025-11-20"
TOOL_SEARCH = "ToolSearch"
DEFAULT_CONTEXT_WINDOW = 200_000
DEFAULT_PERCENT = 10
CHARS_PER_TOKEN = 4
_REFUSAL_WORDS = ("defer_loading", "tool_reference", BETA, "anthropic-beta")


class ToolSearchSettings:
    """ENABLE_TOOL_SEARCH as Claude Code reads it, and whether the beta may be used."""

    def __init__(self, value: str | None, base_url: str | None, context_window: int = DEFAULT_CONTEXT_WINDOW) -> None:
        raw = (value or "").strip().lower()
        self.explicit = bool(raw)
        self.mode, self.percent = "auto", DEFAULT_PERCENT
        if raw in ("true", "1", "yes", "on"):
            self.mode = "true"
        elif raw in ("false", "0", "no", "off"):
            self.mode = "false"
        elif (m := re.fullmatch(r"auto(?::(\d+(?:\.\d+)?))?", raw)) and m.group(1):
            self.percent = float(m.group(1))
        self.context_window = context_window
        host = urlparse(base_url).hostname if base_url else "api.anthropic.com"
        self.first_party = host is not None and (host == "anthropic.com" or host.endswith(".anthropic.com"))
        self.refused = False
        """The endpoint answered the beta with a 400: fall back for the rest of the session."""

    @classmethod
    def from_env(cls, base_url: str | None) -> "ToolSearchSettings":
        return cls(os.environ.get("ENABLE_TOOL_SEARCH"), base_url)

    @property
    def use_beta(self) -> bool:
        return (self.first_party or self.explicit) and not self.refused

    def should_defer(self, definitions: list[dict[str, Any]]) -> bool:
        if not definitions or self.mode == "false":
            return False
        if self.mode == "true":
            return True
        tokens = len(json.dumps(definitions)) / CHARS_PER_TOKEN
        return tokens > self.context_window * self.percent / 100


class ToolSearchInput(ToolInput):
    query: str
    """`select:name1,name2` to load those tools, or keywords to search names and descriptions."""
    max_results: int = 5


class ToolSearchTool(Tool[ToolSearchInput]):
    name = TOOL_SEARCH
    description = (
        "Fetches the full definitions of deferred tools so they can be called. Deferred tools are listed by name "
        "in <available-deferred-tools>; until fetched only their names are known and they cannot be called.\n"
        'Query forms: "select:mcp__server__tool_a,mcp__server__tool_b" loads exactly those tools; keywords '
        '(e.g. "git commit") search tool names and descriptions and load the best matches (max_results, default 5).'
    )
    Input = ToolSearchInput

    def __init__(self, deferred: Callable[[], list[Tool[Any]]]) -> None:
        self._deferred = deferred

    def is_read_only(self, input: ToolSearchInput) -> bool:
        return True

    def summarize(self, input: ToolSearchInput) -> str:
        return input.query[:200]

    async def call(self, input: ToolSearchInput, ctx: ToolContext) -> ToolOutput:
        tools = self._deferred()
        found = select(tools, input.query, max(1, input.max_results))
        if not found:
            names = ", ".join(t.name for t in tools[:20]) or "(none)"
            return ToolOutput(f"No deferred tools matched {input.query!r}. Deferred tools: {names}")
        return ToolOutput([{"type": "tool_reference", "tool_name": t.name} for t in found])


def select(tools: list[Tool[Any]], query: str, limit: int) -> list[Tool[Any]]:
    """`select:a,b` by exact name (or the part after the server prefix); else keyword relevance."""
    query = query.strip()
    if query.lower().startswith("select:"):
        wanted = [w.strip() for w in query[7:].split(",") if w.strip()]
        out = []
        for w in wanted:
            hit = next((t for t in tools if t.name == w), None) or next((t for t in tools if t.name.endswith("__" + w)), None)
            if hit is not None and hit not in out:
                out.append(hit)
        return out
    words = [w for w in re.split(r"[\s,]+", query.lower()) if w]
    scored = []
    for t in tools:
        name = t.name.lower()
        text = (t.description or "").lower()
        score = sum(3 * (w in name) + (w in text) for w in words)
        if score:
            scored.append((score, t.name, t))
    scored.sort(key=lambda s: (-s[0], s[1]))
    return [t for _, _, t in scored[:limit]]


def referenced_names(messages: Iterable[dict[str, Any]]) -> list[str]:
    """Every tool a `tool_reference` block in the history names, in order."""
    names: list[str] = []
    for block in _result_contents(messages):
        if block.get("type") == "tool_reference" and block.get("tool_name") not in names:
            names.append(str(block.get("tool_name")))
    return names


def _result_contents(messages: Iterable[dict[str, Any]]) -> Iterable[dict[str, Any]]:
    for msg in messages:
        content = msg.get("content")
        if not isinstance(content, list):
            continue
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_result" and isinstance(block.get("content"), list):
                yield from (b for b in block["content"] if isinstance(b, dict))


def deferred_names_block(names: list[str]) -> dict[str, Any]:
    return {"type": "text", "text": "<available-deferred-tools>\n" + "\n".join(names) + "\n</available-deferred-tools>"}


def beta_request(request: dict[str, Any], deferred: list[dict[str, Any]]) -> dict[str, Any]:
    """The request with every deferred definition marked `defer_loading`, their names for the model, the beta."""
    out = dict(request)
    out["tools"] = [*request.get("tools", []), *({**d, "defer_loading": True} for d in deferred)]
    out["messages"] = _with_names(request["messages"], [d["name"] for d in deferred])
    headers = dict(request.get("extra_headers") or {})
    betas = [b for b in headers.get("anthropic-beta", "").split(",") if b]
    headers["anthropic-beta"] = ",".join([*betas, BETA] if BETA not in betas else betas)
    out["extra_headers"] = headers
    return out


def fallback_request(request: dict[str, Any]) -> dict[str, Any]:
    """A beta request done without the beta: referenced deferred tools sent plainly, the others left out,
    `tool_reference` blocks turned into text. A pure function of the request."""
    out = dict(request)
    loaded = set(referenced_names(request["messages"]))
    tools = []
    for tool in request.get("tools", []):
        if tool.get("defer_loading"):
            if tool["name"] not in loaded:
                continue
            tool = {k: v for k, v in tool.items() if k != "defer_loading"}
        tools.append(tool)
    out["tools"] = tools
    out["messages"] = [_rewrite_references(m) for m in request["messages"]]
    headers = dict(request.get("extra_headers") or {})
    betas = [b for b in headers.pop("anthropic-beta", "").split(",") if b and b != BETA]
    if betas:
        headers["anthropic-beta"] = ",".join(betas)
    if headers:
        out["extra_headers"] = headers
    else:
        out.pop("extra_headers", None)
    return out


def is_beta_request(request: dict[str, Any]) -> bool:
    return BETA in (request.get("extra_headers") or {}).get("anthropic-beta", "")


def is_refusal(exc: BaseException) -> bool:
    """A 400 from an endpoint that does not know the beta or its fields."""
    status = getattr(exc, "status_code", None) or getattr(exc, "status", None)
    return status == 400 and any(w in str(exc) for w in _REFUSAL_WORDS)


def _with_names(messages: list[dict[str, Any]], names: list[str]) -> list[dict[str, Any]]:
    if not messages or not names:
        return messages
    first = messages[0]
    return [{**first, "content": [deferred_names_block(names), *first["content"]]}, *messages[1:]]


def _rewrite_references(message: dict[str, Any]) -> dict[str, Any]:
    content = message.get("content")
    if not isinstance(content, list) or not any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
        return message
    blocks = []
    for block in content:
        inner = block.get("content") if isinstance(block, dict) else None
        if isinstance(inner, list) and any(b.get("type") == "tool_reference" for b in inner if isinstance(b, dict)):
            inner = [
                {"type": "text", "text": f"Tool {b['tool_name']} loaded: its definition is now in your tools."}
                if isinstance(b, dict) and b.get("type") == "tool_reference" else b
                for b in inner
            ]
            block = {**block, "content": inner}
        blocks.append(block)
    return {**message, "content": blocks}
