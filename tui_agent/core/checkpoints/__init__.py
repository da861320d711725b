"""File checkpoints: what tools changed, per prompt, and putting it back (the app's rewind, the SDK's
`rewind_files`). See store.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .store import CheckpointStore, FileChange, RestoreReport, UnknownPrompt

SERVICE_KEY = "checkpoints"
"""Where a session's store sits in the tools' shared services (subagents share their parent's)."""
SETTING = "fileCheckpointingEnabled"

__all__ = ["CheckpointStore", "FileChange", "RestoreReport", "UnknownPrompt", "SERVICE_KEY", "install_checkpoints",
           "checkpoints_of", "before_write", "after_write"]


def install_checkpoints(agent: Any) -> CheckpointStore:
    """The session's store, in the tools' services, told of each prompt as its transcript line is written.
    Settings `"fileCheckpointingEnabled": false` turns it off (read at each prompt: an edit applies)."""
    from ..user_settings import read_setting

    policy = agent.policy
    store = CheckpointStore(agent.session.dir / "checkpoints",
                            enabled=lambda: read_setting(policy, SETTING, True) is not False)
    agent.context.services[SERVICE_KEY] = store
    agent.session.prompt_listeners.append(lambda uuid, _message: store.begin_prompt(uuid))
    return store


def checkpoints_of(services: dict[str, Any]) -> CheckpointStore | None:
    return services.get(SERVICE_KEY)


def before_write(services: dict[str, Any], path: Path) -> None:
    """Keep `path`'s content before a tool changes it. If it cannot be kept (a full disk, an unwritable
    session folder), the write does not happen: a change that could not be undone is not made silently."""
    store = services.get(SERVICE_KEY)
    if store is None:
        return
    try:
        store.before_write(path)
    except OSError as exc:
        from ...tools.base import ToolError

        raise ToolError(f"The file was not changed: its checkpoint could not be saved in {store.root} "
                        f"({exc.strerror or exc}). Settings \"{SETTING}\": false writes without checkpoints.") from None


def after_write(services: dict[str, Any], path: Path, data: bytes) -> None:
    store = services.get(SERVICE_KEY)
    if store is not None:
        store.after_write(path, data)
