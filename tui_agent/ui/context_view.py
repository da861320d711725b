"""The app's view of the context and of thinking: the status line's meter (updated only when the core
reports `ContextUpdated`, never per streamed delta), `/context`, and alt+t's thinking switch."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from ..core.context.breakdown import ContextBreakdown, agent_breakdown, format_breakdown
from ..core.events import ContextUpdated
from .host import CommandHost
from .widgets.status import StatusLine

if TYPE_CHECKING:
    from .app import TuiAgentApp

THINKING_KEY = "alt+t"


def show_context(status: StatusLine, event: ContextUpdated) -> None:
    state = status.state
    state.context_left = event.left_until_compaction
    state.context_used = event.share_of_window
    state.auto_compact = event.auto_compact
    status.refresh()


def show_thinking(status: StatusLine, agent: Any) -> None:
    status.state.thinking = bool(agent.thinking.on)
    status.refresh()


def report_context_size(app: TuiAgentApp) -> None:
    """Ask the core for the meter now (a session opened, the history cleared): computed on the core's
    thread, shown when its event arrives like any other."""
    agent = app.agent
    app.runner.call(lambda: app.batcher(agent.context_size()))


def toggle_thinking(app: TuiAgentApp) -> None:
    """alt+t: extended thinking on or off from the next prompt (a run in progress keeps its setting)."""
    if not app.ready:
        return
    on = app.agent.thinking.toggle()
    show_thinking(app.status, app.agent)
    when = " from the next prompt" if app.running else ""
    app.notify(f"Thinking {'on' if on else 'off'}{when} ({THINKING_KEY} switches it)", timeout=3)


async def context_breakdown_now(app: CommandHost) -> ContextBreakdown:
    """The breakdown, computed on the core's thread when the app has one (the agent lives there)."""
    agent = app.agent
    runner = app.runner
    if runner is None:
        return agent_breakdown(agent)

    async def compute() -> ContextBreakdown:
        return agent_breakdown(agent)

    return await asyncio.wrap_future(runner.submit(compute()))


async def context_command(app: CommandHost, arg: str) -> None:
    from .commands import say

    breakdown = await context_breakdown_now(app)
    width = max(40, app.size.width - 6)  # the transcript's gutter and padding
    say(app, format_breakdown(breakdown, width))
