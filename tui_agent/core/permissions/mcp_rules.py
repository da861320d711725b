"""Permission rules for MCP tools, as Claude Code writes them.

`mcp__server` and `mcp__server__*` name every tool of a server; `mcp__server__tool` one tool (that case is
an ordinary whole-tool rule). Kept apart from the engine: it only asks "does this bare rule cover that tool".
"""

from __future__ import annotations

from typing import Any


def covers_mcp_tool(rule_tool: str, tool_name: str) -> bool:
    """Whether a bare rule naming `rule_tool` covers every call of the MCP tool `tool_name` by naming its server."""
    if not tool_name.startswith("mcp__") or not rule_tool.startswith("mcp__"):
        return False
    server = rule_tool[:-3] if rule_tool.endswith("__*") else rule_tool
    if server.count("__") != 1:  # `mcp__server__tool` is a tool rule, matched by name
        return False
    return tool_name.startswith(server + "__")


def denied_whole(policy: Any, tool_name: str) -> bool:
    """A bare deny rule removes the tool from the request (it could never run)."""
    rules_in_force = getattr(policy, "rules_in_force", None)
    if rules_in_force is None:
        return False
    return any(kind == "deny" and _bare_covers(text, tool_name) for kind, text, _source in rules_in_force())


def _bare_covers(text: str, tool_name: str) -> bool:
    text = text.strip()
    if "(" in text:
        return False
    return text == tool_name or covers_mcp_tool(text, tool_name)

