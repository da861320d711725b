"""`sandbox.credentials` in the settings files: which variables tool processes never get, and which
credentials the user lets through.

- `envVars` is Claude Code's key (2.1.187+), same shape: `[{"name": "GITHUB_TOKEN", "mode": "deny"}]`.
  Any settings file may add to it (it only takes away). A bad entry is reported and dropped, as Claude Code
  drops it; the file's other settings stay in force.
- `allowEnvVars` is ours (Claude Code has no key that passes a variable; it ignores unknown keys under
  `credentials`): `["ANTHROPIC_API_KEY"]` lets a name withheld by default (tools/env_filter.py) through.
  It widens what a tool sees, so only the user's own sources may set it (core/trust.py: `~/.claude/settings.json`,
  tui-agent's own, `.claude/settings.local.json`, `--settings`); in a repository's committed
  `.claude/settings.json` it is reported and ignored.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Literal

from pydantic import BaseModel, Field, ValidationError

from ..tools.env_filter import EnvFilter
from .trust import may_set

ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class _EnvVarEntry(BaseModel):
    """One entry of Claude Code's `sandbox.credentials.envVars`."""

    name: str = Field(pattern=ENV_NAME.pattern)
    mode: Literal["deny"]


def credential_env_vars(raw: Any, path: str, origin: str) -> tuple[list[str], list[str], list[str]]:
    """(names denied, names allowed, problems) of one settings file's parsed JSON."""
    denied: list[str] = []
    allowed: list[str] = []
    problems: list[str] = []
    sandbox = raw.get("sandbox") if isinstance(raw, dict) else None
    credentials = sandbox.get("credentials") if isinstance(sandbox, dict) else None
    if credentials is None:
        return denied, allowed, problems
    if not isinstance(credentials, dict):
        problems.append(f"{path}: ignored sandbox.credentials: not an object. No variable it names is withheld until it is fixed.")
        return denied, allowed, problems
    for entry in _entries(credentials, "envVars", path, problems):
        try:
            denied.append(_EnvVarEntry.model_validate(entry).name)
        except ValidationError as exc:
            why = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'entry'}: {e['msg']}" for e in exc.errors())
            problems.append(f"{path}: ignored sandbox.credentials.envVars entry {entry!r} ({why}). It is NOT withheld until the entry is fixed.")
    for name in _entries(credentials, "allowEnvVars", path, problems):
        if not isinstance(name, str) or not ENV_NAME.match(name):
            problems.append(f"{path}: ignored sandbox.credentials.allowEnvVars entry {name!r}: not a variable name.")
        elif not may_set("sandbox.credentials.allowEnvVars", origin):
            problems.append(
                f"{path}: ignored sandbox.credentials.allowEnvVars {name!r}: a project's settings cannot pass a credential to "
                "tools (put it in ~/.claude/settings.json)."
            )
        else:
            allowed.append(name)
    return denied, allowed, problems


def _entries(credentials: dict[str, Any], key: str, path: str, problems: list[str]) -> list[Any]:
    value = credentials.get(key, [])
    if isinstance(value, list):
        return value
    problems.append(f"{path}: ignored sandbox.credentials.{key}: not a list.")
    return []


def env_filter_source(policy: Any) -> Callable[[], EnvFilter]:
    """What the tools' `env_filter` service calls: the filter the policy's settings ask for at that moment
    (the settings store reloads edited files)."""
    store = getattr(policy, "settings", None)
    if store is None or not hasattr(store, "denied_env_vars"):
        return EnvFilter
    return lambda: EnvFilter(frozenset(store.denied_env_vars), frozenset(store.allowed_env_vars))
