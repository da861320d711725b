"""Command hooks from settings files: what one is (`HookSpec`), which calls its matcher covers, and how
one command runs. Firing events and reading their answers is core/hook_events.py's job.

A hook gets its input as JSON on stdin; each runs in its own process group so a timeout (its `timeout` in
seconds, Claude Code's default 60) kills its children too. A launch failure or a timeout is reported, naming
the hook, and decides nothing. Claude Code's two forms: `command` alone runs through the shell; with `args`
(exec form) `command` is the program, run directly with those arguments, no shell, `${CLAUDE_PROJECT_DIR}`
substituted in each one as plain text.
"""

from __future__ import annotations

import asyncio
import os
import re
import shlex
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Literal

from ...tools.processes import signal_group, through_cancels

HookDecision = Literal["allow", "deny", "ask"]
NoticeFn = Callable[[str, str], None]

DEFAULT_HOOK_TIMEOUT = 60.0
_NAMES_ONLY = re.compile(r"[A-Za-z0-9_\-|]+")


@dataclass(frozen=True, slots=True)
class HookSpec:
    matcher: str  # a tool name, `A|B`, a regex, or `*`/empty for every tool
    command: str
    timeout: float
    source: str  # the settings file it came from
    event: str = "PreToolUse"  # any event of core/hook_events.HOOK_EVENTS
    args: tuple[str, ...] | None = None  # exec form: `command` is the program, these its arguments (no shell)

    @property
    def shown(self) -> str:
        """The command as notices and the lanes name it."""
        return self.command if self.args is None else shlex.join([self.command, *self.args])

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


async def run_hook_command(hook: HookSpec, payload: bytes, cwd: Path, env: dict[str, str], on_notice: NoticeFn) -> tuple[int, str, str] | None:
    """(exit code, stdout, stripped stderr) of one hook command fed `payload`; None (reported) when it
    could not start or timed out."""
    label = f"{hook.event} hook `{hook.shown}` ({hook.source})"
    pipes: dict[str, Any] = {"stdin": asyncio.subprocess.PIPE, "stdout": asyncio.subprocess.PIPE, "stderr": asyncio.subprocess.PIPE,
                             "cwd": cwd, "env": env, "start_new_session": True}
    if hook.args is None:
        starting = asyncio.create_subprocess_shell(hook.command, **pipes)
    else:
        program, *args = (_placeholders(part, env) for part in (hook.command, *hook.args))
        starting = asyncio.create_subprocess_exec(program, *args, **pipes)
    # The command runs (and may fork) before the spawn returns: a cancel in that window would kill the shell
    # alone (asyncio's clean-up), so the spawn finishes in a task of its own and its whole group goes.
    spawn = asyncio.ensure_future(starting)
    try:
        proc = await asyncio.shield(spawn)
    except OSError as exc:
        on_notice("error", f"{label} could not start: {exc}")
        return None
    except asyncio.CancelledError:
        await through_cancels(spawn)
        if not spawn.cancelled() and spawn.exception() is None:
            await _killed(spawn.result())
        raise
    try:
        out, err = await asyncio.wait_for(proc.communicate(payload), hook.timeout)
    except TimeoutError:
        await _killed(proc)
        await _group_gone(proc.pid)
        on_notice("error", f"{label} timed out after {hook.timeout:g} s and was stopped.")
        return None
    except asyncio.CancelledError:
        await _killed(proc)
        raise
    return proc.returncode or 0, out.decode(errors="replace"), err.decode(errors="replace").strip()


async def _killed(proc: asyncio.subprocess.Process) -> None:
    """Kill the hook's group and reap its shell, through further cancels: a stop leaves no zombie behind and
    no pipes open until the garbage collector finds them."""
    signal_group(proc.pid, signal.SIGKILL)
    await through_cancels(asyncio.ensure_future(proc.wait()))


def _placeholders(part: str, env: dict[str, str]) -> str:
    """Exec form: `${CLAUDE_PROJECT_DIR}` replaced as plain text (quotes, `$` or backquotes in it stay inert)."""
    return part.replace("${CLAUDE_PROJECT_DIR}", env.get("CLAUDE_PROJECT_DIR", ""))


async def _group_gone(pgid: int, within: float = 2.0) -> None:
    """Until no process of the killed group still runs (at most `within` s): SIGKILL takes effect when each
    one is next scheduled, which on a loaded machine comes after the shell's exit was seen, and "stopped"
    must be true when it is said."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while _group_runs(pgid) and loop.time() < deadline:
        await asyncio.sleep(0.01)


def _group_runs(pgid: int) -> bool:
    """A process of the group that is not a zombie (zombies only wait for their parent to reap them)."""
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    import psutil

    for proc in psutil.process_iter():
        try:
            if os.getpgid(proc.pid) == pgid and proc.status() != psutil.STATUS_ZOMBIE:
                return True
        except (OSError, psutil.Error):
            continue
    return False
