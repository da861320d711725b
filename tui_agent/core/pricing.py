"""Token prices per model family (USD per million tokens), and the cost of one response's usage.

An unknown model has no price: its tokens are still counted, its cost is None ("unknown"), never 0.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Price:
    input: float
    output: float

    @property
    def cache_write(self) -> float:  # 5-minute cache writes cost 1.25x input
        return self.input * 1.25

    @property
    def cache_read(self) -> float:  # cache hits cost 0.1x input
        return self.input * 0.1


# Longest prefix wins; names as the API spells them (dated suffixes match by prefix).
PRICES: dict[str, Price] = {
    "claude-opus-4-5": Price(5.0, 25.0),
    "claude-opus-4-6": Price(5.0, 25.0),
    "claude-opus-4-1": Price(15.0, 75.0),
    "claude-opus-4": Price(15.0, 75.0),
    "claude-sonnet-4": Price(3.0, 15.0),
    "claude-3-7-sonnet": Price(3.0, 15.0),
    "claude-3-5-sonnet": Price(3.0, 15.0),
    "claude-haiku-4-5": Price(1.0, 5.0),
    "claude-3-5-haiku": Price(0.8, 4.0),
    "claude-3-haiku": Price(0.25, 1.25),
    "demo": Price(0.0, 0.0),  # the built-in demo model (providers/demo.py): no API, no cost — "$0", not "unknown"
}


def price_for(model: str) -> Price | None:
    best: str | None = None
    for prefix in PRICES:
        if model.startswith(prefix) and (best is None or len(prefix) > len(best)):
            best = prefix
    return PRICES[best] if best else None


def cost_usd(
    model: str,
    input_tokens: int,
    output_tokens: int,
    cache_read_input_tokens: int = 0,
    cache_creation_input_tokens: int = 0,
) -> float | None:
    price = price_for(model)
    if price is None:
        return None
    return (
        input_tokens * price.input
        + output_tokens * price.output
        + cache_read_input_tokens * price.cache_read
        + cache_creation_input_tokens * price.cache_write
    ) / 1_000_000


def format_cost(value: float) -> str:
    """Dollars as Claude Code writes them (cents above half a dollar, four places below), and `$0.00`
    before anything was spent rather than a row of zeros."""
    if value == 0:
        return "$0.00"
    return f"${value:.2f}" if value > 0.5 else f"${value:.4f}"
