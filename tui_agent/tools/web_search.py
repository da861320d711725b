"""WebSearch: the API's server-side web search tool, offered in the request as Claude Code offers it
(`{"type": "web_search_20250305", "name": "web_search", "max_uses": 8}`).

The search runs on the API's side: the response carries `server_tool_use` and `web_search_tool_result`
blocks, which the loop keeps in the history exactly as received (no tool_result is owed for them) and the
conversation draws. The tool is hidden where the endpoint does not support it: a custom base URL (a proxy,
a local model) unless `TUI_AGENT_WEB_SEARCH=1`, a scripted model unless it says so, and any endpoint that
answered a request offering it with a 400 naming it (the request is then sent again without it).

Nobody can be asked about a search the API runs on its own, so the tool is offered only while the rules let
WebSearch run unasked (the `offered` check the factory gives it, asked per request): `--disallowedTools
WebSearch`, a deny or an ask rule naming it keep it out of the request; `--tools` without it too.
"""

from __future__ import annotations

import os
from typing import Any, Callable, ClassVar
from urllib.parse import urlsplit

from pydantic import Field

from .base import Tool, ToolContext, ToolInput, ToolOutput

SERVER_TOOL_TYPE = "web_search_20250305"
SERVER_TOOL_NAME = "web_search"
MAX_USES = 8
_unsupported: set[str] = set()  # endpoints (base URLs) that refused the server tool


class WebSearchInput(ToolInput):
    query: str = Field(description="The search query to use", min_length=2)
    allowed_domains: list[str] | None = Field(None, description="Only include search results from these domains")
    blocked_domains: list[str] | None = Field(None, description="Never include search results from these domains")


def endpoint_key(base_url: str | None) -> str:
    return base_url or "https://api.anthropic.com"


def supported(base_url: str | None, scripted: Any = None) -> bool:
    forced = os.environ.get("TUI_AGENT_WEB_SEARCH", "").strip().lower()
    if forced in ("0", "false", "no", "off"):
        return False
    if endpoint_key(base_url) in _unsupported:
        return False
    if scripted is not None:
        return bool(getattr(scripted, "web_search", False))
    if forced in ("1", "true", "yes", "on"):
        return True
    host = urlsplit(endpoint_key(base_url)).hostname or ""
    return host == "api.anthropic.com"


def is_server_tool(definition: dict[str, Any]) -> bool:
    return str(definition.get("type", "")).startswith("web_search_")


def refused_server_tool(exc: BaseException, request: dict[str, Any]) -> bool:
    """Whether `exc` is a 400 that names the web search tool offered in `request`."""
    if getattr(exc, "status_code", None) != 400 or not any(is_server_tool(t) for t in request.get("tools", [])):
        return False
    text = str(getattr(exc, "message", "") or exc) + str(getattr(exc, "body", "") or "")
    return "web_search" in text


def without_server_tool(request: dict[str, Any], base_url: str | None) -> dict[str, Any]:
    """The request minus the web search tool; the endpoint is remembered as not supporting it."""
    _unsupported.add(endpoint_key(base_url))
    tools = [t for t in request.get("tools", []) if not is_server_tool(t)]
    out = {k: v for k, v in request.items() if k != "tools"}
    if tools:
        out["tools"] = tools
    return out


def strip_if_unsupported(request: dict[str, Any], base_url: str | None) -> dict[str, Any]:
    if endpoint_key(base_url) in _unsupported and any(is_server_tool(t) for t in request.get("tools", [])):
        return without_server_tool(request, base_url)
    return request


class WebSearchTool(Tool[WebSearchInput]):
    name = "WebSearch"
    Input = WebSearchInput
    description: ClassVar[str] = "Search the web (the API's server-side web search). Results come back as search result blocks."

    def __init__(self, enabled: bool = True, offered: Callable[[], bool] | None = None) -> None:
        self._enabled = enabled
        self._offered = offered

    def is_enabled(self) -> bool:
        return self._enabled

    def is_offered(self) -> bool:
        return self._offered() if self._offered is not None else True

    def is_read_only(self, input: WebSearchInput) -> bool:
        return True

    def api_definition(self) -> dict[str, Any]:
        return {"type": SERVER_TOOL_TYPE, "name": SERVER_TOOL_NAME, "max_uses": MAX_USES}

    async def call(self, input: WebSearchInput, ctx: ToolContext) -> ToolOutput:
        # The API runs the search; a client-side call only happens if a model names the tool wrongly.
        return ToolOutput("WebSearch runs on the API's side; call the web_search server tool instead.", is_error=True)


def describe_block(block: dict[str, Any]) -> str | None:
    """One line (or a few) for the conversation, for a server tool's block."""
    if block.get("type") == "server_tool_use":
        query = (block.get("input") or {}).get("query", "")
        return f"Web search: “{query}”" if block.get("name") == SERVER_TOOL_NAME else f"Server tool: {block.get('name')}"
    if block.get("type") == "web_search_tool_result":
        content = block.get("content")
        if isinstance(content, dict):
            return f"  web search failed: {content.get('error_code', 'unknown error')}"
        results = [r for r in content or [] if isinstance(r, dict)]
        lines = [f"  {len(results)} result{'s' if len(results) != 1 else ''}"]
        for r in results[:5]:
            host = urlsplit(str(r.get("url", ""))).hostname or ""
            lines.append(f"  · {r.get('title', '(untitled)')} — {host}")
        if len(results) > 5:
            lines.append(f"  · … and {len(results) - 5} more")
        return "\n".join(lines)
    return None
