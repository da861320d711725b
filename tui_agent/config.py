"""Run settings: what the flags and the environment ask for, validated at the edge.

Only the standard library and pydantic are imported here: this module sits on the path to the first
request (the app's first frame reads the raw values instead: raw_settings.py).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

from .core.model import DEFAULT_MODEL
from .core.permission_types import PermissionMode
from .raw_settings import INVALID_SESSION_ID, is_uuid, requested_values


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    try:
        return int(raw) if raw else default
    except ValueError:
        return default


class AgentSettings(BaseModel):
    """Everything a run needs to know, from flags first, then the environment, then defaults."""

    model: str = DEFAULT_MODEL
    """The model name sent to the API (--model, ANTHROPIC_MODEL)."""
    api_key: str | None = None
    """ANTHROPIC_API_KEY; without it (and without a base URL) the demo model runs."""
    base_url: str | None = None
    """ANTHROPIC_BASE_URL: any Anthropic-compatible endpoint, local models included."""
    demo: bool = False
    """Run the built-in scripted demo model instead of calling an API."""
    cwd: Path = Field(default_factory=Path.cwd)
    """The working folder: tools act inside it (and the --add-dir folders)."""
    add_dirs: list[Path] = Field(default_factory=list)
    """More folders tools may use (--add-dir)."""
    max_turns: int = 50
    """At most this many model requests per prompt (--max-turns)."""
    max_budget_usd: float | None = None
    """Stop once the session's cost reaches this (--max-budget-usd)."""
    permission_mode: PermissionMode | None = None
    """default, acceptEdits, plan or bypassPermissions (--permission-mode)."""
    allowed_tools: list[str] = Field(default_factory=list)
    """Rules that allow without asking (--allowedTools)."""
    disallowed_tools: list[str] = Field(default_factory=list)
    """Rules that deny (--disallowedTools)."""
    tools: list[str] | None = None
    """Restrict the built-in tools to these names (--tools); None means all."""
    system_prompt: str | None = None
    """Replace the default system prompt (--system-prompt)."""
    append_system_prompt: str | None = None
    """Text added to the system prompt (--append-system-prompt)."""
    settings_file: Path | None = None
    """An extra settings file (--settings FILE)."""
    settings_json: dict[str, Any] | None = Field(default=None, repr=False)
    """`--settings '{...}'`, parsed and kept in memory only (its `env` block may hold secrets)."""
    session_id: str | None = None
    """Use this session id instead of a new one (--session-id); a UUID, as Claude Code requires (it names
    the transcript file, so anything else could put it anywhere)."""
    setting_sources: list[Literal["user", "project", "local"]] | None = None
    """Which settings files (and `.mcp.json`, memory files) are read at all (--setting-sources, the SDK's
    setting_sources); None reads every source, [] none (core/trust.py)."""
    mcp_config: list[str] = Field(default_factory=list)
    """MCP server configs: files or JSON strings (--mcp-config)."""
    strict_mcp_config: bool = False
    """Use only the --mcp-config servers (--strict-mcp-config)."""
    resume: str | None = None
    """Resume this session (id or name) in place (-r/--resume); "" asks with the picker (the app)."""
    continue_session: bool = False
    """Continue this directory's most recent session in place (-c/--continue)."""
    fork_session: bool = False
    """With resume or continue: carry the history on in a new session (--fork-session)."""
    session_name: str | None = None
    """Name the session (-n/--name; /rename later)."""
    model_pinned: bool = False
    """The model was chosen (--model, ANTHROPIC_MODEL): a resumed session's model does not replace it."""
    thinking: str | None = None
    """--thinking enabled|adaptive|disabled (what claude-agent-sdk passes)."""
    max_thinking_tokens: int | None = None
    """--max-thinking-tokens N: think with this budget; 0 turns thinking off (MAX_THINKING_TOKENS otherwise)."""
    thinking_display: str | None = None
    """--thinking-display summarized|omitted, passed on to the API."""
    memory: bool = True
    """Read the memory files (CLAUDE.md, AGENTS.md, ...) into the conversation."""
    max_concurrency: int = Field(default_factory=lambda: _env_int("TUI_AGENT_MAX_TOOL_USE_CONCURRENCY", 10))
    """How many tools may run at once (TUI_AGENT_MAX_TOOL_USE_CONCURRENCY)."""
    message_budget: int = Field(default_factory=lambda: _env_int("TUI_AGENT_RESULT_BUDGET_CHARS", 200_000))
    """Characters of tool results one turn may send before the largest are persisted."""
    max_retries: int = Field(default_factory=lambda: _env_int("TUI_AGENT_MAX_RETRIES", 10))
    """How many times a failed model request is retried."""
    stream_idle_timeout: float = Field(default_factory=lambda: _env_int("CLAUDE_STREAM_IDLE_TIMEOUT_MS", 90_000) / 1000)
    """Seconds a started response stream may stay silent (pings count as life) before it is treated
    as a dropped connection and retried (CLAUDE_STREAM_IDLE_TIMEOUT_MS, as Claude Code names it)."""

    @field_validator("session_id")
    @classmethod
    def _session_id_is_a_uuid(cls, value: str | None) -> str | None:
        if value is not None and not is_uuid(value):
            raise ValueError(INVALID_SESSION_ID)
        return value

    @classmethod
    def from_env(cls, **overrides: object) -> "AgentSettings":
        return cls.model_validate(requested_values(overrides))

    @property
    def has_endpoint(self) -> bool:
        """A key or a base URL is set: talk to a real endpoint rather than the demo."""
        return bool(self.api_key or self.base_url)


OutputFormat = Literal["text", "json", "stream-json"]
