"""The `PreCompact` hook (Claude Code's settings): each command whose matcher is `manual`, `auto` or
empty gets `{session_id, transcript_path, cwd, hook_event_name: "PreCompact", trigger,
custom_instructions}` on stdin before the summary is asked for. Exit 2 (or JSON `decision: "block"`)
blocks the compaction, stderr (or `reason`) saying why; another failing exit is reported and does not."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ..permissions.hooks import DEFAULT_HOOK_TIMEOUT, HookSpec
from ..user_settings import hook_entries


@dataclass(frozen=True, slots=True)
class PreCompactVerdict:
    blocked: bool = False
    reason: str = ""


async def run_pre_compact_hooks(
    policy: Any,
    *,
    trigger: str,
    custom_instructions: str,
    session_id: str,
    transcript_path: Path,
    cwd: Path,
    on_notice: Callable[[str, str], None],
) -> PreCompactVerdict:
    """Through the session's hook dispatcher (core/hook_events.py: settings commands and a program's
    callbacks); a policy without one (an engine used alone) gets one for its settings' commands."""
    from ..hook_events import HookDispatcher

    dispatcher = getattr(policy, "hook_events", None)
    if dispatcher is None:
        dispatcher = HookDispatcher(
            session_id=lambda: session_id, transcript_path=lambda: transcript_path, cwd=cwd,
            permission_mode=lambda: str(getattr(policy, "mode", "default")), on_notice=on_notice,
            commands=lambda: [HookSpec(m, c, t or DEFAULT_HOOK_TIMEOUT, src, "PreCompact") for m, c, t, src in hook_entries(policy, "PreCompact")],
        )
    result = await dispatcher.fire("PreCompact", trigger=trigger, custom_instructions=custom_instructions or None)
    if not result.blocked:
        return PreCompactVerdict()
    return PreCompactVerdict(True, result.reason or "Blocked by a PreCompact hook.")
