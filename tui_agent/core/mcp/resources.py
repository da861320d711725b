"""MCP resources: Claude Code's `ListMcpResourcesTool` and `ReadMcpResourceTool`, with its names, schemas,
result texts and errors.

Both are offered once a connected server declares the `resources` capability (as Claude Code adds them),
beside the MCP tools (so they are deferred with them). They only read: they run without asking, and a bare
rule naming them (`ReadMcpResourceTool`) binds them; `mcp__server` rules do not (their names are not a
server's). A server's list is fetched when it connects (for @-completion and @server:uri mentions,
core/mcp/resource_mentions.py), again when it says the list changed, and by each ListMcpResourcesTool call.
"""

from __future__ import annotations

import asyncio
import json
import random
import string
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import Field

from ...tools.base import Tool, ToolContext, ToolError, ToolInput, ToolOutput
from ...tools.private_files import write_private
from .connection import McpConnection, McpServerError
from .tools import normalize_name

if TYPE_CHECKING:
    from .manager import McpManager

LIST_TOOL = "ListMcpResourcesTool"
READ_TOOL = "ReadMcpResourceTool"
LIST_TIMEOUT_S = 10.0
METHOD_NOT_FOUND = -32601
NOT_FOUND_CODES = frozenset({-32002, -32602})  # the spec's "resource not found", and invalid params
NO_RESOURCES = "No resources found. MCP servers may still provide tools even if they have no resources."
_EXTENSIONS = {
    "application/pdf": "pdf", "application/json": "json", "text/csv": "csv", "text/plain": "txt", "text/html": "html",
    "text/markdown": "md", "application/zip": "zip", "application/msword": "doc", "application/vnd.ms-excel": "xls",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation": "pptx",
    "audio/mpeg": "mp3", "audio/wav": "wav", "audio/ogg": "ogg", "video/mp4": "mp4", "video/webm": "webm",
    "image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp", "image/svg+xml": "svg",
}


# ----- the servers' side ---------------------------------------------------------------------------
def has_resources(conn: McpConnection) -> bool:
    return conn.state == "connected" and getattr(conn.capabilities, "resources", None) is not None


async def fetch_resources(session: Any, server: str) -> list[dict[str, Any]]:
    """Every resource the server lists (all pages), each as the server gave it plus its `server`."""
    from mcp_types import PaginatedRequestParams

    found: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        page = await session.list_resources(params=PaginatedRequestParams(cursor=cursor) if cursor else None)
        found += [{**r.model_dump(by_alias=True, exclude_none=True, mode="json"), "server": server} for r in page.resources]
        cursor = getattr(page, "next_cursor", None)
        if not cursor:
            return found


async def initial_resources(conn: McpConnection, session: Any) -> list[dict[str, Any]]:
    """The list at connect time (on the MCP loop); a server that fails to list has none, and still connects."""
    if getattr(conn.capabilities, "resources", None) is None:
        return []
    try:
        return await asyncio.wait_for(fetch_resources(session, conn.name), LIST_TIMEOUT_S)
    except Exception:
        return []


_refreshing: set[asyncio.Task[None]] = set()


def refresh_later(conn: McpConnection, session: Any) -> None:
    """The server said its list changed (`notifications/resources/list_changed`): fetch it again, in the
    background (on the MCP loop), for the next @-completion and mention."""
    task = asyncio.get_running_loop().create_task(_refresh(conn, session))
    _refreshing.add(task)
    task.add_done_callback(_refreshing.discard)


async def _refresh(conn: McpConnection, session: Any) -> None:
    try:
        conn.resources = await asyncio.wait_for(fetch_resources(session, conn.name), LIST_TIMEOUT_S)
    except Exception:
        pass  # the old list stays; ListMcpResourcesTool asks again anyway


async def list_resources(conn: McpConnection) -> list[dict[str, Any]]:
    """The server's list now (and the cached one updated); McpServerError when it fails."""
    found = await _request(conn, "resources/list", lambda s: fetch_resources(s, conn.name))
    conn.resources = found
    return found


async def read_resource(conn: McpConnection, uri: str) -> Any:
    """The server's ReadResourceResult for `uri`; McpServerError (with `.code`) when it fails."""
    return await _request(conn, "resources/read", lambda s: s.read_resource(uri))


class ResourceError(McpServerError):
    def __init__(self, message: str, code: int | None = None) -> None:
        super().__init__(message)
        self.code = code


async def _request(conn: McpConnection, method: str, call: Any) -> Any:
    async def run(session: Any) -> Any:
        from mcp import MCPError
        from mcp_types import CONNECTION_CLOSED

        try:
            return await asyncio.wait_for(call(session), conn.tool_timeout)
        except MCPError as exc:
            if exc.code == CONNECTION_CLOSED:
                raise ResourceError(f"MCP server {conn.name!r} closed the connection during {method}", exc.code) from None
            raise ResourceError(f"MCP error {exc.code}: {exc.message}", exc.code) from None
        except asyncio.TimeoutError:
            raise ResourceError(f"MCP server {conn.name!r} did not answer {method} in time (MCP_TOOL_TIMEOUT)") from None

    return await conn.with_session(run)


def find_server(manager: "McpManager", name: str) -> McpConnection:
    """The named server, ready for resources, or Claude Code's error for the model."""
    conns = list(manager.connections.values())
    found = [c for c in conns if c.name == name] or [c for c in conns if normalize_name(c.name) == normalize_name(name)]
    if not found:
        raise ToolError(f'Server "{name}" not found. Available servers: {", ".join(c.name for c in conns)}')
    conn = found[0]
    if conn.state != "connected" or manager.verdicts.get(conn.name) != "approved":
        raise ToolError(f'Server "{conn.name}" is not connected')
    if not has_resources(conn):
        raise ToolError(f'Server "{conn.name}" does not support resources')
    return conn


def resource_tools(manager: "McpManager") -> list[Tool[Any]]:
    """The two tools, when a connected server declares resources (Claude Code's rule); else none."""
    if not any(has_resources(c) and manager.verdicts.get(c.name) == "approved" for c in manager.connections.values()):
        return []
    return [ListMcpResourcesTool(manager), ReadMcpResourceTool(manager)]


def human_size(size: int) -> str:
    """Claude Code's byte counts: `512 bytes`, `1.5KB`, `2MB`."""
    value = size / 1024
    if value < 1:
        return f"{size} bytes"
    for unit in ("KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.1f}".removesuffix(".0") + unit
        value /= 1024
    return f"{size} bytes"


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# ----- the tools -----------------------------------------------------------------------------------
class ListMcpResourcesInput(ToolInput):
    server: str | None = Field(None, description="Optional server name to filter resources by")


class ListMcpResourcesTool(Tool[ListMcpResourcesInput]):
    name = LIST_TOOL
    aliases = ("ListMcpResources",)
    Input = ListMcpResourcesInput
    description: ClassVar[str] = """
List available resources from configured MCP servers.
Each returned resource will include all standard MCP resource fields plus a 'server' field 
indicating which server the resource belongs to.

Parameters:
- server (optional): The name of a specific MCP server to get resources from. If not provided,
  resources from all servers will be returned.
"""

    def __init__(self, manager: "McpManager") -> None:
        self.manager = manager

    def is_read_only(self, input: ListMcpResourcesInput) -> bool:
        return True

    def summarize(self, input: ListMcpResourcesInput) -> str:
        return f'List MCP resources from server "{input.server}"' if input.server else "List all MCP resources"

    def input_schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {"server": {"type": "string", "description": "Optional server name to filter resources by"}},
            "additionalProperties": False,
        }

    async def call(self, input: ListMcpResourcesInput, ctx: ToolContext) -> ToolOutput:
        if input.server:
            conns = [find_server(self.manager, input.server)]
        else:
            conns = [c for c in self.manager.connections.values() if has_resources(c) and self.manager.verdicts.get(c.name) == "approved"]
        lists = await asyncio.gather(*(list_resources(c) for c in conns), return_exceptions=True)
        found: list[dict[str, Any]] = []
        for conn, listed in zip(conns, lists):
            if isinstance(listed, BaseException):
                if input.server:  # the one server asked for failed: say so rather than "no resources"
                    raise ToolError(f'Failed to list resources of server "{conn.name}": {listed}')
                self.manager.notice("warning", f"MCP server {conn.name!r}: failed to list resources: {listed}")
                continue
            found += listed
        return ToolOutput(_compact(found) if found else NO_RESOURCES, data=found)


class ReadMcpResourceInput(ToolInput):
    server: str = Field(description="The MCP server name")
    uri: str = Field(description="The resource URI to read")


class ReadMcpResourceTool(Tool[ReadMcpResourceInput]):
    name = READ_TOOL
    aliases = ("ReadMcpResource",)
    Input = ReadMcpResourceInput
    description: ClassVar[str] = """
Reads a specific resource from an MCP server, identified by server name and resource URI.

Parameters:
- server (required): The name of the MCP server from which to read the resource
- uri (required): The URI of the resource to read
"""

    def __init__(self, manager: "McpManager") -> None:
        self.manager = manager

    def is_read_only(self, input: ReadMcpResourceInput) -> bool:
        return True

    def summarize(self, input: ReadMcpResourceInput) -> str:
        return f'Read resource "{input.uri}" from server "{input.server}"'

    async def call(self, input: ReadMcpResourceInput, ctx: ToolContext) -> ToolOutput:
        conn = find_server(self.manager, input.server)
        try:
            result = await read_resource(conn, input.uri)
        except ResourceError as exc:
            answer = _read_failure(conn.name, input.uri, exc)
            if answer is None:
                raise ToolError(str(exc)) from None
            return ToolOutput(answer, data={"contents": [], "error": answer})  # Claude Code: a result, not an error
        except McpServerError as exc:
            raise ToolError(str(exc)) from None
        contents = [_content(conn.name, item, i, ctx.tool_results_dir) for i, item in enumerate(getattr(result, "contents", None) or [])]
        data = {"contents": contents}
        return ToolOutput(_compact(data), data=data)


def _read_failure(server: str, uri: str, exc: ResourceError) -> str | None:
    if exc.code == METHOD_NOT_FOUND:
        return f'Server "{server}" advertises resource support but does not implement resource reads.'
    if exc.code in NOT_FOUND_CODES:
        return f"Resource not found: {uri} \u2014 it may have been deleted or the URI is stale. Re-run {LIST_TOOL} to refresh."
    return None


def _content(server: str, item: Any, index: int, folder: Path) -> dict[str, Any]:
    """One entry of `contents`: text as is; a blob saved to a file the model can Read, and described."""
    uri, mime = str(item.uri), getattr(item, "mime_type", None)
    head: dict[str, Any] = {"uri": uri, **({"mimeType": mime} if mime else {})}
    text = getattr(item, "text", None)
    if isinstance(text, str):
        return {**head, "text": text}
    blob = getattr(item, "blob", None)
    if not isinstance(blob, str):
        return head
    import base64

    data = base64.b64decode(blob)
    suffix = "".join(random.choices(string.ascii_lowercase + string.digits, k=6))
    ext = _EXTENSIONS.get((mime or "").split(";")[0].strip().lower(), "bin")
    path = folder / f"mcp-resource-{int(time.time() * 1000)}-{index}-{suffix}.{ext}"
    try:
        write_private(path, data, owned_from=folder.parent)
    except OSError as exc:
        return {**head, "text": f"Binary content could not be saved to disk: {exc.strerror or exc}"}
    described = f"[Resource from {server} at {uri}] Binary content ({mime or 'unknown type'}, {human_size(len(data))}) saved to {path}"
    return {**head, "blobSavedTo": str(path), "text": described}
