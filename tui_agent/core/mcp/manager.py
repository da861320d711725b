"""All MCP servers of a session: which run (approval), starting them in parallel, their tools, their
state for `/mcp`, the status line and stream-json's `init` line, reconnect / reload, and the end."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any, Callable

from .approval import ProjectApprovals
from .config import McpConfigSet, ServerConfig
from .connection import McpConnection
from .events import McpServersChanged, ServerStatus
from .resources import resource_tools
from .tools import McpTool
from ...tools.base import Tool

DEFAULT_STARTUP_TIMEOUT_S = 30.0
DEFAULT_TOOL_TIMEOUT_S = 100_000.0  # Claude Code's MCP_TOOL_TIMEOUT default is about as long (~28 h)


def env_seconds(name: str, default: float) -> float:
    """Claude Code's MCP_TIMEOUT / MCP_TOOL_TIMEOUT are milliseconds."""
    raw = os.environ.get(name, "").strip()
    try:
        value = float(raw) / 1000 if raw else default
    except ValueError:
        return default
    return value if value > 0 else default


class McpManager:
    def __init__(
        self,
        configs: McpConfigSet,
        approvals: ProjectApprovals,
        *,
        cwd: Path,
        log_dir: Path,
        emit: Callable[[Any], None] = lambda e: None,
        notice: Callable[[str, str], None] = lambda level, text: None,
        reload_configs: Callable[[], McpConfigSet] | None = None,
    ) -> None:
        self.configs = configs
        self.approvals = approvals
        self.cwd = cwd
        self.log_dir = log_dir
        self.emit = emit
        self.notice = notice
        self._reload_configs = reload_configs
        self.startup_timeout = env_seconds("MCP_TIMEOUT", DEFAULT_STARTUP_TIMEOUT_S)
        self.tool_timeout = env_seconds("MCP_TOOL_TIMEOUT", DEFAULT_TOOL_TIMEOUT_S)
        self.connections: dict[str, McpConnection] = {}
        self.verdicts: dict[str, str] = {}
        self._tools: list[Tool[Any]] | None = None
        self._reported: set[str] = set()
        self.sandbox: Any = None  # the session's (core/sandbox/install.py): project stdio servers run inside
        self.program_link: Any = None  # the SDK program's link (protocol/sdk_mcp.py): its "sdk" servers
        self.toggled_off: dict[str, str] = {}  # a program's mcp_toggle: name → the verdict it had
        for problem in configs.problems:
            notice("warning", problem)
        for config in configs.servers.values():
            self._add(config)

    def _add(self, config: ServerConfig) -> None:
        self.verdicts[config.name] = self.approvals.verdict(config)
        self.connections[config.name] = McpConnection(
            config, cwd=self.cwd, log_dir=self.log_dir, on_change=self._changed, tool_timeout=self.tool_timeout
        )
        self.connections[config.name].sandbox = self.sandbox
        self.connections[config.name].program_link = self.program_link

    # ----- which servers run -----------------------------------------------------------------------
    def runnable(self) -> list[McpConnection]:
        return [c for c in self.connections.values() if self.verdicts.get(c.name) == "approved" and not c.config.error]

    def pending_approval(self) -> list[ServerConfig]:
        """Project servers nobody has answered for yet (the app asks; headless skips them)."""
        return [c.config for c in self.connections.values() if self.verdicts.get(c.name) == "pending"]

    def skipped_lines(self) -> list[str]:
        """One line per project server headless mode does not start, saying how to allow it."""
        lines = []
        for c in self.connections.values():
            verdict = self.verdicts.get(c.name)
            if verdict in ("pending", "rejected"):
                why = "not approved for this project" if verdict == "pending" else "rejected for this project"
                lines.append(f'MCP server "{c.name}" ({c.config.source}) was not started: {why}; to allow it, {ProjectApprovals.how_to_allow(c.name)}')
        return lines

    def answer(self, server: ServerConfig, answer: str) -> None:
        """The approval dialog's answer: "approve", "approve_all" (every pending one), "reject"."""
        targets = self.pending_approval() if answer == "approve_all" else [server]
        approved = answer != "reject"
        self.approvals.record(targets, approved)
        for config in targets:
            self.verdicts[config.name] = "approved" if approved else "rejected"
            if approved:
                self.connections[config.name].start()
        self._changed(None)

    # ----- starting --------------------------------------------------------------------------------
    def start_all(self) -> None:
        """Start every runnable server in the background (the app; tools join once connected)."""
        for c in self.runnable():
            c.start()
        self._changed(None)

    async def wait_all(self) -> None:
        """Start every runnable server and wait for each, up to MCP_TIMEOUT (headless)."""
        runnable = self.runnable()
        if runnable:
            await asyncio.gather(*(c.wait_ready(self.startup_timeout) for c in runnable))

    async def reconnect(self, name: str) -> str:
        conn = self.connections.get(name)
        if conn is None:
            return f"No MCP server named {name!r}."
        await conn.close()
        self._reported.discard(name)
        self.connections[name] = fresh = McpConnection(conn.config, cwd=self.cwd, log_dir=self.log_dir, on_change=self._changed, tool_timeout=self.tool_timeout)
        fresh.sandbox = self.sandbox
        fresh.program_link = self.program_link
        self._changed(None)
        if self.verdicts.get(name) != "approved":
            return f"MCP server {name!r} is {self.verdicts.get(name)}; not started."
        await fresh.wait_ready(self.startup_timeout)
        return f"MCP server {name!r}: {fresh.state}" + (f" ({fresh.error.splitlines()[0]})" if fresh.error else "")

    def serve_program_servers(self, link: Any) -> None:
        """A claude-agent-sdk program drives this session: its `"sdk"` servers are reached through `link`."""
        self.program_link = link
        for connection in self.connections.values():
            connection.program_link = link

    async def set_enabled(self, name: str, enabled: bool) -> McpConnection:
        """Turn a server off (stopped, its tools gone, "disabled") or back on (started again) for this
        session. Turning on gives back the verdict it had: a project server nobody approved stays so."""
        conn = self.connections[name]
        if not enabled:
            if name not in self.toggled_off:
                self.toggled_off[name] = self.verdicts.get(name, "approved")
                self.verdicts[name] = "disabled"
                await conn.close()
                self._changed(None)
            return conn
        was_off = name in self.toggled_off
        if was_off:
            self.verdicts[name] = self.toggled_off.pop(name)
        if self.verdicts.get(name) == "approved" and (was_off or conn.state != "connected"):
            await self.reconnect(name)  # as Claude Code: turning on a failed server tries it again too
        return self.connections[name]

    async def reload(self) -> str:
        """Read the config files again: removed or changed servers stop, new or changed ones start."""
        if self._reload_configs is None:
            return "Nothing to reload."
        new = self._reload_configs()
        self.approvals = self.approvals.refreshed()  # keeps --settings and --setting-sources
        for problem in new.problems:
            self.notice("warning", problem)
        changed = [n for n, c in self.connections.items() if n not in new.servers or new.servers[n].entry_hash != c.config.entry_hash or new.servers[n].scope != c.config.scope]
        for name in changed:
            await self.connections.pop(name).close()
            self.verdicts.pop(name, None)
            self._reported.discard(name)
        added = [c for n, c in new.servers.items() if n not in self.connections]
        for config in added:
            self._add(config)
        self.configs = new
        for config in added:
            if self.verdicts[config.name] == "approved" and not config.error:
                self.connections[config.name].start()
        self._changed(None)
        return f"MCP config reloaded: {len(new.servers)} server(s), {len(added)} started or restarted, {len(changed) - len([n for n in changed if n in new.servers])} removed."

    async def watch_configs(self, stop: asyncio.Event) -> None:
        """Until `stop`: when a config file (`.mcp.json`, `~/.claude.json`) changes, offer a reload."""
        from watchfiles import awatch

        files = {p.absolute() for p in self.configs.watched_files}
        folders = sorted({str(p.parent) for p in files if p.parent.is_dir()})
        if not folders:
            return
        async for changes in awatch(*folders, stop_event=stop, recursive=False):
            changed = sorted({str(p) for _, p in changes if Path(p).absolute() in files})
            if changed:
                self.notice("info", f"MCP config changed ({', '.join(changed)}): type /mcp reload to apply it.")

    async def close(self) -> None:
        await asyncio.gather(*(c.close() for c in self.connections.values()), return_exceptions=True)

    # ----- state -----------------------------------------------------------------------------------
    def tools(self) -> list[Tool[Any]]:
        """The tools of every connected server (rebuilt when a server's state changes)."""
        if self._tools is None:
            self._tools = [McpTool(c, spec) for c in self.connections.values()
                           if c.state == "connected" and self.verdicts.get(c.name) == "approved" for spec in c.tools]
            self._tools += resource_tools(self)  # ListMcpResourcesTool / ReadMcpResourceTool, when a server has resources
        return self._tools

    def statuses(self) -> list[ServerStatus]:
        out = []
        for c in self.connections.values():
            verdict = self.verdicts.get(c.name)
            if c.config.error:
                state, error = "failed", c.config.error
            elif verdict == "pending":
                state, error = "needs-approval", ""
            elif verdict in ("rejected", "disabled"):
                state, error = "disabled", ""
            else:
                state, error = c.state, c.error
            out.append(ServerStatus(c.name, state, c.config.scope, c.config.transport, c.config.describe(), len(c.tools) if state == "connected" else 0, error))
        return out

    def summary(self) -> tuple[int, int]:
        """(connected, failed), for the status line."""
        states = [s.status for s in self.statuses()]
        return states.count("connected"), states.count("failed")

    def _changed(self, conn: McpConnection | None) -> None:
        self._tools = None
        if conn is not None and conn.state == "failed" and conn.name not in self._reported:
            self._reported.add(conn.name)
            self.notice("error", f"MCP server {conn.name!r} failed: {conn.error}")
        self.emit(McpServersChanged(tuple(self.statuses())))

