"""The result's `modelUsage`: the session's usage per model, in Claude Code's shape.

Claude Code 2.1.197 writes, for each model that answered (subagents' models too):
`{"inputTokens", "outputTokens", "cacheReadInputTokens", "cacheCreationInputTokens",
"webSearchRequests", "costUSD", "contextWindow", "maxOutputTokens"}` — the SDK reads it into
`ResultMessage.model_usage`. Like `total_cost_usd` and `usage`, the figures are the session's so far.
"""

from __future__ import annotations

from typing import Any, Mapping

from .accounting import Totals
from .context.window import limits_for


def model_usage(totals: Totals, overrides: Mapping[str, Any] | None = None) -> dict[str, dict[str, Any]]:
    """`modelUsage` for `totals`; `overrides` are the settings' `contextWindows` (window and output
    maximum per model, as the context meter uses them). A model without a known price costs 0 here:
    the field is a number in Claude Code's schema (the unknown cost stays None in `total_cost_usd`)."""
    out: dict[str, dict[str, Any]] = {}
    for model, tokens in totals.tokens_by_model.items():
        limits = limits_for(model, overrides)
        out[model] = {
            "inputTokens": tokens.get("input_tokens", 0),
            "outputTokens": tokens.get("output_tokens", 0),
            "cacheReadInputTokens": tokens.get("cache_read_input_tokens", 0),
            "cacheCreationInputTokens": tokens.get("cache_creation_input_tokens", 0),
            "webSearchRequests": tokens.get("web_search_requests", 0),
            "costUSD": totals.cost_by_model.get(model) or 0.0,
            "contextWindow": limits.window,
            "maxOutputTokens": limits.max_output,
        }
    return out


def agent_model_usage(agent: Any) -> dict[str, dict[str, Any]]:
    """`modelUsage` of an Agent's session, with the user's settings' `contextWindows`."""
    from .user_settings import settings_reader

    overrides = settings_reader(agent.policy)("contextWindows", None)  # a policy without settings reads None
    return model_usage(agent.totals, overrides if isinstance(overrides, Mapping) else None)
