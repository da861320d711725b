"""The SDK's rewind: `--replay-user-messages` and the `rewind_files` control request, over the session's
checkpoint store (core/checkpoints).

As Claude Code 2.1.197 does (seen on its stdout, driven by claude-agent-sdk 0.2.189):
- each prompt is echoed right after its `init` line as a `user` line with `isReplay: true` and the `uuid`
  of the prompt's transcript line, the id a program rewinds to;
- file checkpointing is on only when the program asked for it (`enable_file_checkpointing=True`, which
  the SDK passes as CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING=true); otherwise `rewind_files` is answered
  "File rewinding is not enabled.";
- an id without a checkpoint is answered "No file checkpoint found for this message.";
- a rewind answers `{"canRewind": true}`. We add what the TypeScript SDK's dry-run result names
  (`filesChanged`, `insertions`, `deletions`): added fields, none of Claude Code's changed.
A file edited by hand since the tool wrote it is overwritten, as Claude Code does (the program asked).
"""

from __future__ import annotations

import os
import time
from typing import Any, Callable, Mapping

from pydantic import BaseModel, ConfigDict, ValidationError

from ..core.checkpoints import SERVICE_KEY, CheckpointStore, UnknownPrompt

ENV = "CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING"
NOT_ENABLED = "File rewinding is not enabled."
NO_CHECKPOINT = "No file checkpoint found for this message."


class RewindFilesRequest(BaseModel):
    """`{"subtype": "rewind_files", "user_message_id": ...}` (the SDK's SDKControlRewindFilesRequest)."""

    model_config = ConfigDict(extra="allow")
    subtype: str = "rewind_files"
    user_message_id: str


def sdk_checkpointing(env: Mapping[str, str] = os.environ) -> bool:
    """The program passed `enable_file_checkpointing=True` (the SDK sets the variable, Claude Code reads it)."""
    return env.get(ENV, "").strip().lower() in ("1", "true", "yes", "on")


class Rewind:
    """One protocol session's replay and rewind. `send` writes a stdout line."""

    def __init__(self, agent: Any, send: Callable[[dict[str, Any]], None], *, replay: bool, enabled: bool) -> None:
        """`replay`: echo each prompt (the session's writer tells its prompts, never a Stop hook's words)."""
        self.agent = agent
        self.send = send
        self.enabled = enabled
        store = self.store
        if store is not None and not enabled:
            store.enabled = lambda: False  # Claude Code keeps none for a program that did not ask
        if replay:
            agent.session.prompt_listeners.append(self._replay)

    @property
    def store(self) -> CheckpointStore | None:
        return self.agent.context.services.get(SERVICE_KEY)

    def _replay(self, uuid: str, message: dict[str, Any]) -> None:
        self.send({"type": "user", "message": {"role": "user", "content": message["content"]},
                   "session_id": self.agent.session.id, "parent_tool_use_id": None, "uuid": uuid,
                   "timestamp": _timestamp(), "isReplay": True})

    def answer(self, fields: dict[str, Any]) -> tuple[dict[str, Any] | None, str | None]:
        """(response, None) or (None, error) for a `rewind_files` request's fields."""
        try:
            request = RewindFilesRequest.model_validate(fields)
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()[:3])
            return None, f"invalid rewind_files request: {problems}"
        store = self.store
        if not self.enabled or store is None:
            return None, NOT_ENABLED
        try:
            report = store.restore(request.user_message_id)
        except UnknownPrompt:
            return None, NO_CHECKPOINT
        except OSError as exc:
            return None, f"Rewinding failed: {exc.strerror or exc} ({getattr(exc, 'filename', '') or ''})"
        return {"canRewind": True, "filesChanged": [str(p) for p in (*report.restored, *report.removed)],
                "insertions": report.insertions, "deletions": report.deletions}, None


def _timestamp() -> str:
    now = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now % 1 * 1000):03d}Z"
