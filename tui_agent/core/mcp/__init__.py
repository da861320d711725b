"""MCP servers configured as Claude Code configures them, their tools as ordinary tools, deferred
loading behind ToolSearch. Built on the official `mcp` package (imported only when a server starts).

Names are loaded on first use: the app imports `core.mcp.events` on its way to the first frame.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "McpConfigError": "config",
    "McpConfigSet": "config",
    "ServerConfig": "config",
    "load_mcp_configs": "config",
    "McpManager": "manager",
    "McpServersChanged": "events",
    "ServerStatus": "events",
    "attach_mcp": "setup",
    "mcp_manager": "setup",
}
__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(name)
    return getattr(import_module(f"{__name__}.{module}"), name)
