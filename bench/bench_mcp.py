"""MCP figures: connecting a stdio server, one tool call's round trip, and how soon ESC stops waiting.

    python bench/bench_mcp.py [calls]

Runs the tests' MCP server (tests/mcp/mcp_test_server.py, written with the `mcp` package) as a subprocess
and talks to it through tui-agent's McpConnection (the MCP loop thread included). Prints medians and p95.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tui_agent.core.mcp.config import parse_servers  # noqa: E402
from tui_agent.core.mcp.connection import McpConnection  # noqa: E402

SERVER = ROOT / "tests" / "mcp" / "mcp_test_server.py"


def p95(values: list[float]) -> float:
    return sorted(values)[max(0, int(len(values) * 0.95) - 1)]


async def main(calls: int) -> None:
    servers, _ = parse_servers({"bench": {"command": sys.executable, "args": [str(SERVER)]}}, scope="dynamic", source="bench", env={})
    with tempfile.TemporaryDirectory() as logs:
        conn = McpConnection(servers["bench"], cwd=ROOT, log_dir=Path(logs))
        t0 = time.perf_counter()
        await conn.wait_ready(120)
        connect_s = time.perf_counter() - t0
        assert conn.state == "connected", conn.error
        await conn.call_tool("echo", {"text": "warm-up"})
        trips = []
        for i in range(calls):
            t = time.perf_counter()
            await conn.call_tool("echo", {"text": str(i)})
            trips.append((time.perf_counter() - t) * 1000)
        stops = []
        for _ in range(20):
            task = asyncio.ensure_future(conn.call_tool("slow", {"seconds": 30}))
            await asyncio.sleep(0.05)
            t = time.perf_counter()
            task.cancel()
            try:
                await task
            except asyncio.CancelledError:
                pass
            stops.append((time.perf_counter() - t) * 1000)
        await conn.close()
    print(f"connect (spawn, initialize, tools/list, incl. the mcp import): {connect_s:.2f} s")
    print(f"echo round trip over stdio, {calls} calls: median {statistics.median(trips):.2f} ms, p95 {p95(trips):.2f} ms")
    print(f"ESC on a running call, caller stops waiting: median {statistics.median(stops):.3f} ms, p95 {p95(stops):.3f} ms")


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 200))
