"""The `PreCompact` hook (Claude Code's settings): each command whose matcher is `manual`, `auto` or
empty gets `{session_id, transcript_path, cwd, hook_event_name: "PreCompact", trigger,
custom_instructions}` on stdin before the summary is asked for. Exit 2 (or JSON `decision: "block"`)
blocks the compaction, stderr (or `reason`) saying why; another failing exit is reported and does not."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ..permissions.hooks import DEFAULT_HOOK_TIMEOUT, HookSpec, _run_command, matcher_applies
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
    hooks = [
        HookSpec(matcher, command, timeout or DEFAULT_HOOK_TIMEOUT, source, "PreCompact")
        for matcher, command, timeout, source in hook_entries(policy, "PreCompact")
        if matcher_applies(matcher, trigger)
    ]
    if not hooks:
        return PreCompactVerdict()
    payload = json.dumps({
        "session_id": session_id,
        "transcript_path": str(transcript_path),
        "cwd": str(cwd),
        "hook_event_name": "PreCompact",
        "trigger": trigger,
        "custom_instructions": custom_instructions,
    }).encode()
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(cwd)}
    reasons: list[str] = []
    for hook in hooks:  # in order: a hook that blocks stops the ones after it
        ran = await _run_command(hook, payload, cwd, env, on_notice)
        if ran is None:
            continue
        code, out, err = ran
        if code == 2:
            reasons.append(err or f"Blocked by the PreCompact hook `{hook.command}`.")
            break
        if code != 0:
            on_notice("warning", f"PreCompact hook `{hook.command}` ({hook.source}) failed (exit {code}): {err or 'no output'}")
            continue
        block = _json_block(out)
        if block is not None:
            reasons.append(block or f"Blocked by the PreCompact hook `{hook.command}`.")
            break
    return PreCompactVerdict(bool(reasons), "\n".join(reasons))


def _json_block(stdout: str) -> str | None:
    """The reason of a JSON `{"decision": "block", "reason": ...}` answer; None for anything else."""
    try:
        data = json.loads(stdout)
    except ValueError:
        return None
    if isinstance(data, dict) and data.get("decision") == "block":
        return str(data.get("reason") or "")
    return None
