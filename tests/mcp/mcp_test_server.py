"""A small MCP server written with the `mcp` package's server API, run as a subprocess by the tests.

    python mcp_test_server.py                 # stdio
    python mcp_test_server.py --http PORT     # streamable HTTP on 127.0.0.1:PORT/mcp
    python mcp_test_server.py --sse PORT      # the older SSE transport on 127.0.0.1:PORT/sse
    python mcp_test_server.py --hang          # never answers (a server that never starts)
    python mcp_test_server.py --exit          # writes to stderr and exits at once

`MCP_TEST_LOG` names a file where the server appends what it saw (a cancelled call, a child's pid).
"""

from __future__ import annotations

import sys
import time

if "--hang" in sys.argv:  # before the slow imports: its stderr is there at once
    import os

    if os.environ.get("MCP_TEST_LOG"):
        with open(os.environ["MCP_TEST_LOG"], "a", encoding="utf-8") as f:
            f.write(f"server pid {os.getpid()}\n")
    sys.stderr.write("hanging forever\n")
    sys.stderr.flush()
    time.sleep(3600)

import base64
import os
import subprocess

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.utilities.types import Image
from mcp_types import ToolAnnotations
from pydantic import BaseModel

# A 1x1 PNG.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)

server = MCPServer("testsrv")


def log(line: str) -> None:
    path = os.environ.get("MCP_TEST_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(line + "\n")


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def echo(text: str) -> str:
    """Return the text unchanged."""
    return f"echo: {text}"


class Sum(BaseModel):
    sum: int
    operands: list[int]


@server.tool()
def add(a: int, b: int) -> Sum:
    """Add two integers (structured output)."""
    return Sum(sum=a + b, operands=[a, b])


@server.tool()
def fail(message: str) -> str:
    """Always fails with the message."""
    raise ToolError(f"it failed: {message}")


@server.tool()
def picture() -> Image:
    """A tiny PNG."""
    return Image(data=PNG, format="png")


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
async def slow(seconds: float) -> str:
    """Sleep, then answer."""
    log("slow started")
    try:
        await anyio.sleep(seconds)
    except anyio.get_cancelled_exc_class():
        log("slow cancelled")
        raise
    log("slow finished")
    return f"slept {seconds}"


@server.tool()
def crash() -> str:
    """The server dies in the middle of the call."""
    sys.stderr.write("about to crash: simulated fatal error\n")
    sys.stderr.flush()
    os._exit(3)


@server.tool()
def spawn_child() -> str:
    """Start a long-lived child process and return its pid."""
    child = subprocess.Popen(["sleep", "300"])
    log(f"child {child.pid}")
    return str(child.pid)


@server.tool()
def big(chars: int) -> str:
    """A long text."""
    return "x" * chars


def main(argv: list[str]) -> None:
    log(f"server pid {os.getpid()}")
    if "--exit" in argv:
        sys.stderr.write("fatal: missing configuration TESTSRV_TOKEN\n")
        sys.exit(1)
    if "--sse" in argv:
        server.run("sse", host="127.0.0.1", port=int(argv[argv.index("--sse") + 1]))
    elif "--http" in argv:
        port = int(argv[argv.index("--http") + 1])
        server.run("streamable-http", host="127.0.0.1", port=port)
    else:
        server.run()


if __name__ == "__main__":
    main(sys.argv[1:])
