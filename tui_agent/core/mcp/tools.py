"""MCP tools as ordinary Tools: `mcp__<server>__<tool>`, the server's schema as is, results shaped as
Claude Code shapes them (text and image blocks, structuredContent as compact JSON, isError)."""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import ConfigDict

from ...tools.base import Tool, ToolContext, ToolError, ToolInput, ToolOutput, ToolTimeout
from .connection import McpConnection, McpServerError, McpTimeout, ToolSpec

MAX_DESCRIPTION_CHARS = 2_048
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})


def normalize_name(name: str) -> str:
    """Every character outside `[A-Za-z0-9_-]` becomes `_` (Claude Code's rule for tool names)."""
    return _UNSAFE.sub("_", name)


def mcp_tool_name(server: str, tool: str) -> str:
    return f"mcp__{normalize_name(server)}__{normalize_name(tool)}"


def server_prefix(server: str) -> str:
    return f"mcp__{normalize_name(server)}__"


class McpToolInput(ToolInput):
    """Any JSON object: the server validates its own input against the schema it published."""

    model_config = ConfigDict(extra="allow", strict=False)


class McpTool(Tool[McpToolInput]):
    """One tool of one connected server."""

    Input = McpToolInput

    def __init__(self, connection: McpConnection, spec: ToolSpec) -> None:
        self.connection = connection
        self.spec = spec
        self.server = connection.name
        self.name = mcp_tool_name(connection.name, spec.name)  # type: ignore[misc]
        text = spec.description or spec.title or spec.name
        if len(text) > MAX_DESCRIPTION_CHARS:
            text = text[: MAX_DESCRIPTION_CHARS - 1] + "…"
        self.description = text  # type: ignore[misc]

    def is_read_only(self, input: McpToolInput) -> bool:
        # Even a tool that says it only reads asks first: the hint is the server's claim, not ours.
        return False

    def is_concurrency_safe(self, input: McpToolInput) -> bool:
        return self.spec.read_only

    def summarize(self, input: McpToolInput) -> str:
        # The tool's name already says server and tool: the summary is the arguments.
        return json.dumps(input.model_extra or {}, ensure_ascii=False, separators=(", ", ": "))[:200]

    def input_schema(self) -> dict[str, Any]:
        return self.spec.input_schema

    async def call(self, input: McpToolInput, ctx: ToolContext) -> ToolOutput:
        try:
            result = await self.connection.call_tool(self.spec.name, dict(input.model_extra or {}), ctx.progress, ctx.tool_use_id)
        except McpTimeout as exc:  # the result keeps the progress the server reported
            raise ToolTimeout(str(exc)) from None
        except McpServerError as exc:
            raise ToolError(str(exc)) from None
        return shape_result(result)


def shape_result(result: Any) -> ToolOutput:
    """A CallToolResult → what the model gets (a string when it is all text, else blocks)."""
    blocks: list[dict[str, Any]] = []
    for item in result.content or []:
        blocks.extend(_content_blocks(item))
    structured = getattr(result, "structured_content", None)
    if structured is not None:
        # The text blocks are the same data for older clients (the spec asks servers to repeat it): the
        # model gets the structured value once, as compact JSON, and any images beside it.
        compact = json.dumps(structured, ensure_ascii=False, separators=(",", ":"))
        blocks = [{"type": "text", "text": compact}, *(b for b in blocks if b["type"] != "text")]
    is_error = bool(getattr(result, "is_error", False))
    if is_error or all(b["type"] == "text" for b in blocks):
        return ToolOutput("\n".join(b.get("text", "") for b in blocks if b["type"] == "text"), is_error=is_error)
    return ToolOutput(blocks)


def _content_blocks(item: Any) -> list[dict[str, Any]]:
    kind = getattr(item, "type", "")
    if kind == "text":
        return [{"type": "text", "text": item.text}]
    if kind == "image":
        if item.mime_type in IMAGE_TYPES:
            return [{"type": "image", "source": {"type": "base64", "media_type": item.mime_type, "data": item.data}}]
        return [{"type": "text", "text": f"[image of type {item.mime_type} omitted: not a format the model reads]"}]
    if kind == "audio":
        return [{"type": "text", "text": f"[audio ({item.mime_type}) omitted: the model does not take audio]"}]
    if kind == "resource":
        res = item.resource
        text = getattr(res, "text", None)
        if text is not None:
            return [{"type": "text", "text": text}]
        mime = getattr(res, "mime_type", None) or ""
        if mime in IMAGE_TYPES:
            return [{"type": "image", "source": {"type": "base64", "media_type": mime, "data": res.blob}}]
        return [{"type": "text", "text": f"[binary resource {res.uri} ({mime or 'unknown type'}) omitted]"}]
    if kind == "resource_link":
        title = getattr(item, "title", None) or item.name
        return [{"type": "text", "text": f"[Resource link: {title}] {item.uri}" + (f" ({item.description})" if item.description else "")}]
    return [{"type": "text", "text": f"[unsupported MCP content: {kind}]"}]
