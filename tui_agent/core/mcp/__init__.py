"""MCP servers configured as Claude Code configures them, their tools as ordinary tools, deferred
loading behind ToolSearch. Built on the official `mcp` package (imported only when a server starts)."""

from .config import McpConfigError, McpConfigSet, ServerConfig, load_mcp_configs
from .manager import McpManager, McpServersChanged, ServerStatus
from .setup import attach_mcp, mcp_manager

__all__ = [
    "McpConfigError",
    "McpConfigSet",
    "McpManager",
    "McpServersChanged",
    "ServerConfig",
    "ServerStatus",
    "attach_mcp",
    "load_mcp_configs",
    "mcp_manager",
]
