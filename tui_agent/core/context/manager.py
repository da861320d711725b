"""The agent's context seam: the meter, the thresholds of the moment, and the events that report them.

`Agent` holds one `ContextManager` and calls it at a few points (after each response; before each
request; on `prompt is too long`); everything else about context lives in this package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from ..events import ContextUpdated
from ..user_settings import read_setting
from .tokens import ContextMeter, content_tokens, text_tokens
from .window import Thresholds, thresholds

if TYPE_CHECKING:
    from ..loop import Agent

Cause = Literal["response", "compaction", "pruning", "estimate"]


class ContextManager:
    """How full the agent's context is, against the thresholds its settings give."""

    def __init__(self, agent: "Agent") -> None:
        self.agent = agent
        self.meter = ContextMeter()

    def thresholds(self) -> Thresholds:
        """Read at the moment (an edit of the settings applies from the next request on)."""
        policy = self.agent.policy
        return thresholds(self.agent.model.config.model, read=lambda key, default: read_setting(policy, key, default))

    def overhead(self) -> int:
        """What every request carries besides the history: system prompt, tool definitions, memory."""
        agent = self.agent
        total = content_tokens(agent.system_blocks())
        tools = agent.registry.api_definitions()
        if tools:
            import json

            total += text_tokens(json.dumps(tools, ensure_ascii=False, default=str))
        if agent.memory is not None:
            probe: list[dict[str, Any]] = [{"role": "user", "content": []}]
            agent.memory.prepend(probe)
            total += content_tokens(probe[0]["content"])
        return total

    def used(self) -> int:
        return self.meter.used(self.agent.history, self.overhead())

    def size(self, cause: Cause = "estimate") -> ContextUpdated:
        """The context size now, as the event the front ends show."""
        t = self.thresholds()
        return ContextUpdated(self.used(), t.window, t.autocompact, t.prune, t.model, cause, t.autocompact_enabled)

    def report(self, cause: Cause) -> ContextUpdated:
        event = self.size(cause)
        self.agent.emit(event)
        return event

    def after_response(self, usage: dict[str, Any]) -> None:
        """A response arrived: its usage is the exact size of the context it saw plus its answer."""
        history = self.agent.history
        self.meter.observe(usage, history[-1] if history else None)
        if usage:
            self.report("response")
