"""One MCP server connection, on the official `mcp` client (stdio, streamable HTTP, SSE).

The `mcp` transports and `ClientSession` are anyio context managers that must be entered and left by one
task, so each connection owns a runner task on the MCP loop (mcp_loop.py): it connects, lists the tools,
reports "connected", then holds the session open until `close()`. Tool calls come from the tools' own
tasks on the caller's loop; cancelling such a task (ESC) cancels the call on the MCP loop, where the `mcp`
dispatcher sends `notifications/cancelled`; the caller stops waiting at once. State changes and progress
are handed back to the caller's loop.

A stdio server runs in its own session with a marker in its environment, tracked by tools/processes.py,
so it and everything it started are stopped on close, at exit, and on a second Ctrl+C.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import atexit
import uuid
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Awaitable, Callable

from ...tools.private_files import open_private
from ...tools.processes import MARKER_ENV, find_marked_child, kill_tree_async, track_process, untrack_process
from .config import HttpServerConfig, SdkServerConfig, ServerConfig, StdioServerConfig
from .events import ServerState
from .mcp_loop import call_in, caller_loop, on_mcp_loop, submit

STDERR_TAIL_CHARS = 2_000
CLOSE_GRACE_S = 2.0


_imported = False
_live: "weakref.WeakSet[McpConnection]" = weakref.WeakSet()


def _import_client() -> None:
    """The `mcp` client, imported on the MCP loop's thread (blocking only that loop, once): a server's
    MCP_TIMEOUT counts its own start-up, not our import."""
    global _imported
    if not _imported:
        from ..lazy_import import import_mcp

        import_mcp()  # the client's modules only, not the server's nor every client helper
        import mcp.client.sse  # noqa: F401
        import mcp.client.stdio  # noqa: F401
        import mcp.client.streamable_http  # noqa: F401

        _imported = True


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """One tool as the server listed it."""

    name: str
    description: str
    input_schema: dict[str, Any]
    read_only: bool
    title: str = ""
    annotations: tuple[tuple[str, bool], ...] = ()
    """The hints the server gave, by Claude Code's names (readOnly, destructive, openWorld): `mcp_status`."""


class McpServerError(Exception):
    """A server that failed to start, died, or answered a call with a protocol error."""


class McpTimeout(McpServerError):
    """A call that got no answer within MCP_TOOL_TIMEOUT."""


class McpConnection:
    """A server's state, tools and session. `start` connects (in the background), `close` ends it."""

    def __init__(
        self,
        config: ServerConfig,
        *,
        cwd: Path,
        log_dir: Path,
        on_change: Callable[["McpConnection"], None] = lambda c: None,
        tool_timeout: float | None = None,
    ) -> None:
        self.config = config
        self.cwd = cwd
        self.log_path = log_dir / f"mcp-{_safe(config.name)}.stderr.log"
        self.on_change = on_change
        self.tool_timeout = tool_timeout
        self.state: ServerState = "pending"
        self.error = ""
        self.tools: list[ToolSpec] = []
        self.capabilities: Any = None  # the server's, from initialize: `resources` offers the resource tools
        self.resources: list[dict[str, Any]] = []  # its resources as listed at connect (core/mcp/resources.py)
        self.server_name = ""
        self.server_version = ""
        self.pid: int | None = None
        self._session: Any = None
        self._marker = uuid.uuid4().hex
        self._runner: asyncio.Task[None] | None = None
        self._started = False
        self._owner: asyncio.AbstractEventLoop | None = None  # where on_change and progress are called
        self._ready = asyncio.Event()  # these two are used on the MCP loop only
        self._stop = asyncio.Event()
        # A project's stdio server runs in the session's sandbox when it is on (core/sandbox: `program_argv`).
        self.sandbox: Any = None
        # How a `type: "sdk"` server is reached: the driving program's link (protocol/sdk_mcp.py), else None.
        self.program_link: Any = None

    @property
    def name(self) -> str:
        return self.config.name

    # ----- lifecycle (callable from any loop; the work happens on the MCP loop) ---------------------
    def start(self) -> None:
        """Connect in the background; `wait_ready` tells when it is connected or has failed."""
        self._owner = self._owner or caller_loop()
        if not self._started:
            self._started = True
            _live.add(self)
            submit(self._run())

    async def wait_ready(self, timeout: float) -> None:
        """Wait until connected or failed; a server still starting after `timeout` seconds fails."""
        self.start()
        await on_mcp_loop(self._wait_ready(timeout))

    async def close(self) -> None:
        """End the session and stop the server with everything it started."""
        await on_mcp_loop(self._close())

    async def _wait_ready(self, timeout: float) -> None:
        _import_client()
        try:
            await asyncio.wait_for(self._ready.wait(), timeout)
        except asyncio.TimeoutError:
            self._fail(f"did not start within {timeout:g}s (MCP_TIMEOUT)")
            await self._close()

    async def _close(self) -> None:
        self._stop.set()
        runner = self._runner
        if runner is not None and not runner.done():
            if self._session is None:  # still connecting: nothing to end politely
                await self._kill_process()
                runner.cancel()
            done, _ = await asyncio.wait({runner}, timeout=CLOSE_GRACE_S)
            if not done:
                runner.cancel()
                await asyncio.wait({runner}, timeout=CLOSE_GRACE_S)
        await self._kill_process()
        _live.discard(self)

    def _locate(self) -> None:
        """Find the server's pid by its marker (after it exec'd: before, /proc shows our environment)."""
        if self.pid is None and isinstance(self.config.entry, StdioServerConfig):
            self.pid = find_marked_child(self._marker)
            if self.pid is not None:
                track_process(self.pid, self._marker)

    async def _kill_process(self) -> None:
        self._locate()
        if self.pid is not None:
            await kill_tree_async(self.pid, self._marker)
            untrack_process(self.pid)
            self.pid = None

    async def _run(self) -> None:
        self._runner = asyncio.current_task()
        try:
            _import_client()
            if self._stop.is_set():
                return
            async with contextlib.AsyncExitStack() as stack:
                read, write = await stack.enter_async_context(await self._transport(stack))
                from mcp import ClientSession

                session = await stack.enter_async_context(ClientSession(read, write, message_handler=self._on_message))
                result = await session.initialize()
                self.server_name = getattr(getattr(result, "server_info", None), "name", "") or ""
                self.server_version = getattr(getattr(result, "server_info", None), "version", "") or ""
                self.tools = await _list_tools(session)
                from .resources import initial_resources

                self.capabilities = getattr(result, "capabilities", None)
                self.resources = await initial_resources(self, session)
                self._locate()
                self._session = session
                self.state, self.error = "connected", ""
                self._ready.set()
                call_in(self._owner, self.on_change, self)
                await self._stop.wait()
        except asyncio.CancelledError:
            raise
        except BaseException as exc:  # anyio wraps failures in groups; report the first real cause
            if not self._stop.is_set():
                self._fail(_describe(exc))
        finally:
            self._session = None
            self._ready.set()

    async def _transport(self, stack: contextlib.AsyncExitStack) -> Any:
        entry = self.config.entry
        if isinstance(entry, SdkServerConfig):
            if self.program_link is None:
                raise McpServerError('a "sdk" server lives inside a claude-agent-sdk program: it is reached only when such a program drives tui-agent')
            return self.program_link.transport(self.config.name)
        if isinstance(entry, StdioServerConfig):
            from mcp.client.stdio import StdioServerParameters, stdio_client

            # In the session's folder, which only the user may read (a server's errors may quote the conversation).
            errlog = stack.enter_context(open_private(self.log_path, "w", owned_from=self.log_path.parent))
            cwd = Path(entry.cwd).expanduser() if entry.cwd else self.cwd
            if not cwd.is_absolute():
                cwd = self.cwd / cwd
            # The whole environment, like a shell would give it (tokens the server needs), plus ours.
            env = {**os.environ, **entry.env, MARKER_ENV: self._marker}
            argv = [entry.command, *entry.args]
            boxed = self.sandbox.program_argv(argv, cwd) if self.sandbox is not None and self.config.scope == "project" else None
            if boxed is not None:
                argv, env = boxed[0], {**env, **boxed[1]}
            params = StdioServerParameters(command=argv[0], args=argv[1:], env=env, cwd=str(cwd))
            return stdio_client(params, errlog=errlog)
        assert isinstance(entry, HttpServerConfig)
        if entry.type == "sse":
            from mcp.client.sse import sse_client

            return sse_client(entry.url, headers=entry.headers or None)
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        client = await stack.enter_async_context(create_mcp_http_client(headers=entry.headers or None))
        return streamable_http_client(entry.url, http_client=client)

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, Exception) and self.state == "connected":
            self._fail(f"connection error: {message}")
        elif type(message).__name__ == "ResourceListChangedNotification" and self._session is not None:
            from .resources import refresh_later

            refresh_later(self, self._session)  # not awaited here: this handler runs in the session's reader

    def _fail(self, why: str) -> None:
        if self.state == "failed":
            return  # reported once
        tail = self.stderr_tail()
        self.state = "failed"
        self.error = why + (f"\nstderr:\n{tail}" if tail else "")
        self._ready.set()
        call_in(self._owner, self.on_change, self)

    def stderr_tail(self) -> str:
        try:
            with open(self.log_path, "rb") as f:
                f.seek(0, os.SEEK_END)
                size = f.tell()
                f.seek(max(0, size - STDERR_TAIL_CHARS))
                return f.read().decode("utf-8", "replace").strip()
        except OSError:
            return ""

    # ----- calls -----------------------------------------------------------------------------------
    async def with_session(self, call: Callable[[Any], Awaitable[Any]]) -> Any:
        """`call(session)` on the MCP loop (the resource requests: core/mcp/resources.py)."""
        return await on_mcp_loop(self._with_session(call))

    async def _with_session(self, call: Callable[[Any], Awaitable[Any]]) -> Any:
        if self._session is None or self.state != "connected":
            raise McpServerError(f"MCP server {self.name!r} is not connected ({self.state})")
        return await call(self._session)

    async def call_tool(self, name: str, arguments: dict[str, Any], progress: Callable[[str], None] | None = None, tool_use_id: str = "") -> Any:
        """The server's CallToolResult. Raises McpServerError when the server is gone or answers with
        an error; cancelling the calling task cancels the request on the server. `tool_use_id` goes in
        the request's `_meta` as `claudecode/toolUseId`, as Claude Code sends it."""
        owner = caller_loop()

        def report(text: str) -> None:
            if progress is not None:
                call_in(owner, progress, text)

        return await on_mcp_loop(self._call_tool(name, arguments, report, tool_use_id))

    async def _call_tool(self, name: str, arguments: dict[str, Any], progress: Callable[[str], None], tool_use_id: str = "") -> Any:
        session = self._session
        if session is None or self.state != "connected":
            raise McpServerError(f"MCP server {self.name!r} is not connected ({self.state}{': ' + self.error.splitlines()[0] if self.error else ''})")

        async def on_progress(done: float, total: float | None, message: str | None) -> None:
            progress((message or f"{done:g}" + (f"/{total:g}" if total else "")) + "\n")

        from mcp import MCPError
        from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT

        try:
            meta: Any = {"claudecode/toolUseId": tool_use_id} if tool_use_id else None
            return await session.call_tool(name, arguments, read_timeout_seconds=self.tool_timeout, progress_callback=on_progress, meta=meta)
        except MCPError as exc:
            if exc.code == CONNECTION_CLOSED:
                self._fail(f"the server closed the connection during {name}")
                raise McpServerError(f"MCP server {self.name!r} closed the connection during the call{self._tail_note()}") from None
            raise (McpTimeout if exc.code == REQUEST_TIMEOUT else McpServerError)(f"MCP error {exc.code}: {exc.message}") from None

    def _tail_note(self) -> str:
        tail = self.stderr_tail()
        return f"\nServer stderr (last lines):\n{tail[-800:]}" if tail else ""


async def _list_tools(session: Any) -> list[ToolSpec]:
    tools: list[ToolSpec] = []
    cursor: str | None = None
    while True:
        from mcp_types import PaginatedRequestParams

        listing = await session.list_tools(params=PaginatedRequestParams(cursor=cursor) if cursor else None)
        for tool in listing.tools:
            hints = tool.annotations
            tools.append(ToolSpec(
                tool.name,
                tool.description or "",
                dict(tool.input_schema or {"type": "object"}),
                bool(hints is not None and hints.read_only_hint),
                tool.title or "",
                _hints(hints),
            ))
        cursor = getattr(listing, "next_cursor", None)
        if not cursor:
            return tools


def _hints(hints: Any) -> tuple[tuple[str, bool], ...]:
    if hints is None:
        return ()
    named = (("readOnly", hints.read_only_hint), ("destructive", hints.destructive_hint), ("openWorld", hints.open_world_hint))
    return tuple((name, bool(value)) for name, value in named if value is not None)


def _describe(exc: BaseException) -> str:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, FileNotFoundError):
        return f"could not start: {exc.strerror}: {exc.filename}"
    text = str(exc) or type(exc).__name__
    return f"{type(exc).__name__}: {text}" if not isinstance(exc, (OSError, McpServerError)) else text


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name)


@atexit.register
def _stop_unlocated_servers() -> None:
    """A server still starting has no pid on record yet: find it by its marker and stop it at exit."""
    from ...tools.processes import kill_tree

    for conn in list(_live):
        pid = conn.pid or find_marked_child(conn._marker)
        if pid is not None:
            kill_tree(pid, conn._marker, grace=0.2)
