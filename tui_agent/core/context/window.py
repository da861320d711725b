"""Model windows and the thresholds that act on them.

`limits_for(model)` is the table: the context window and the output maximum per model family
(Claude Code's default output cap, 32 k, for the 4.x families; a `[1m]` suffix on a Sonnet or Opus 4
model is the 1 M window; unknown models 200 k / 32 k). `thresholds(model, ...)` turns it into the
numbers the loop acts on:

- automatic compaction at `window − min(output max, 20 k) − 13 k` (167 k for 200 k / 32 k), as Claude
  Code computes it. `CLAUDE_AUTOCOMPACT_PCT_OVERRIDE` (percent, 1-100, of the window less its output
  reserve) can only lower it, as in Claude Code; `autoCompactWindow` / `CLAUDE_CODE_AUTO_COMPACT_WINDOW`
  caps the window used; `autoCompactEnabled: false` / `DISABLE_AUTO_COMPACT` turn it off;
- pruning of old tool results at a lower threshold: `autoPrunePct` percent (default 80) of the
  compaction threshold (ours; `autoPruneEnabled: false` turns it off);
- the table itself is overridable in settings (ours): `"contextWindows": {"<model name or prefix>":
  {"contextWindow": 1000000, "maxOutputTokens": 64000}}`, the longest matching prefix winning.

The most a model may produce in one response (what no request may exceed) is `core/model_limits.py`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Callable, Mapping

DEFAULT_WINDOW = 200_000
ONE_MILLION = 1_000_000
DEFAULT_MAX_OUTPUT = 32_000
OUTPUT_RESERVE_CAP = 20_000
"""At most this much of the window is kept for the answer (Claude Code's summary output allowance)."""
AUTOCOMPACT_BUFFER = 13_000
"""Headroom under the reserve, so the compaction request itself fits in the window."""
DEFAULT_PRUNE_PCT = 80
MIN_AUTOCOMPACT_WINDOW = 20_000

SettingReader = Callable[[str, Any], Any]
"""`read(key, default)`: a settings key, later files winning (`core.user_settings.read_setting`)."""


@dataclass(frozen=True, slots=True)
class ModelLimits:
    """A model's context window and the output maximum requests use by default (tokens)."""

    window: int
    max_output: int


# (prefix, window, output maximum); the first match wins, so longer prefixes come first.
_TABLE: tuple[tuple[str, int, int], ...] = (
    ("claude-sonnet-4", DEFAULT_WINDOW, 32_000),
    ("claude-opus-4", DEFAULT_WINDOW, 32_000),
    ("claude-haiku-4", DEFAULT_WINDOW, 32_000),
    ("claude-3-7-sonnet", DEFAULT_WINDOW, 32_000),
    ("claude-3-5-sonnet", DEFAULT_WINDOW, 8_192),
    ("claude-3-5-haiku", DEFAULT_WINDOW, 8_192),
    ("claude-3-opus", DEFAULT_WINDOW, 4_096),
    ("claude-3-sonnet", DEFAULT_WINDOW, 4_096),
    ("claude-3-haiku", DEFAULT_WINDOW, 4_096),
)
_ONE_M_FAMILIES = ("claude-sonnet-4", "claude-opus-4")


def limits_for(model: str, overrides: Mapping[str, Any] | None = None) -> ModelLimits:
    """The window and output maximum of `model` (see the module's docstring)."""
    name = model.strip().lower()
    one_m = name.endswith("[1m]")
    base = name.removesuffix("[1m]")
    limits = ModelLimits(DEFAULT_WINDOW, DEFAULT_MAX_OUTPUT)
    for prefix, window, output in _TABLE:
        if base.startswith(prefix):
            limits = ModelLimits(window, output)
            if one_m and prefix in _ONE_M_FAMILIES:
                limits = ModelLimits(ONE_MILLION, output)
            break
    return _overridden(name, limits, overrides)


def _overridden(name: str, limits: ModelLimits, overrides: Mapping[str, Any] | None) -> ModelLimits:
    if not isinstance(overrides, Mapping):
        return limits
    keys = sorted((k for k in overrides if isinstance(k, str) and name.startswith(k.lower())), key=len, reverse=True)
    if not keys or not isinstance(overrides[keys[0]], Mapping):
        return limits
    entry = overrides[keys[0]]
    window = _positive_int(entry.get("contextWindow"), limits.window)
    output = _positive_int(entry.get("maxOutputTokens"), limits.max_output)
    return ModelLimits(window, output)


def _positive_int(value: Any, default: int) -> int:
    if isinstance(value, bool):
        return default
    if isinstance(value, (int, float)) and value > 0:
        return int(value)
    if isinstance(value, str) and value.strip().isdigit() and int(value) > 0:
        return int(value)
    return default


def _pct(value: Any) -> float | None:
    try:
        pct = float(value)
    except (TypeError, ValueError):
        return None
    return pct if 0 < pct <= 100 else None


def autocompact_threshold(limits: ModelLimits, *, pct_override: float | None = None, window_cap: int | None = None) -> int:
    """Claude Code's: the window (capped by `window_cap`) less min(output max, 20 k) less 13 k; a
    percent override applies to the window less its output reserve and never raises it."""
    window = min(limits.window, window_cap) if window_cap else limits.window
    effective = window - min(limits.max_output, OUTPUT_RESERVE_CAP)
    default = effective - AUTOCOMPACT_BUFFER
    if pct_override is not None:
        return max(1, min(int(effective * pct_override / 100), default))
    return max(1, default)


def prune_threshold(autocompact: int, pct: float = DEFAULT_PRUNE_PCT) -> int:
    """Old tool results are pruned above this many tokens (a share of the compaction threshold)."""
    return max(1, int(autocompact * pct / 100))


@dataclass(frozen=True, slots=True)
class Thresholds:
    """What the loop compares the context size with, for one model and the settings of the moment."""

    model: str
    window: int
    max_output: int
    autocompact: int
    """Compact before a request whose context would pass this."""
    prune: int
    """Prune old tool results before a request whose context would pass this."""
    autocompact_enabled: bool = True
    prune_enabled: bool = True


def _truthy(value: Any) -> bool:
    return str(value).strip().lower() in ("1", "true", "yes", "on")


def thresholds(model: str, read: SettingReader | None = None, environ: Mapping[str, str] | None = None) -> Thresholds:
    """The thresholds for `model` from the settings (`read`) and the environment (also the settings'
    `env` block, which Claude Code users put these variables in)."""
    read = read or (lambda key, default: default)
    env: dict[str, str] = {}
    settings_env = read("env", None)
    if isinstance(settings_env, Mapping):
        env.update({str(k): str(v) for k, v in settings_env.items()})
    env.update(os.environ if environ is None else environ)
    limits = limits_for(model, read("contextWindows", None))
    caps = [c for c in (_positive_int(read("autoCompactWindow", None), 0), _positive_int(env.get("CLAUDE_CODE_AUTO_COMPACT_WINDOW"), 0)) if c]
    cap = max(MIN_AUTOCOMPACT_WINDOW, min(caps)) if caps else None
    compact_at = autocompact_threshold(limits, pct_override=_pct(env.get("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE")), window_cap=cap)
    prune_pct = _pct(read("autoPrunePct", None)) or DEFAULT_PRUNE_PCT
    enabled = read("autoCompactEnabled", True) is not False and not _truthy(env.get("DISABLE_AUTO_COMPACT", "")) and not _truthy(env.get("DISABLE_COMPACT", ""))
    return Thresholds(
        model=model,
        window=limits.window,
        max_output=limits.max_output,
        autocompact=compact_at,
        prune=prune_threshold(compact_at, prune_pct),
        autocompact_enabled=enabled,
        prune_enabled=read("autoPruneEnabled", True) is not False,
    )
