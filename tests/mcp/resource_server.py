"""An MCP server with resources, written with the `mcp` package, run as a subprocess by the resource tests.

    python resource_server.py                  # resources: a text readme, a PNG, notes, one that fails to read;
                                               # the tool add_note adds one and sends resources/list_changed
    python resource_server.py --no-resources   # a low-level server with one tool and no resources capability
"""

from __future__ import annotations

import base64
import sys

import anyio
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.resources import TextResource

# A 1x1 PNG.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)
README = "# Project readme\nThe answer is 42.\n"


def with_resources() -> None:
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("docs")

    @server.resource("docs://readme", name="readme", description="The project readme", mime_type="text/markdown")
    def readme() -> str:
        return README

    @server.resource("docs://logo.png", name="logo", description="The logo", mime_type="image/png")
    def logo() -> bytes:
        return PNG

    @server.resource("notes://todo", name="todo list", mime_type="text/plain")
    def todo() -> str:
        return "- write tests\n- ship\n"

    @server.resource("docs://broken", name="broken", mime_type="text/plain")
    def broken() -> str:
        raise RuntimeError("disk on fire")

    @server.tool()
    def ping() -> str:
        """Answer pong."""
        return "pong"

    @server.tool()
    async def add_note(name: str, text: str, ctx: Context) -> str:
        """Add a `notes://<name>` resource and tell the client the list changed."""
        server.add_resource(TextResource(uri=f"notes://{name}", name=name, text=text, mime_type="text/plain"))
        await ctx.session.send_resource_list_changed()
        return "added"

    server.run()


def without_resources() -> None:
    import mcp_types as types
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server

    async def list_tools(ctx, params) -> types.ListToolsResult:  # type: ignore[no-untyped-def]
        return types.ListToolsResult(tools=[types.Tool(name="ping", description="Answer pong.", input_schema={"type": "object"})])

    async def call_tool(ctx, params) -> types.CallToolResult:  # type: ignore[no-untyped-def]
        return types.CallToolResult(content=[types.TextContent(type="text", text="pong")])

    server = Server("plain", on_list_tools=list_tools, on_call_tool=call_tool)

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)


if __name__ == "__main__":
    without_resources() if "--no-resources" in sys.argv else with_resources()
