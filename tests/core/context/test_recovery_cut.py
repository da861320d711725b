"""Where a too-long history is cut (core/context/recovery.py): the API's numbers read from its error (with
thousands separators), the size a compaction aims at under a smaller maximum, and the newest messages kept
verbatim: as many as fit exactly, starting at an assistant message that follows a user message. Found by
mutation testing (docs/testing/mutation.md)."""

from __future__ import annotations

from typing import Any

from tui_agent.core.context.recovery import keep_count, parse_limit, target_tokens
from tui_agent.core.context.tokens import message_tokens
from tui_agent.core.context.window import thresholds


def msg(role: str, words: int) -> dict[str, Any]:
    return {"role": role, "content": [{"type": "text", "text": "word " * words}]}


def test_the_api_numbers_are_read_with_their_thousands_separators() -> None:
    assert parse_limit("prompt is too long: 215,000 tokens > 200,000 maximum") == (215_000, 200_000)
    assert parse_limit("prompt is too long: 1 token > 1000 maximum") == (1, 1000)
    assert parse_limit("overloaded") is None


def test_a_compaction_aims_under_the_smaller_maximum_less_the_reserve_and_the_buffer() -> None:
    t = thresholds("claude-sonnet-4-6", environ={})
    assert target_tokens(t) == 167_000
    assert target_tokens(t, maximum=150_000) == 150_000 - 20_000 - 13_000
    assert target_tokens(t, maximum=500_000) == 167_000


def test_the_kept_part_fits_the_budget_exactly_and_starts_at_an_assistant_after_a_user() -> None:
    history = [msg("user", 10), msg("assistant", 10), msg("user", 10), msg("assistant", 10), msg("user", 400)]
    last_two = message_tokens(history[3]) + message_tokens(history[4])
    assert keep_count(history, last_two) == 2  # exactly the budget still fits
    assert keep_count(history, last_two - 1) is None  # one token short: nothing fits from a valid start
    assert keep_count(history, 10**9) == 4  # everything but the first message (something is left to summarise)
    assert keep_count(history, 0) is None


def test_no_cut_between_two_user_messages() -> None:
    history = [msg("user", 10), msg("assistant", 10), msg("user", 10), msg("user", 10)]
    assert keep_count(history, message_tokens(history[3])) is None
    assert keep_count([msg("user", 5), msg("assistant", 5)], 10**9) == 1
