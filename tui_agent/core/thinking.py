"""Extended thinking: who asked for it (flag, environment, settings, the app's toggle) and what the request
carries for it.

Claude Code's mapping, seen on the wire (2.1.197 against the scripted server):
- `--max-thinking-tokens N` / `MAX_THINKING_TOKENS=N`: `thinking: {type: "enabled", budget_tokens: N}`, the
  budget kept below `max_tokens`; `0` (or `--thinking disabled`, or settings `alwaysThinkingEnabled: false`)
  turns it off. The flag wins over the environment, which wins over the settings.
- Claude 4.6 models get `{type: "adaptive"}`, later ones only accept that; a temperature is never sent
  with thinking (the API allows none but 1).
- Requests carry the `interleaved-thinking-2025-05-14` beta, so the model may think between tool calls.

Where we differ: thinking is off until someone asks for it (Claude Code 2.x turns it on by default), and
on a 4.6 model an explicit budget is honoured as a budget (the API still accepts it) rather than dropped.
A budget under the API's minimum of 1,024 is raised to it instead of being sent to fail; one that would leave
the answer less than 4,096 tokens under the model's output maximum (`model_limits`) shrinks.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from typing import Any, Literal, Mapping

from .model_limits import ANSWER_ROOM, MIN_THINKING_BUDGET, UNKNOWN_MODEL_CEILING, fit_output, known_ceiling

INTERLEAVED_BETA = "interleaved-thinking-2025-05-14"
MIN_BUDGET = MIN_THINKING_BUDGET
DEFAULT_BUDGET = 31_999
"""Claude Code's budget when thinking is on without a number (its max_tokens 32,000 minus one)."""

Source = Literal["flag", "env", "settings", "toggle", "default"]

_NO_THINKING = re.compile(r"^claude-(instant|2|3-(5-|haiku|opus|sonnet))")
_ADAPTIVE_ONLY = re.compile(r"^claude-(opus|sonnet|haiku)-(4-([7-9])|[5-9])(\b|-|$)")
_ADAPTIVE_OK = re.compile(r"^claude-(opus|sonnet)-4-6")


class ThinkingError(ValueError):
    """A thinking flag or variable that cannot be read (the message names it)."""


@dataclass(frozen=True, slots=True)
class ThinkingChoice:
    """What was asked for, and by whom."""

    on: bool = False
    budget: int | None = None
    """An explicit budget (flag or environment); None: the default."""
    adaptive: bool = False
    """`--thinking adaptive`: let the model decide how much to think."""
    display: str | None = None
    """`--thinking-display summarized|omitted`, passed on as `thinking.display`."""
    source: Source = "default"


def _budget(value: str, what: str) -> int:
    try:
        number = int(value.strip())
    except ValueError:
        raise ThinkingError(f"{what} must be a whole number of tokens, got {value!r}") from None
    if number < 0:
        raise ThinkingError(f"{what} must not be negative, got {number}")
    return number


def choose(
    *,
    thinking: str | None = None,
    max_thinking_tokens: str | int | None = None,
    display: str | None = None,
    env: Mapping[str, str] | None = None,
    always_enabled: bool | None = None,
) -> ThinkingChoice:
    """The choice from `--thinking`, `--max-thinking-tokens`, `MAX_THINKING_TOKENS` and settings
    `alwaysThinkingEnabled`, first given wins in that order. Raises ThinkingError on a bad value."""
    env = os.environ if env is None else env
    if display is not None and display not in ("summarized", "omitted"):
        raise ThinkingError(f"--thinking-display must be summarized or omitted, got {display!r}")
    if thinking is not None:
        if thinking not in ("enabled", "adaptive", "disabled"):
            raise ThinkingError(f"--thinking must be enabled, adaptive or disabled, got {thinking!r}")
        if thinking == "disabled":
            return ThinkingChoice(False, source="flag")
        budget = None if max_thinking_tokens is None else _budget(str(max_thinking_tokens), "--max-thinking-tokens")
        return ThinkingChoice(budget != 0, budget or None, thinking == "adaptive", display, "flag")
    if max_thinking_tokens is not None:
        budget = _budget(str(max_thinking_tokens), "--max-thinking-tokens")
        return ThinkingChoice(budget > 0, budget or None, display=display, source="flag")
    raw = env.get("MAX_THINKING_TOKENS", "").strip()
    if raw:
        budget = _budget(raw, "MAX_THINKING_TOKENS")
        return ThinkingChoice(budget > 0, budget or None, display=display, source="env")
    if always_enabled is not None:
        return ThinkingChoice(always_enabled, display=display, source="settings")
    return ThinkingChoice(False, display=display)


class ThinkingState:
    """The session's thinking switch. The app's toggle changes what the NEXT run uses: a run that is
    in a tool loop keeps its setting (the API rejects a switch in the middle of an assistant turn)."""

    def __init__(self, choice: ThinkingChoice | None = None) -> None:
        self.choice = choice or ThinkingChoice()
        self.active = self.choice

    @property
    def on(self) -> bool:
        """What the next run will use (what the status line shows)."""
        return self.choice.on

    def toggle(self) -> bool:
        self.choice = replace(self.choice, on=not self.choice.on, source="toggle")
        return self.choice.on

    def set(self, on: bool) -> None:
        self.choice = replace(self.choice, on=on, source="toggle")

    def begin_run(self) -> None:
        self.active = self.choice


def supports_thinking(model: str) -> bool:
    return not _NO_THINKING.match(model)


def thinking_config(choice: ThinkingChoice, model: str, max_tokens: int, ceiling: int | None = None) -> tuple[dict[str, Any] | None, int]:
    """(the request's `thinking` object or None, the max_tokens to send), both within `ceiling` (the
    model's output maximum, `model_limits`): a budget that would leave under ANSWER_ROOM for the answer
    shrinks, max_tokens rises above the budget as far as the ceiling allows."""
    if not choice.on or not supports_thinking(model):
        return None, max_tokens
    adaptive = choice.adaptive or bool(_ADAPTIVE_ONLY.match(model)) or (bool(_ADAPTIVE_OK.match(model)) and choice.budget is None)
    if adaptive:
        config: dict[str, Any] = {"type": "adaptive"}
    else:
        if ceiling is None:
            ceiling = known_ceiling(model) or UNKNOWN_MODEL_CEILING
        max_tokens, budget = fit_output(ceiling, max_tokens, choice.budget or DEFAULT_BUDGET, ANSWER_ROOM)
        if budget is None:  # a ceiling too small for the API's smallest budget
            return None, max_tokens
        config = {"type": "enabled", "budget_tokens": budget}
    if choice.display:
        config["display"] = choice.display
    return config, max_tokens


def _mid_tool_loop_without_thinking(messages: list[dict[str, Any]]) -> bool:
    """The request continues a tool loop whose assistant message did not start with thinking: the API
    refuses thinking there ("a final assistant message must start with a thinking block")."""
    if len(messages) < 2 or messages[-1].get("role") != "user":
        return False
    last = messages[-1].get("content")
    if isinstance(last, str) or not any(isinstance(b, dict) and b.get("type") == "tool_result" for b in last or []):
        return False
    prev = messages[-2]
    content = prev.get("content")
    if prev.get("role") != "assistant" or isinstance(content, str) or not content:
        return True
    return content[0].get("type") not in ("thinking", "redacted_thinking")


def apply_thinking(request: dict[str, Any], choice: ThinkingChoice, ceiling: int | None = None) -> dict[str, Any]:
    """The request with thinking as `choice` asks: the config, max_tokens above the budget (within
    `ceiling`), no temperature, and the interleaved-thinking beta when tools are offered."""
    config, max_tokens = thinking_config(choice, request["model"], request["max_tokens"], ceiling)
    if config is None or _mid_tool_loop_without_thinking(request.get("messages", [])):
        return request
    request["thinking"] = config
    request["max_tokens"] = max_tokens
    request.pop("temperature", None)
    if request.get("tools"):
        headers = dict(request.get("extra_headers") or {})
        betas = [b for b in headers.get("anthropic-beta", "").split(",") if b]
        if INTERLEAVED_BETA not in betas:
            headers["anthropic-beta"] = ",".join([*betas, INTERLEAVED_BETA])
        request["extra_headers"] = headers
    return request
