"""The program's in-process MCP servers (`create_sdk_mcp_server`, config `{"type": "sdk"}`), reached over
the control channel as Claude Code reaches them.

Each JSON-RPC message our MCP client writes becomes a `control_request` `{"subtype": "mcp_message",
"server_name", "message"}`; the program answers `{"mcp_response": <JSON-RPC>}` (the SDK's
`_handle_sdk_mcp_request`). `transport()` is an ordinary `mcp` client transport (a read and a write stream),
so core/mcp/connection.py drives these servers with the same ClientSession, tool naming, permission rules,
result shapes and ToolSearch as a stdio or HTTP one. The connection lives on the MCP loop
(core/mcp/mcp_loop.py); the channel lives on the session's loop: every message crosses between the two.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, AsyncIterator, Callable

from pydantic import BaseModel, ConfigDict, ValidationError

from .channel import Channel, ProgramError


class McpMessageAnswer(BaseModel):
    """The program's answer to an `mcp_message` request."""

    model_config = ConfigDict(extra="allow")
    mcp_response: dict[str, Any]


class ProgramMcpLink:
    """The transport factory for the program's `"sdk"` servers (McpManager.serve_program_servers)."""

    def __init__(self, channel: Channel, note: Callable[[str], None]) -> None:
        self.channel = channel
        self.note = note
        self.loop = asyncio.get_running_loop()  # the session's: where the channel's futures live

    @contextlib.asynccontextmanager
    async def transport(self, server: str) -> AsyncIterator[tuple[Any, Any]]:
        """(read stream, write stream) of one client session with `server`, as `stdio_client` gives them."""
        import anyio

        from ..core.lazy_import import import_mcp

        import_mcp()
        from mcp.shared.message import SessionMessage

        to_client, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        write_stream, from_client = anyio.create_memory_object_stream[SessionMessage](0)

        async def carry(message: SessionMessage) -> None:
            raw = message.message.model_dump(by_alias=True, mode="json", exclude_unset=True)
            reply = await self._cross(server, raw)
            if reply is not None:
                with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                    await to_client.send(reply)

        async def pump(group: Any) -> None:
            async with from_client:
                async for message in from_client:
                    group.start_soon(carry, message)  # each on its own: a slow tool call holds no other message

        async with anyio.create_task_group() as group:
            group.start_soon(pump, group)
            try:
                yield read_stream, write_stream
            finally:
                group.cancel_scope.cancel()  # unanswered requests: the program is told to stop waiting
                for stream in (write_stream, read_stream, to_client):
                    await stream.aclose()

    async def _cross(self, server: str, raw: dict[str, Any]) -> Any:
        """`_exchange` on the session's loop, awaited from the MCP loop (a cancel here cancels it there)."""
        if asyncio.get_running_loop() is self.loop:
            return await self._exchange(server, raw)
        work = self._exchange(server, raw)
        try:
            future = asyncio.run_coroutine_threadsafe(work, self.loop)
        except RuntimeError:  # the session's loop has closed: the session is over
            work.close()
            return _error_reply(raw, "the claude-agent-sdk session has ended")
        return await asyncio.wrap_future(future)

    async def _exchange(self, server: str, raw: dict[str, Any]) -> Any:
        """Send one message; for a request, the SessionMessage answering it (an error one when the program
        cannot answer or answers something that is not a JSON-RPC response to it). None otherwise."""
        is_request = "method" in raw and raw.get("id") is not None
        try:
            answer = await self.channel.request({"subtype": "mcp_message", "server_name": server, "message": raw})
        except ProgramError as exc:
            return _error_reply(raw, f"the program could not serve its MCP server {server!r}: {exc}") if is_request else None
        if not is_request:
            return None  # a notification: the SDK acknowledges it with an empty result, nothing to deliver
        try:
            return _response_to(raw["id"], McpMessageAnswer.model_validate(answer).mcp_response)
        except (ValidationError, ValueError) as exc:
            why = f"the program's answer to {raw.get('method')!r} for its MCP server {server!r} is not a JSON-RPC response to it: {_first_line(exc)}"
            self.note(f"tui-agent: {why}")
            return _error_reply(raw, why)


def _response_to(request_id: Any, response: dict[str, Any]) -> Any:
    from mcp.shared.message import SessionMessage
    from mcp_types import JSONRPCError, JSONRPCResponse, jsonrpc_message_adapter

    message = jsonrpc_message_adapter.validate_python(response, by_name=False)
    if not isinstance(message, (JSONRPCResponse, JSONRPCError)):
        raise ValueError(f"expected a result or an error, got a {type(message).__name__}")
    if message.id != request_id:
        raise ValueError(f"its id {message.id!r} is not the request's {request_id!r}")
    return SessionMessage(message)


def _error_reply(raw: dict[str, Any], why: str) -> Any:
    """A JSON-RPC error for a request (the MCP client fails that one call), None for anything else."""
    if "method" not in raw or raw.get("id") is None:
        return None
    from mcp.shared.message import SessionMessage
    from mcp_types import INTERNAL_ERROR, ErrorData, JSONRPCError

    return SessionMessage(JSONRPCError(jsonrpc="2.0", id=raw["id"], error=ErrorData(code=INTERNAL_ERROR, message=why)))


def _first_line(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        return "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'answer'}: {e['msg']}" for e in exc.errors()[:3])
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
