"""The registry the loop sees when MCP servers are configured: the built-in tools, then the tools of every
connected server (read afresh for each request, so a server that connects mid-session joins the next
request), minus tools a bare deny rule removes, deferred behind ToolSearch when they would crowd the context.

A subagent's registry is `restricted` by its `tools:` / `disallowedTools:`: those bind MCP tools too, by
their full names (`mcp__server__tool`) or a whole server (`mcp__server`, `mcp__server__*`), as Claude Code
names them; a read-only agent (Explore, Plan) keeps only the tools a server marks `readOnlyHint`.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from ...tools.base import Tool
from ...tools.registry import ToolRegistry
from ..permissions.mcp_rules import denied_whole
from .deferred import (
    ToolSearchSettings,
    ToolSearchTool,
    beta_request,
    fallback_request,
    is_beta_request,
    is_refusal,
)
from ..permissions.mcp_rules import covers_mcp_tool
from .manager import McpManager
from .resources import LIST_TOOL, READ_TOOL
from .tools import McpTool

RESOURCE_TOOLS = (LIST_TOOL, READ_TOOL)

ToolFilter = Callable[[Tool[Any]], bool]


def _names_cover(names: Iterable[str], tool_name: str) -> bool:
    return any(n == tool_name or covers_mcp_tool(n, tool_name) for n in names)


def mcp_filter(names: Iterable[str] | None, exclude: Iterable[str], read_only: bool) -> ToolFilter:
    """Which MCP tools a `restricted(names, exclude, read_only)` registry keeps."""
    keep = None if names is None else tuple(names)
    drop = tuple(exclude)

    def accepts(tool: Tool[Any]) -> bool:
        if keep is not None and not _names_cover(keep, tool.name):
            return False
        if _names_cover(drop, tool.name):
            return False
        # The server's own hint: an approved server's claim, the only read-only signal MCP has.
        # The resource tools (core/mcp/resources.py) only read.
        return not read_only or (isinstance(tool, McpTool) and tool.spec.read_only) or tool.name in RESOURCE_TOOLS

    return accepts


class McpToolRegistry(ToolRegistry):
    def __init__(self, base: ToolRegistry, manager: McpManager, policy: Any, search: ToolSearchSettings,
                 filters: tuple[ToolFilter, ...] = ()) -> None:
        super().__init__(base.tools)
        self.base = base
        self.manager = manager
        self.policy = policy
        self.search = search
        self.filters = filters  # a subagent's tool list, each nesting level adding its own
        self.tool_search = ToolSearchTool(self.deferred_tools)

    def mcp_tools(self) -> list[Tool[Any]]:
        return [
            t for t in self.manager.tools()
            if not denied_whole(self.policy, t.name) and all(accepts(t) for accepts in self.filters)
        ]

    def deferring(self) -> bool:
        return self.search.should_defer([t.api_definition() for t in self.mcp_tools()])

    def deferred_tools(self) -> list[Tool[Any]]:
        return self.mcp_tools() if self.deferring() else []

    # ----- ToolRegistry ----------------------------------------------------------------------------
    def find(self, name: str) -> Tool[Any] | None:
        tool = self.base.find(name)
        if tool is not None:
            return tool
        if name == self.tool_search.name:
            return self.tool_search if self.deferring() else None
        return next((t for t in self.mcp_tools() if t.name == name), None)

    @property
    def tools(self) -> list[Tool[Any]]:
        mcp = self.mcp_tools()
        search = [self.tool_search] if self.search.should_defer([t.api_definition() for t in mcp]) else []
        return [*self.base.tools, *search, *mcp]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(t.name for t in self.tools)

    def api_definitions(self) -> list[dict[str, Any]]:
        return [t.api_definition() for t in self.tools if t.is_offered()]

    def restricted(self, names: Iterable[str] | None = None, exclude: Iterable[str] = (), *, read_only: bool = False) -> "ToolRegistry":
        names = None if names is None else list(names)
        exclude = list(exclude)
        return McpToolRegistry(
            self.base.restricted(names, exclude, read_only=read_only), self.manager, self.policy, self.search,
            (*self.filters, mcp_filter(names, exclude, read_only)),
        )

    def decorate_request(self, request: dict[str, Any]) -> dict[str, Any]:
        mcp = [t.api_definition() for t in self.mcp_tools()]
        if not self.search.should_defer(mcp):
            return request
        base = [t.api_definition() for t in self.base.tools if t.is_offered()] + [self.tool_search.api_definition()]
        beta = beta_request({**request, "tools": base}, mcp)
        return beta if self.search.use_beta else fallback_request(beta)


class BetaFallbackModel:
    """The model client, retrying once without the beta when the endpoint refuses it (then never again)."""

    def __init__(self, inner: Any, search: ToolSearchSettings, notice: Callable[[str, str], None]) -> None:
        self._inner = inner
        self._search = search
        self._notice = notice

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def stream(self, request: dict[str, Any], on_event: Callable[[Any], None]) -> None:
        try:
            await self._inner.stream(request, on_event)
        except Exception as exc:
            if not is_beta_request(request) or not is_refusal(exc):
                raise
            self._search.refused = True
            self._notice("info", "The API endpoint refused the tool-search beta; deferred MCP tools are now loaded by tui-agent itself.")
            await self._inner.stream(fallback_request(request), on_event)
