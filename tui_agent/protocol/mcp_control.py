"""The program's MCP control requests, answered from the session's McpManager as Claude Code answers them:
`mcp_status` → `{"mcpServers": [McpServerStatus...]}` (the SDK's `McpStatusResponse`), `mcp_reconnect`
and `mcp_toggle` → success once the server is connected (or turned off), else an error saying why
(`Server not found: NAME`, the server's error, `Server status: STATE`).

Claude Code remembers a toggle in `~/.claude.json`; here it lasts for the session.
"""

from __future__ import annotations

import asyncio
from typing import Any, Callable, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from ..core.mcp.approval import ProjectApprovals
from ..core.mcp.config import SdkServerConfig
from ..core.mcp.connection import McpConnection
from ..core.mcp.events import ServerStatus
from ..core.mcp.manager import McpManager
from .channel import Channel

MCP_SUBTYPES = ("mcp_status", "mcp_reconnect", "mcp_toggle")


class _Request(BaseModel):
    model_config = ConfigDict(extra="allow")


class McpStatusRequest(_Request):
    subtype: Literal["mcp_status"]


class McpReconnectRequest(_Request):
    subtype: Literal["mcp_reconnect"]
    serverName: str


class McpToggleRequest(_Request):
    subtype: Literal["mcp_toggle"]
    serverName: str
    enabled: bool


_MODELS: dict[str, type[_Request]] = {"mcp_status": McpStatusRequest, "mcp_reconnect": McpReconnectRequest, "mcp_toggle": McpToggleRequest}


class McpControl:
    """Serves the three requests. After a reconnect or toggle the mapper's `mcp_servers` are refreshed, so
    the next prompt's `init` lists the new states."""

    def __init__(self, channel: Channel, manager: Callable[[], McpManager | None], mapper: Any) -> None:
        self.channel = channel
        self.manager = manager
        self.mapper = mapper
        self._tasks: set[asyncio.Task[None]] = set()

    def serve(self, request_id: str, request: dict[str, Any]) -> None:
        """Answer at once for a status; a reconnect or toggle waits for the server, so it runs beside the reader."""
        subtype = str(request.get("subtype"))
        try:
            typed = _MODELS[subtype].model_validate(request)
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'request'}: {e['msg']}" for e in exc.errors()[:3])
            self.channel.respond_error(request_id, f"invalid {subtype} request: {problems}")
            return
        if isinstance(typed, McpStatusRequest):
            self.channel.respond(request_id, {"mcpServers": self.statuses()})
            return
        task = asyncio.get_running_loop().create_task(self._change(request_id, typed))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def statuses(self) -> list[dict[str, Any]]:
        manager = self.manager()
        if manager is None:
            return []
        return [server_status(manager.connections[s.name], s) for s in manager.statuses() if s.name in manager.connections]

    async def _change(self, request_id: str, request: McpReconnectRequest | McpToggleRequest) -> None:
        manager = self.manager()
        name = request.serverName
        if manager is None or name not in manager.connections:
            self.channel.respond_error(request_id, f"Server not found: {name}")
            return
        try:
            if isinstance(request, McpToggleRequest):
                await manager.set_enabled(name, request.enabled)
                if not request.enabled:
                    self.channel.respond(request_id)
                    return
            elif manager.verdicts.get(name) == "approved":
                await manager.reconnect(name)
        except Exception as exc:  # a server that cannot be stopped or started must not end the session
            self.channel.respond_error(request_id, f"MCP server {name!r}: {exc}")
            return
        finally:
            self.mapper.mcp_servers = [s.for_init() for s in manager.statuses()]
        why = _not_connected(manager, name)
        if why:
            self.channel.respond_error(request_id, why)
        else:
            self.channel.respond(request_id)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)


def _not_connected(manager: McpManager, name: str) -> str:
    """Why a server is not connected, in Claude Code's words where it has them; empty when it is."""
    status = next(s for s in manager.statuses() if s.name == name)
    if status.status == "connected":
        return ""
    if status.status == "failed":
        return status.error or "Connection failed"
    if status.status == "needs-approval":
        return f"MCP server {name!r} is not approved for this project; to allow it, {ProjectApprovals.how_to_allow(name)}"
    return f"Server status: {status.status}"


def server_status(connection: McpConnection, status: ServerStatus) -> dict[str, Any]:
    """One `McpServerStatus`: name, status, serverInfo and tools when connected, error when failed, the
    config as written (`${VAR}` unexpanded: no secret values) and its scope."""
    out: dict[str, Any] = {"name": status.name, "status": status.status}
    if status.status == "connected" and connection.server_name:
        out["serverInfo"] = {"name": connection.server_name, "version": connection.server_version}
    if status.status == "failed" and status.error:
        out["error"] = status.error
    config = _config(connection)
    if config is not None:
        out["config"] = config
    out["scope"] = status.scope
    if status.status == "connected":
        out["tools"] = [{"name": spec.name, "annotations": dict(spec.annotations)} for spec in connection.tools]
    return out


def _config(connection: McpConnection) -> dict[str, Any] | None:
    server = connection.config
    if isinstance(server.entry, SdkServerConfig):
        return {"type": "sdk", "name": server.name}  # the SDK's McpSdkServerConfigStatus
    if not isinstance(server.raw, dict) or server.entry is None:
        return None
    return {"type": server.entry.type, **{k: v for k, v in server.raw.items() if k != "type"}}
