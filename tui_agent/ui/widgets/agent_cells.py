"""A subagent's cell in the conversation: its Agent call, its live activity, then its report.

One cell per subagent; the report folds to a few lines (enter expands it) with a line of figures
(tool uses, tokens, duration) as Claude Code shows them.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text

from .tool_calls import ToolCall

AGENT_TOOLS = frozenset({"Agent", "Task"})


def is_agent_call(call: ToolCall) -> bool:
    return call.name in AGENT_TOOLS


def live_label(call: ToolCall) -> str:
    """`running… · Grep: TODO` while the subagent works (its latest tool, from the call's progress)."""
    return f"running… · {call.last_line}" if call.last_line else "running…"


def report_text(data: Any) -> str | None:
    """The subagent's report from the Agent call's result data, or None when it has none."""
    if not isinstance(data, dict) or "agentType" not in data:
        return None
    return "\n".join(b.get("text", "") for b in data.get("content") or [] if isinstance(b, dict))


def figures(data: dict[str, Any]) -> str:
    tokens = int(data.get("totalTokens") or 0)
    uses = int(data.get("totalToolUseCount") or 0)
    seconds = int(data.get("totalDurationMs") or 0) / 1000
    tok = f"{tokens / 1000:.1f}k" if tokens >= 1000 else str(tokens)
    return f"{data.get('agentType', '')} · {uses} tool use{'s' if uses != 1 else ''} · {tok} tokens · {seconds:.1f}s"


def agent_body(call: ToolCall, expanded: bool, styles: Any, collapsible: Any) -> Text | None:
    """The finished cell's body: the report (folded) and the figures; None when not an agent's."""
    report = report_text(call.data)
    if report is None:
        return None
    role = "error" if call.phase == "error" else "text"
    text = collapsible(report.strip().splitlines() or ["(no report)"], expanded, role)
    text.append("\n" + figures(call.data), style=styles("muted"))
    return text
