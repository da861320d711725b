"""Token and cost accounting for a session: each response's usage added to the totals."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .events import UsageUpdated
from .pricing import cost_usd


@dataclass(slots=True)
class Totals:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cost_usd: float | None = 0.0
    cost_by_model: dict[str, float | None] = field(default_factory=dict)
    tokens_by_model: dict[str, dict[str, int]] = field(default_factory=dict)
    """Per model (subagents' too): the usage fields summed, for the result's `modelUsage` (core/model_usage.py)."""

    def as_usage(self) -> dict[str, int]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_read_input_tokens": self.cache_read_input_tokens,
            "cache_creation_input_tokens": self.cache_creation_input_tokens,
        }

    def add(self, model: str, usage: dict[str, Any]) -> UsageUpdated | None:
        """Count one response's usage; the event to emit (None when the response carried none)."""
        if not usage:
            return None
        inp = usage.get("input_tokens", 0)
        out = usage.get("output_tokens", 0)
        c_read = usage.get("cache_read_input_tokens", 0)
        c_write = usage.get("cache_creation_input_tokens", 0)
        cost = cost_usd(model, inp, out, c_read, c_write)
        self.input_tokens += inp
        self.output_tokens += out
        self.cache_read_input_tokens += c_read
        self.cache_creation_input_tokens += c_write
        if cost is None:
            self.cost_usd = None
        elif self.cost_usd is not None:
            self.cost_usd += cost
        mine = self.tokens_by_model.setdefault(model, {})
        for key, value in (("input_tokens", inp), ("output_tokens", out), ("cache_read_input_tokens", c_read),
                           ("cache_creation_input_tokens", c_write)):
            mine[key] = mine.get(key, 0) + value
        searches = (usage.get("server_tool_use") or {}).get("web_search_requests", 0)
        mine["web_search_requests"] = mine.get("web_search_requests", 0) + (searches if isinstance(searches, int) else 0)
        prev = self.cost_by_model.get(model, 0.0)
        self.cost_by_model[model] = None if cost is None or prev is None else prev + cost
        return UsageUpdated(
            model, inp, out, c_read, c_write,
            self.input_tokens + self.cache_read_input_tokens + self.cache_creation_input_tokens,
            self.output_tokens, cost, self.cost_usd,
        )
