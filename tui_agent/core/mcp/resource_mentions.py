"""`@server:uri` in a prompt: that MCP resource's contents go with the prompt, as Claude Code attaches them.

Claude Code's regex finds the mentions; a mention counts when the server is connected and the URI is one it
listed (the list fetched at connect). The contents become `<system-reminder>` text blocks: "Full contents of
resource:", the text, and "Do NOT read this resource again…"; a binary one becomes `[Binary content: mime]`;
an empty one `<mcp-resource server=… uri=…>(No content)</mcp-resource>`. The read is the user's own act: no
permission is asked. Anything that does not resolve is left as text, with a notice saying why.
"""

from __future__ import annotations

import re
from typing import Any

from .connection import McpServerError
from .resources import read_resource

# Claude Code's: `@x:y` at the start or after whitespace (or CJK punctuation), ending on a word boundary.
RESOURCE_MENTION_RE = re.compile(r"(?:^|(?<=[\s\u3002\u3001\uFF1F\uFF01]))@([^\s]+:[^\s]+)\b")
# A name with no dot or slash: `@a.py:12` or `@src/x:1` is a path, not a server that is missing.
_PLAIN_NAME = re.compile(r"[\w-]+")
DO_NOT_REREAD = "Do NOT read this resource again unless you think it may have changed, since you already have the full contents."


def resource_mentions(text: str) -> list[tuple[str, str]]:
    """(server, uri) of each `@server:uri` in `text`, in order, each once."""
    found: list[tuple[str, str]] = []
    for m in RESOURCE_MENTION_RE.finditer(text):
        server, _, uri = m.group(1).partition(":")
        if server and uri and (server, uri) not in found:
            found.append((server, uri))
    return found


def _wrap(text: str) -> dict[str, Any]:
    return {"type": "text", "text": f"<system-reminder>\n{text}\n</system-reminder>"}


def content_blocks(server: str, uri: str, result: Any) -> list[dict[str, Any]]:
    """The blocks Claude Code attaches for a read resource."""
    blocks: list[dict[str, Any]] = []
    contents = list(getattr(result, "contents", None) or [])
    for item in contents:
        text = getattr(item, "text", None)
        if isinstance(text, str):
            blocks += [_wrap("Full contents of resource:"), _wrap(text), _wrap(DO_NOT_REREAD)]
        elif getattr(item, "blob", None) is not None:
            blocks.append(_wrap(f"[Binary content: {getattr(item, 'mime_type', None) or 'application/octet-stream'}]"))
    if blocks:
        return blocks
    empty = "(No content)" if not contents else "(No displayable content)"
    return [_wrap(f'<mcp-resource server="{server}" uri="{uri}">{empty}</mcp-resource>')]


async def attach_resource_mentions(text: str, manager: Any, blocks: list[dict[str, Any]], problems: list[str]) -> None:
    """Append the blocks of every resource `text` mentions to `blocks`, and what went wrong to `problems`.
    A part before the colon that looks like a path (`@src/a.py:12`) is not taken for a missing server."""
    if manager is None:
        return
    for server, uri in resource_mentions(text):
        conn = manager.connections.get(server)
        if conn is None:
            if manager.connections and _PLAIN_NAME.fullmatch(server):
                names = ", ".join(n for n, c in manager.connections.items() if c.state == "connected") or "none"
                problems.append(f"@{server}:{uri} was not attached: no MCP server is named {server!r} (connected: {names}).")
            continue
        mention = f"@{server}:{uri}"
        if conn.state != "connected" or manager.verdicts.get(server) != "approved":
            problems.append(f"{mention} was not attached: MCP server {server!r} is not connected.")
            continue
        if not any(r.get("uri") == uri for r in conn.resources):
            problems.append(f"{mention} was not attached: {server!r} lists no resource {uri!r}.")
            continue
        try:
            result = await read_resource(conn, uri)
        except McpServerError as exc:
            problems.append(f"{mention} was not attached: {exc}")
            continue
        blocks += content_blocks(server, uri, result)
