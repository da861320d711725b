"""What a request may ask of a model: the most output tokens per model family and the API's minimums.

The API refuses a request whose `max_tokens` is above the model's maximum ("max_tokens: 51999 > 32000,
which is the maximum allowed number of output tokens for claude-opus-4-1-20250805"), and one whose
thinking `budget_tokens` is under 1,024 or not below `max_tokens`. Every request goes through
`OutputLimits.fit` on its way out (`ModelClient.stream`), so none can ask for more; the places that
choose sizes (thinking, compaction, the raised retry of a cut tool call) size within the same ceiling
with `fit_output`, so what they meant survives the clamp.

Figures: Anthropic's model pages ("Max output"), as of this writing. Where the pages disagree over time
the lower figure is kept (a too-low ceiling costs a long answer; a too-high one costs every request).
`core/context/window.py` beside it holds the context windows and Claude Code's *default* output cap
(what the compaction threshold reserves), which is not the model's maximum.

A model the table does not know (a local model behind ANTHROPIC_BASE_URL) gets the user's own figure
(`CLAUDE_CODE_MAX_OUTPUT_TOKENS`, or settings `contextWindows.<model>.maxOutputTokens`), else 8,192, a
size any endpoint accepts; the session says so once per model.
"""

from __future__ import annotations

import os
import re
from typing import Any, Callable, Mapping

MIN_THINKING_BUDGET = 1_024
"""The API's smallest `budget_tokens`; it must also stay below `max_tokens`."""
ANSWER_ROOM = 4_096
"""Output tokens kept for the answer above a thinking budget when the ceiling forces a choice."""
UNKNOWN_MODEL_CEILING = 8_192
"""For a model the table does not know and the user gave no figure for."""
MAX_OUTPUT_ENV = "CLAUDE_CODE_MAX_OUTPUT_TOKENS"

# (family prefix, most output tokens); the longest matching prefix wins.
OUTPUT_CEILINGS: dict[str, int] = {
    "claude-fable-5": 128_000,
    "claude-opus-5": 128_000,
    "claude-sonnet-5": 128_000,
    "claude-opus-4-8": 128_000,
    "claude-opus-4-7": 128_000,
    "claude-opus-4-6": 128_000,
    "claude-opus-4-5": 64_000,
    "claude-opus-4-1": 32_000,
    "claude-opus-4": 32_000,
    # Sonnet 4.6: 64K at release, 128K on later pages; the lower figure is kept (see above).
    "claude-sonnet-4-6": 64_000,
    "claude-sonnet-4-5": 64_000,
    "claude-sonnet-4": 64_000,
    "claude-haiku-4-5": 64_000,
    "claude-3-7-sonnet": 64_000,
    "claude-3-5-sonnet": 8_192,
    "claude-3-5-haiku": 8_192,
    "claude-3-opus": 4_096,
    "claude-3-sonnet": 4_096,
    "claude-3-haiku": 4_096,
    "claude-2": 4_096,
    "claude-instant": 4_096,
}

_VERSION_DOT = re.compile(r"(?<=\d)\.(?=\d)")
_BOUNDARY = "-@:_"


def canonical(model: str) -> str:
    """The Anthropic id inside a provider's name: `us.anthropic.claude-opus-4-1-20250805-v1:0` (Bedrock),
    `claude-opus-4-1@20250805` (Vertex), `anthropic/claude-opus-4.1`, `claude-sonnet-4-6[1m]` all
    start with the family they belong to."""
    name = model.strip().lower()
    name = re.sub(r"\[[^\]]*\]$", "", name).rsplit("/", 1)[-1]
    at = name.find("claude-")
    if at > 0:
        name = name[at:]
    return _VERSION_DOT.sub("-", name)


def known_ceiling(model: str) -> int | None:
    """The table's maximum for `model` (a dated id, an alias or a provider's name), None when unknown."""
    name = canonical(model)
    best = ""
    for prefix in OUTPUT_CEILINGS:
        if name.startswith(prefix) and len(prefix) > len(best) and (len(name) == len(prefix) or name[len(prefix)] in _BOUNDARY):
            best = prefix
    return OUTPUT_CEILINGS[best] if best else None


def fit_output(ceiling: int, max_tokens: int, budget: int | None = None, answer_room: int = ANSWER_ROOM) -> tuple[int, int | None]:
    """(max_tokens, thinking budget) within `ceiling`. A budget that leaves less than `answer_room` under
    the ceiling shrinks (never under the API's 1,024) rather than failing; max_tokens is raised above a
    budget it does not exceed (the API's rule), as far as the ceiling allows. Budget None: no thinking,
    also when the ceiling is too small for any."""
    max_tokens = max(1, min(max_tokens, ceiling))
    if budget is None or ceiling <= MIN_THINKING_BUDGET:
        return max_tokens, None
    budget = max(MIN_THINKING_BUDGET, budget)
    if budget + answer_room > ceiling:
        budget = max(MIN_THINKING_BUDGET, ceiling - answer_room)
    if budget >= max_tokens:
        max_tokens = min(ceiling, budget + answer_room)
    return max_tokens, min(budget, max_tokens - 1)


def _positive(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)) and value > 0:
        return int(value)
    if isinstance(value, str) and value.strip().isdigit() and int(value) > 0:
        return int(value)
    return None


def explicit_max_output(read: Callable[[str, Any], Any] | None = None, environ: Mapping[str, str] | None = None) -> int | None:
    """`CLAUDE_CODE_MAX_OUTPUT_TOKENS` from the environment, else from the settings' `env` block."""
    env = os.environ if environ is None else environ
    found = _positive(env.get(MAX_OUTPUT_ENV, ""))
    if found is None and read is not None:
        block = read("env", None)
        if isinstance(block, Mapping):
            found = _positive(block.get(MAX_OUTPUT_ENV))
    return found


class OutputLimits:
    """One session's limits: the table, the user's own figures, and the once-per-model notice."""

    def __init__(self, *, explicit: int | None = None, overrides: Mapping[str, Any] | None = None,
                 notify: Callable[[str], None] | None = None) -> None:
        self.explicit = explicit
        """`CLAUDE_CODE_MAX_OUTPUT_TOKENS`: the user's figure for a model the table does not know."""
        self.overrides = overrides if isinstance(overrides, Mapping) else None
        """Settings `contextWindows` (`{"<model or prefix>": {"maxOutputTokens": N}}`), longest prefix winning."""
        self.notify = notify
        self._told: set[str] = set()

    def _override(self, model: str) -> int | None:
        if self.overrides is None:
            return None
        name = model.strip().lower()
        keys = sorted((k for k in self.overrides if isinstance(k, str) and name.startswith(k.lower())), key=len, reverse=True)
        entry = self.overrides[keys[0]] if keys else None
        return _positive(entry.get("maxOutputTokens")) if isinstance(entry, Mapping) else None

    def ceiling(self, model: str) -> int:
        """The most output tokens a request to `model` may ask for. A user's figure can lower a known
        model's maximum, never raise it; for an unknown model it is all there is to go by."""
        known = known_ceiling(model)
        mine = self._override(model) or self.explicit
        if known is not None:
            return min(known, mine) if mine else known
        return mine or UNKNOWN_MODEL_CEILING

    def fit(self, request: dict[str, Any]) -> dict[str, Any]:
        """`request` with max_tokens and any thinking budget within the model's ceiling (a copy when
        anything changes; the caller's dict is left as it was)."""
        model = str(request.get("model", ""))
        ceiling = self.ceiling(model)
        self._tell_once(model, ceiling)
        wanted = request.get("max_tokens")
        if not isinstance(wanted, int):
            return request
        thinking = request.get("thinking")
        budget = thinking.get("budget_tokens") if isinstance(thinking, dict) and thinking.get("type") == "enabled" else None
        max_tokens, fitted = fit_output(ceiling, wanted, budget if isinstance(budget, int) else None)
        if max_tokens == wanted and fitted == budget:
            return request
        out = {**request, "max_tokens": max_tokens}
        if isinstance(budget, int):
            if fitted is None:  # no room for any thinking under this ceiling
                out.pop("thinking")
            else:
                out["thinking"] = {**thinking, "budget_tokens": fitted}  # type: ignore[dict-item]
        return out

    def _tell_once(self, model: str, ceiling: int) -> None:
        if self.notify is None or model in self._told or known_ceiling(model) is not None:
            return
        self._told.add(model)
        if self._override(model) or self.explicit:
            return  # the user gave the figure: nothing to tell
        self.notify(
            f"The model {model!r} is not in tui-agent's table of output limits: requests ask for at most "
            f"{ceiling:,} output tokens. If it allows more, set {MAX_OUTPUT_ENV} (or settings "
            f"contextWindows.\"{model}\".maxOutputTokens)."
        )
