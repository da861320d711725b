"""Command hooks from settings files: PreToolUse sees a tool call before it runs and may block, allow
or ask; PostToolUse sees the call and the tool's output after it succeeded and may add words for the
model (exit 2's stderr, a JSON block reason or `additionalContext`).

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
    event: str = "PreToolUse"  # or PostToolUse

    def applies_to(self, tool_name: str) -> bool:
        return matcher_applies(self.matcher, tool_name)


def matcher_applies(matcher: str | None, tool_name: str) -> bool:
    """Claude Code's hook matcher: empty or `*` = every tool, `A|B` = those names, else a regex."""
    if not matcher or matcher == "*":
        return True
    if _NAMES_ONLY.fullmatch(matcher):
        return tool_name in matcher.split("|")
    try:
        return re.fullmatch(matcher, tool_name) is not None
    except re.error:
        return False


@dataclass(frozen=True, slots=True)
class HookOutcome:
    decision: HookDecision | None = None
    reason: str = ""
    source: str = ""  # the hook that decided, for PermissionDecision.source
    updated_input: dict[str, Any] | None = None  # the input the tool runs with instead (validated again)


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
    matching = [h for h in hooks if h.event == "PreToolUse" and h.applies_to(tool_name)]
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


async def run_post_tool_use_hooks(
    hooks: Sequence[HookSpec],
    payload: dict[str, Any],
    *,
    cwd: Path,
    project_dir: Path,
    on_notice: NoticeFn,
) -> str | None:
    """Run every PostToolUse hook matching the call (`payload` is Claude Code's hook input, with
    `tool_response`); what they say for the model: exit 2's stderr, a JSON `decision: block` reason or
    `hookSpecificOutput.additionalContext`. The tool's effect stays either way."""
    matching = [h for h in hooks if h.event == "PostToolUse" and h.applies_to(str(payload.get("tool_name", "")))]
    if not matching:
        return None
    data = json.dumps({**payload, "hook_event_name": "PostToolUse"}, default=str).encode()
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(project_dir)}
    runs = await asyncio.gather(*(_run_command(h, data, cwd, env, on_notice) for h in matching))
    notes: list[str] = []
    for hook, ran in zip(matching, runs):
        if ran is None:
            continue
        code, out, err = ran
        if code == 2 and err:
            notes.append(f"PostToolUse hook feedback: {err}")
        elif code not in (0, 2):
            on_notice("warning", f"PostToolUse hook `{hook.command}` ({hook.source}) failed (exit {code}): {err or 'no output'}")
        elif code == 0:
            notes.extend(_post_tool_use_words(out))
    return "\n".join(notes) or None


def _post_tool_use_words(stdout: str) -> list[str]:
    try:
        data = json.loads(stdout)
    except ValueError:
        return []
    if not isinstance(data, dict):
        return []
    words = [f"PostToolUse hook feedback: {data['reason']}"] if data.get("decision") == "block" and data.get("reason") else []
    specific = data.get("hookSpecificOutput")
    if isinstance(specific, dict) and specific.get("additionalContext"):
        words.append(str(specific["additionalContext"]))
    return words


async def _run_one(hook: HookSpec, payload: bytes, cwd: Path, env: dict[str, str], on_notice: NoticeFn) -> HookOutcome:
    label = f"PreToolUse hook `{hook.command}` ({hook.source})"
    ran = await _run_command(hook, payload, cwd, env, on_notice)
    if ran is None:
        return HookOutcome()
    code, stdout, stderr = ran
    if code == 2:
        return HookOutcome("deny", stderr or "Blocked by a PreToolUse hook.", label)
    if code != 0:
        on_notice("warning", f"{label} failed (exit {code}): {stderr or 'no output'}")
        return HookOutcome()
    return _parse_output(stdout, label)


async def _run_command(hook: HookSpec, payload: bytes, cwd: Path, env: dict[str, str], on_notice: NoticeFn) -> tuple[int, str, str] | None:
    """(exit code, stdout, stripped stderr) of one hook command fed `payload`; None (reported) when it
    could not start or timed out."""
    label = f"{hook.event} hook `{hook.command}` ({hook.source})"
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
        return None
    try:
        out, err = await asyncio.wait_for(proc.communicate(payload), hook.timeout)
    except TimeoutError:
        _kill_group(proc)
        await proc.wait()
        on_notice("error", f"{label} timed out after {hook.timeout:g} s and was stopped.")
        return None
    except asyncio.CancelledError:
        _kill_group(proc)
        raise
    return proc.returncode or 0, out.decode(errors="replace"), err.decode(errors="replace").strip()


def _parse_output(stdout: str, label: str) -> HookOutcome:
    """A decision from exit-0 stdout; plain text (not a JSON object) decides nothing."""
    try:
        data = json.loads(stdout)
    except ValueError:
        return HookOutcome()
    return parse_pre_tool_use_output(data, label)


def parse_pre_tool_use_output(data: Any, label: str) -> HookOutcome:
    """A PreToolUse verdict from a hook's JSON answer (a command's stdout or a program's callback reply)."""
    if not isinstance(data, dict):
        return HookOutcome()
    specific = data.get("hookSpecificOutput")
    if isinstance(specific, dict) and specific.get("permissionDecision") in ("allow", "deny", "ask"):
        updated = specific.get("updatedInput")
        return HookOutcome(
            specific["permissionDecision"],
            str(specific.get("permissionDecisionReason") or ""),
            label,
            updated if isinstance(updated, dict) else None,
        )
    legacy = data.get("decision")
    if isinstance(legacy, str) and legacy in _LEGACY:
        return HookOutcome(_LEGACY[legacy], str(data.get("reason") or ""), label)
    return HookOutcome()


def _kill_group(proc: asyncio.subprocess.Process) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
