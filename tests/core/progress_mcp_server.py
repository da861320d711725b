"""A one-tool MCP server for the partial-output tests: `crawl` reports progress, then works for a minute.

    python progress_mcp_server.py      # stdio
"""

from __future__ import annotations

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import ToolAnnotations

server = MCPServer("prog")


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
async def crawl(pages: int, ctx: Context) -> str:
    """Read `pages` pages (reporting each), then a slow last step."""
    for page in range(1, pages + 1):
        await ctx.report_progress(page, pages + 1, f"page {page} read")
    await anyio.sleep(60)
    return "crawled"


if __name__ == "__main__":
    server.run()
