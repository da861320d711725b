"""Which setting values the thresholds take (core/context/window.py): percents in (0, 100], positive whole
numbers (also as strings, never booleans), Claude Code's truthy words for DISABLE_AUTO_COMPACT, and a
threshold never below one token however small the window. Found by mutation testing
(docs/testing/mutation.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tui_agent.core.context.window import (
    ModelLimits,
    autocompact_threshold,
    limits_for,
    prune_threshold,
    thresholds,
)

MODEL = "claude-sonnet-4-6"
DEFAULT = 167_000  # 200 k - min(32 k, 20 k) - 13 k


def settings(**values: Any) -> Callable[[str, Any], Any]:
    return lambda key, default: values.get(key, default)


@pytest.mark.parametrize(("pct", "prune"), [
    (100, DEFAULT), (100.5, DEFAULT * 80 // 100), (1, DEFAULT // 100), (0.5, int(DEFAULT * 0.5 / 100)),
    (0, DEFAULT * 80 // 100), (-5, DEFAULT * 80 // 100), ("x", DEFAULT * 80 // 100),
])
def test_auto_prune_pct_is_taken_only_between_0_exclusive_and_100(pct: Any, prune: int) -> None:
    found = thresholds(MODEL, settings(autoPrunePct=pct), environ={})
    assert (found.autocompact, found.prune) == (DEFAULT, prune)


@pytest.mark.parametrize(("override", "autocompact"), [("0", DEFAULT), ("-1", DEFAULT), ("101", DEFAULT), ("50", 90_000), ("100", DEFAULT)])
def test_the_percent_override_outside_0_to_100_is_ignored(override: str, autocompact: int) -> None:
    assert thresholds(MODEL, environ={"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": override}).autocompact == autocompact


@pytest.mark.parametrize(("entry", "limits"), [
    ({"contextWindow": 1_000_000}, ModelLimits(1_000_000, 32_000)),
    ({"contextWindow": 0, "maxOutputTokens": 1}, ModelLimits(200_000, 1)),
    ({"contextWindow": "0", "maxOutputTokens": "1"}, ModelLimits(200_000, 1)),
    ({"contextWindow": " 500000 ", "maxOutputTokens": -3}, ModelLimits(500_000, 32_000)),
    ({"contextWindow": True, "maxOutputTokens": 2.5}, ModelLimits(200_000, 2)),
])
def test_a_window_override_takes_positive_whole_numbers_only(entry: dict[str, Any], limits: ModelLimits) -> None:
    assert limits_for(MODEL, {"claude-sonnet-4": entry}) == limits


@pytest.mark.parametrize(("value", "enabled"), [
    ("1", False), ("true", False), ("TRUE", False), ("Yes", False), (" on ", False),
    ("0", True), ("no", True), ("", True), ("off", True),
])
def test_disable_auto_compact_reads_claude_codes_truthy_words(value: str, enabled: bool) -> None:
    assert thresholds(MODEL, environ={"DISABLE_AUTO_COMPACT": value}).autocompact_enabled is enabled


def test_no_threshold_is_ever_below_one_token() -> None:
    tiny = ModelLimits(window=100, max_output=50)
    assert autocompact_threshold(tiny) == 1
    assert autocompact_threshold(ModelLimits(200_000, 32_000), pct_override=0.0001) == 1
    assert prune_threshold(1) == 1


@pytest.mark.parametrize(("setting", "env", "autocompact"), [
    (100_000, {}, 100_000 - 20_000 - 13_000),
    (100_000, {"CLAUDE_CODE_AUTO_COMPACT_WINDOW": "150000"}, 100_000 - 20_000 - 13_000),  # the smaller cap wins
    (None, {"CLAUDE_CODE_AUTO_COMPACT_WINDOW": "120000"}, 120_000 - 20_000 - 13_000),
    (None, {"CLAUDE_CODE_AUTO_COMPACT_WINDOW": "5000"}, 1),  # never below 20 k of window: 20 k - 33 k -> 1
    (0, {"CLAUDE_CODE_AUTO_COMPACT_WINDOW": "x"}, DEFAULT),
])
def test_the_auto_compact_window_caps_the_window_from_settings_or_environment(setting: Any, env: dict[str, str], autocompact: int) -> None:
    assert thresholds(MODEL, settings(autoCompactWindow=setting), environ=env).autocompact == autocompact


def test_compaction_and_pruning_are_switched_off_by_their_settings_and_variables() -> None:
    assert thresholds(MODEL, settings(autoCompactEnabled=False), environ={}).autocompact_enabled is False
    assert thresholds(MODEL, environ={"DISABLE_COMPACT": "1"}).autocompact_enabled is False
    assert thresholds(MODEL, settings(autoPruneEnabled=False), environ={}).prune_enabled is False
    found = thresholds(MODEL, environ={})
    assert (found.model, found.autocompact_enabled, found.prune_enabled) == (MODEL, True, True)


def test_a_window_override_key_is_a_case_blind_prefix_and_other_keys_are_ignored() -> None:
    overrides = {"Claude-Sonnet-4": {"contextWindow": 300_000}, 7: {"contextWindow": 5}, "claude": "not a table"}
    assert limits_for(MODEL, overrides) == ModelLimits(300_000, 32_000)
    assert limits_for("claude-opus-4-1", overrides) == ModelLimits(200_000, 32_000)  # "claude" is the longest match, not a table
