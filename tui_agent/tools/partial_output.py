"""A running call's output so far, kept in the session's services for the result of a call that is stopped.

A shell call keeps its capture here by tool_use id: a function that reads the live capture while the call
runs (an executor that gives up on a call that ignores its cancel reads it then), the final text once the
call was stopped. A call that ends with its own result takes its entry out again.
"""

from __future__ import annotations

from typing import Any, Callable

PARTIAL_OUTPUT_KEY = "partial_output"

Kept = Callable[[], str] | str


def kept_outputs(services: dict[str, Any]) -> dict[str, Kept]:
    """The session's table of kept outputs (made on first use)."""
    return services.setdefault(PARTIAL_OUTPUT_KEY, {})


def take_partial_output(services: dict[str, Any], tool_use_id: str) -> str | None:
    """What a stopped (or given-up-on) call printed, taken out of the table; None when it keeps nothing
    (not a shell call, or it ended with its own result)."""
    kept = services.get(PARTIAL_OUTPUT_KEY, {}).pop(tool_use_id, None)
    return kept() if callable(kept) else kept
