"""`/context` without a model request: `tui-agent -p "/context"` answers with the breakdown in Markdown,
as `claude -p "/context"` does (a result with no turns), in every output format."""

from __future__ import annotations

from typing import Any

from ..events import LoopEnded, RunStarted
from .breakdown import ContextBreakdown, agent_breakdown


def _k(n: int) -> str:
    if n >= 1_000_000:
        return f"{n / 1_000_000:g}m"
    return f"{n / 1000:.1f}k" if n >= 1000 else str(n)


def markdown_breakdown(b: ContextBreakdown) -> str:
    """Claude Code's Markdown shape: a header, a table per category, then the named items."""
    pct = lambda n: f"{100 * b.share(n):.1f}%"  # noqa: E731
    lines = ["## Context Usage", "", f"**Model:** {b.model}  ", f"**Tokens:** {_k(b.used)} / {_k(b.window)} ({round(100 * b.share(b.used))}%)"]
    if b.auto_compact:
        left = max(0, b.threshold - b.used)
        lines.append(f"**Context left until auto-compact:** {round(100 * left / b.threshold) if b.threshold else 0}%")
    lines += ["", "### Estimated usage by category", "", "| Category | Tokens | Percentage |", "|----------|--------|------------|"]
    rows = [(c.name, c.tokens) for c in b.categories if c.tokens or c.deferred]
    rows.append(("Free space", b.free))
    if b.auto_compact:
        rows.append(("Autocompact buffer", b.buffer))
    lines += [f"| {name} | {_k(tokens)} | {pct(tokens)} |" for name, tokens in rows]
    for c in b.categories:
        if c.name in ("Memory files", "MCP tools") and c.items:
            column = "Path" if c.name == "Memory files" else "Tool"
            lines += ["", f"### {c.name}", "", f"| {column} | Tokens |", "|------|--------|"]
            lines += [f"| {i.name} | {_k(i.tokens)} |" for i in c.items]
    if b.largest_results:
        lines += ["", "### Largest tool results", "", "| Tool | Subject | Tokens |", "|------|---------|--------|"]
        lines += [f"| {i.name} | {i.detail.replace('|', '¦')} | {_k(i.tokens)} |" for i in b.largest_results]
    return "\n".join(lines) + "\n"


def is_context_command(prompt: str) -> bool:
    return prompt.strip() == "/context"


def context_command(agent: Any) -> LoopEnded:
    """Answer `/context` from the agent's state: the run's start and end events, no request."""
    agent.emit(RunStarted(agent.session.id, agent.model.config.model, "/context", agent.registry.names, str(agent.workspace.root), agent.demo))
    ended = LoopEnded("completed", "", markdown_breakdown(agent_breakdown(agent)), 0, 0, 0, agent.totals.cost_usd or 0.0)
    agent.emit(ended)
    return ended
