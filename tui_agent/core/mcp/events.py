"""What the front ends hear about MCP servers (kept free of heavy imports: the app imports it at start)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ServerState = Literal["pending", "connected", "failed", "needs-approval", "disabled"]


@dataclass(frozen=True, slots=True)
class ServerStatus:
    name: str
    status: ServerState
    scope: str
    transport: str
    target: str
    tools: int
    error: str = ""

    def for_init(self) -> dict[str, str]:
        """The shape of stream-json's `init` line (`mcp_servers`)."""
        return {"name": self.name, "status": self.status}


@dataclass(frozen=True, slots=True)
class McpServersChanged:
    """An event: a server connected, failed, was approved or reloaded (the UI redraws its state)."""

    servers: tuple[ServerStatus, ...]


def status_summary(servers: tuple[ServerStatus, ...] | list[ServerStatus]) -> str:
    """For the status line: "MCP 2 connected · 1 failed" (empty without servers)."""
    if not servers:
        return ""
    counts = {state: sum(s.status == state for s in servers) for state in ("connected", "failed", "pending", "needs-approval")}
    parts = [f"{counts['connected']} connected"]
    if counts["failed"]:
        parts.append(f"{counts['failed']} failed")
    if counts["pending"]:
        parts.append(f"{counts['pending']} starting")
    if counts["needs-approval"]:
        parts.append(f"{counts['needs-approval']} to approve")
    return "MCP " + ", ".join(parts)
