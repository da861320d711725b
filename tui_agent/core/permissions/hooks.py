"""PreToolUse hooks: user commands that see a tool call before it runs and may block, allow or ask.

Each matching hook gets the call as JSON on stdin. Exit 2 blocks with stderr as the reason; exit 0 may
decide through JSON on stdout (`hookSpecificOutput.permissionDecision`, or the legacy
`decision: approve|block`); any other exit, a timeout or a launch failure is reported and decides
nothing. Matching hooks run in parallel, each in its own process group so a timeout kills its children too.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Literal, Sequence

HookDecision = Literal["allow", "deny", "ask"]
NoticeFn = Callable[[str, str], None]

DEFAULT_HOOK_TIMEOUT = 60.0
_NAMES_ONLY = re.compile(r"[A-Za-z0-9_\-|]+")
_LEGACY: dict[str, HookDecision] = {"approve": "allow", "block": "deny"}


@dataclass(frozen=True, slots=True)
class HookSpec:
    matcher: str  # a tool name, `A|B`, a regex, or `*`/empty for every tool
    command: str
    timeout: float
    source: str  # the settings file it came from

    def applies_to(self, tool_name: str) -> bool:
        if self.matcher in ("", "*"):
            return True
        if _NAMES_ONLY.fullmatch(self.matcher):
            return tool_name in self.matcher.split("|")
        return re.fullmatch(self.matcher, tool_name) is not None


@dataclass(frozen=True, slots=True)
class HookOutcome:
    decision: HookDecision | None = None
    reason: str = ""
    source: str = ""  # the hook that decided, for PermissionDecision.source


async def run_pre_tool_use_hooks(
    hooks: Sequence[HookSpec],
    *,
    tool_name: str,
    tool_input: dict[str, Any],
    session_id: str,
    cwd: Path,
    project_dir: Path,
    on_notice: NoticeFn,
) -> HookOutcome:
    """Run every hook matching `tool_name` and combine their verdicts: deny beats ask beats allow."""
    matching = [h for h in hooks if h.applies_to(tool_name)]
    if not matching:
        return HookOutcome()
    payload = json.dumps(
        {
            "session_id": session_id,
            "hook_event_name": "PreToolUse",
            "tool_name": tool_name,
            "tool_input": tool_input,
            "cwd": str(cwd),
        }
    ).encode()
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(project_dir)}
    outcomes = await asyncio.gather(*(_run_one(h, payload, cwd, env, on_notice) for h in matching))
    for decision in ("deny", "ask", "allow"):
        chosen = [o for o in outcomes if o.decision == decision]
        if chosen:
            reason = "\n".join(o.reason for o in chosen if o.reason)
            return HookOutcome(decision, reason, "; ".join(o.source for o in chosen))
    return HookOutcome()


async def _run_one(hook: HookSpec, payload: bytes, cwd: Path, env: dict[str, str], on_notice: NoticeFn) -> HookOutcome:
    label = f"PreToolUse hook `{hook.command}` ({hook.source})"
    try:
        proc = await asyncio.create_subprocess_shell(
            hook.command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=cwd,
            env=env,
            start_new_session=True,
        )
    except OSError as exc:
        on_notice("error", f"{label} could not start: {exc}")
        return HookOutcome()
    try:
        out, err = await asyncio.wait_for(proc.communicate(payload), hook.timeout)
    except TimeoutError:
        _kill_group(proc)
        await proc.wait()
        on_notice("error", f"{label} timed out after {hook.timeout:g} s and was stopped.")
        return HookOutcome()
    except asyncio.CancelledError:
        _kill_group(proc)
        raise
    stderr = err.decode(errors="replace").strip()
    if proc.returncode == 2:
        return HookOutcome("deny", stderr or "Blocked by a PreToolUse hook.", label)
    if proc.returncode != 0:
        on_notice("warning", f"{label} failed (exit {proc.returncode}): {stderr or 'no output'}")
        return HookOutcome()
    return _parse_output(out.decode(errors="replace"), label)


def _parse_output(stdout: str, label: str) -> HookOutcome:
    """A decision from exit-0 stdout; plain text (not a JSON object) decides nothing."""
    try:
        data = json.loads(stdout)
    except ValueError:
        return HookOutcome()
    if not isinstance(data, dict):
        return HookOutcome()
    specific = data.get("hookSpecificOutput")
    if isinstance(specific, dict) and specific.get("permissionDecision") in ("allow", "deny", "ask"):
        return HookOutcome(specific["permissionDecision"], str(specific.get("permissionDecisionReason") or ""), label)
    legacy = data.get("decision")
    if isinstance(legacy, str) and legacy in _LEGACY:
        return HookOutcome(_LEGACY[legacy], str(data.get("reason") or ""), label)
    return HookOutcome()


def _kill_group(proc: asyncio.subprocess.Process) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
