"""A project's stdio MCP server (`.mcp.json`, approved) runs inside the session's sandbox when it is enabled
(issue 25, beyond Claude Code); a server the user configured (here `--mcp-config`) stays the user's own."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import psutil

from tests.core.sandbox_support import need_bwrap
from tests.mcp.conftest import SERVER, mcp_dynamic, stdio_entry, write_mcp_json
from tui_agent.core.mcp import mcp_manager
from tui_agent.providers.scripted import Reply, Text


def _namespaces(marker: str) -> set[str]:
    """The PID namespaces of every process carrying the connection's marker."""
    found = set()
    for proc in psutil.process_iter():
        try:
            with open(f"/proc/{proc.pid}/environ", "rb") as f:
                if f"TUI_AGENT_SHELL_ID={marker}".encode() in f.read():
                    found.add(os.readlink(f"/proc/{proc.pid}/ns/pid"))
        except OSError:
            continue
    return found


async def test_a_project_server_runs_in_the_sandbox_and_a_users_does_not(make_agent, work: Path, home: Path) -> None:
    need_bwrap()
    write_mcp_json(work, {"repo-tool": stdio_entry(fresh=True)})  # its process must run inside bwrap
    (work / ".claude").mkdir()
    (work / ".claude" / "settings.local.json").write_text(json.dumps({
        "enabledMcpjsonServers": ["repo-tool"],
        # The test server runs from this checkout's venv, which the private /tmp hides when the checkout lies
        # under /tmp (as CI's may): allowRead lets it be read, as a user would for a server's own venv.
        "sandbox": {"enabled": True, "filesystem": {"allowRead": [sys.prefix, str(SERVER.parent)]}},
    }))
    h = make_agent([Reply([Text("ok")])], mcp_config=mcp_dynamic(("mine", stdio_entry(fresh=True))))
    manager = mcp_manager(h.agent)
    assert manager is not None
    try:
        await manager.wait_all()
        repo, mine = manager.connections["repo-tool"], manager.connections["mine"]
        assert repo.state == "connected" and mine.state == "connected", (repo.error, mine.error)
        ours = os.readlink("/proc/self/ns/pid")
        assert _namespaces(repo._marker) - {ours}  # the server itself is in a PID namespace of its own
        assert _namespaces(mine._marker) == {ours}
        assert [t.name for t in repo.tools]  # and it works: it listed its tools through the sandbox
    finally:
        await h.agent.close()
