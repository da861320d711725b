"""Automatic compaction starts exactly past the threshold: a context of exactly 167,000 tokens (Claude Code's
threshold for a 200k / 32k model) is sent as it is; one token more is compacted first. The same edge for the
settings' percent override and window cap, and for pruning."""

from __future__ import annotations

from typing import Any

import pytest

from tests.core.context.scripts import conversation, read_turn
from tests.core.support import sample_tools
from tui_agent.core.context import thresholds
from tui_agent.core.events import CompactionStarted
from tui_agent.providers.scripted import Reply, Text

PROBE = 100_000


def run_with(make_harness: Any, reported: int, **settings: Any) -> tuple[Any, dict[str, Any], list[int]]:
    """A turn whose response reports `reported` tokens, then one more request; the context the loop
    measured just before that request (read by the scripted model while it is being served)."""
    measured: list[int] = []
    handler, seen = conversation([read_turn("tool output", reported), Reply([Text("ok")])])
    holder: dict[str, Any] = {}

    def measuring(body: dict[str, Any], index: int) -> Any:
        if index == 1:
            measured.append(holder["h"].agent.context_manager.used())
        return handler(body, index)

    h = make_harness(measuring, tools=sample_tools(), **settings)
    holder["h"] = h
    return h, seen, measured


async def context_at_threshold(make_harness: Any, threshold: int, **settings: Any) -> int:
    """The usage to report so the context before the second request is exactly `threshold` (a probe run
    tells what the tool result adds to the reported usage)."""
    h, _, measured = run_with(make_harness, PROBE, **settings)
    assert (await h.agent.run("probe")).reason == "completed"
    added = measured[0] - PROBE
    assert 0 < added < 1_000
    return threshold - added


@pytest.mark.parametrize(("extra", "compacts"), [(0, False), (1, True)], ids=["exactly-at", "one-over"])
async def test_compaction_starts_one_token_past_the_threshold(make_harness, extra: int, compacts: bool) -> None:
    threshold = thresholds("claude-sonnet-4-6", environ={}).autocompact
    assert threshold == 167_000
    reported = await context_at_threshold(make_harness, threshold) + extra
    h, seen, measured = run_with(make_harness, reported)
    assert (await h.agent.run("go")).reason == "completed"
    assert len(seen["summaries"]) == (1 if compacts else 0)
    assert bool(h.of(CompactionStarted)) is compacts
    if not compacts:
        assert measured == [threshold]


@pytest.mark.parametrize(("extra", "compacts"), [(0, False), (1, True)], ids=["exactly-at", "one-over"])
async def test_a_lowered_threshold_has_the_same_edge(make_harness, tmp_path, extra: int, compacts: bool, monkeypatch) -> None:
    monkeypatch.setenv("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "50")
    threshold = thresholds("claude-sonnet-4-6").autocompact
    assert threshold == 90_000
    reported = await context_at_threshold(make_harness, threshold) + extra
    h, seen, _ = run_with(make_harness, reported)
    assert (await h.agent.run("go")).reason == "completed"
    assert len(seen["summaries"]) == (1 if compacts else 0)
