"""The `initialize` request's fields tui-agent does not act on: each is named once on stderr, never
dropped silently, and the session goes on (the program's other choices still apply).

The SDK (0.2.189, `_internal/query.py`) sends `hooks`, `agents`, and when the program sets them
`skills`, `excludeDynamicSections`, `systemPromptSnapshot` and `forwardSubagentText`; newer SDKs may
send more. A field whose value changes nothing (null, false) is not worth a line.
"""

from __future__ import annotations

from typing import Any, Callable

HANDLED = frozenset({"subtype", "hooks", "agents"})
"""What the protocol session acts on (hooks: protocol/hooks.py; agents: protocol/agents.py)."""

WHY: dict[str, str] = {
    "skills": "the skill allowlist is not applied: every skill of the .claude folders is offered",
    "excludeDynamicSections": "the system prompt has no dynamic sections to leave out",
    "systemPromptSnapshot": "the system prompt is tui-agent's own",
    "forwardSubagentText": "subagents' messages are always sent whole, with parent_tool_use_id",
}


class InitializeFields:
    """Names each unsupported field once per session, however often `initialize` comes."""

    def __init__(self, note: Callable[[str], None]) -> None:
        self.note = note
        self.named: set[str] = set()

    def check(self, request: dict[str, Any]) -> list[str]:
        """Name the unsupported fields of one `initialize` request; returns those named now."""
        fresh = [k for k, v in request.items() if k not in HANDLED and v is not None and v is not False and k not in self.named]
        for key in fresh:
            self.named.add(key)
            why = WHY.get(key, "tui-agent does not know this field")
            self.note(f"tui-agent: initialize field {key!r} is not supported and has no effect ({why})")
        return fresh
