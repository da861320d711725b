"""What the flags and the environment ask for, before it is validated into `AgentSettings`.

Validation needs pydantic and builds the settings model: ~0.15 s that the app's first frame does not
need. The first frame shows only the model, the demo marker, the permission mode and the folder, which
are read here from the raw values; the app validates right after that frame (`validate`), and a value
that fails is reported then, as clearly as before. Only the standard library is imported here.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from .core.model import DEFAULT_MODEL

if TYPE_CHECKING:
    from .config import AgentSettings

INVALID_SESSION_ID = "Invalid session ID. Must be a valid UUID."


def is_uuid(text: str) -> bool:
    """A UUID in its canonical 8-4-4-4-12 form (what Claude Code accepts for --session-id)."""
    try:
        return str(uuid.UUID(text)) == text.lower()
    except ValueError:
        return False


def requested_values(overrides: Mapping[str, object], env: Mapping[str, str] = os.environ) -> dict[str, object]:
    """Flags first (None means not given), then the environment; the model's defaults fill the rest."""
    values: dict[str, object] = {
        "model": env.get("ANTHROPIC_MODEL") or DEFAULT_MODEL,
        "api_key": env.get("ANTHROPIC_API_KEY") or None,
        "base_url": env.get("ANTHROPIC_BASE_URL") or None,
    }
    values.update({k: v for k, v in overrides.items() if v is not None})
    return values


class RawSettings:
    """The requested values, not yet validated; reads what the first frame shows the way
    `AgentSettings` would (same defaults)."""

    def __init__(self, values: Mapping[str, Any]) -> None:
        self.values = dict(values)

    @classmethod
    def from_env(cls, **overrides: object) -> "RawSettings":
        return cls(requested_values(overrides))

    @property
    def model(self) -> str:
        return str(self.values.get("model") or DEFAULT_MODEL)

    @property
    def demo(self) -> bool:
        return bool(self.values.get("demo"))

    @property
    def has_endpoint(self) -> bool:
        return bool(self.values.get("api_key") or self.values.get("base_url"))

    @property
    def permission_mode(self) -> str | None:
        mode = self.values.get("permission_mode")
        return None if mode is None else str(mode)

    @property
    def cwd(self) -> Path:
        return Path(self.values.get("cwd") or Path.cwd())  # type: ignore[arg-type]

    def validate(self) -> "AgentSettings":
        """The settings, validated (pydantic's ValidationError, a ValueError, names what is wrong)."""
        from .config import AgentSettings

        return AgentSettings.model_validate(self.values)
