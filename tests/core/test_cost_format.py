"""How dollars are written in the status line and /cost (Claude Code's rule, with $0.00 before any spend)."""

from __future__ import annotations

import pytest

from tui_agent.core.pricing import format_cost


@pytest.mark.parametrize(
    ("value", "shown"),
    [(0.0, "$0.00"), (0.00012, "$0.0001"), (0.0123, "$0.0123"), (0.5, "$0.5000"), (0.51, "$0.51"), (12.345, "$12.35")],
)
def test_cost_is_written_as_claude_code_writes_it(value: float, shown: str) -> None:
    assert format_cost(value) == shown


def test_nothing_spent_reads_as_zero_dollars_not_a_row_of_zeros() -> None:
    assert format_cost(0) == "$0.00"
