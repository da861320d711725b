"""What a tool's process inherits of our environment: everything but the credentials.

A shell the model drives can print its environment (`env`, `printenv`, `$VAR`), and what it prints goes to
the model, the transcript and the next request. So no tool process gets the API key: ANTHROPIC_API_KEY and
ANTHROPIC_AUTH_TOKEN are withheld unless the user's own settings name them in
`sandbox.credentials.allowEnvVars` (our key; Claude Code has none), and every name in Claude Code's
`sandbox.credentials.envVars` (`{"name": ..., "mode": "deny"}`) is withheld always: a deny wins over an allow.

The core puts a zero-argument callable in `ToolContext.services[SERVICE_KEY]` returning the filter of the
moment (settings change while the app runs); without one, the credentials are withheld all the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from .base import ToolContext

ALWAYS_WITHHELD = frozenset({"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"})
SERVICE_KEY = "env_filter"


@dataclass(frozen=True, slots=True)
class EnvFilter:
    """`denied`: names the settings withhold (sandbox.credentials.envVars). `allowed`: names of
    ALWAYS_WITHHELD the user lets through (sandbox.credentials.allowEnvVars)."""

    denied: frozenset[str] = frozenset()
    allowed: frozenset[str] = frozenset()

    @property
    def withheld(self) -> frozenset[str]:
        return (ALWAYS_WITHHELD - self.allowed) | self.denied

    def apply(self, env: Mapping[str, str], keep: frozenset[str] = frozenset()) -> dict[str, str]:
        """`env` without the withheld names (except `keep`: our own bookkeeping variables)."""
        drop = self.withheld - keep
        return {name: value for name, value in env.items() if name not in drop}


def env_filter(ctx: ToolContext) -> EnvFilter:
    """The filter the session's settings ask for now (the default one when the core installed none)."""
    current = ctx.services.get(SERVICE_KEY)
    return current() if callable(current) else EnvFilter()
