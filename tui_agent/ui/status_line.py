"""Claude Code's `statusLine` command: `{"type": "command", "command": "...", "padding": N}` in settings.

The command gets Claude Code's status JSON on stdin (session, model, workspace, cost, context window...) and
its first line of stdout, ANSI colours kept, is shown under the prompt. It runs as an asyncio subprocess on
the app's loop (never blocking a frame), at most once every 300 ms while what it is told changes, with
Claude Code's 5 s timeout; its process group is killed on timeout. A failing or slow command shows nothing
and is reported once.

It is a program from settings: it runs only once the agent exists, i.e. after the folder-trust question, and
a repository's committed `.claude/settings.json` may not set it at all (core/trust.py `MAY_SET`: the user's
own files only), as `apiKeyHelper`.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from rich.text import Text

from ..core.events import ContextUpdated, LoopEnded, RunStarted, UsageUpdated
from ..core.output_styles import selected_name
from ..core.permissions.hooks import HookSpec, run_hook_command
from ..core.trust import may_set
from ..version import installed_version

if TYPE_CHECKING:
    from .app import TuiAgentApp

MIN_INTERVAL_S = 0.3
"""Claude Code's debounce: one run per 300 ms at most, the last change always shown."""
TIMEOUT_S = 5.0
"""Claude Code's status line timeout (5000 ms)."""
CHANGES = (RunStarted, UsageUpdated, ContextUpdated, LoopEnded)
"""Core events after which the line is run again (a turn starts, tokens and cost move, it ends)."""


class StatusLineSetting(BaseModel):
    """Claude Code's `statusLine` settings object."""

    model_config = ConfigDict(extra="allow")
    type: Literal["command"]
    command: str = Field(min_length=1)
    padding: int = Field(0, ge=0)


def read_status_line(policy: Any) -> tuple[StatusLineSetting | None, str, list[str]]:
    """(the setting in force, the file it came from, problems) over the settings sources, later ones winning.
    A folder not trusted yet contributes nothing; a committed project file may not set it (reported)."""
    store = getattr(policy, "settings", None)
    found: tuple[StatusLineSetting | None, str] = (None, "")
    problems: list[str] = []
    for source in getattr(store, "sources", []):
        origin = getattr(source, "origin", "project")
        if origin == "project" and not getattr(store, "trusted", True):
            continue
        try:
            data = source.read_json()
        except (OSError, ValueError):
            continue  # the permission engine reports unreadable files
        if not isinstance(data, dict) or "statusLine" not in data:
            continue
        if not may_set("statusLine", origin):
            problems.append(f"{source.name}: ignored statusLine: a repository's committed settings cannot run a program "
                            "in the status line (put it in ~/.claude/settings.json or .claude/settings.local.json).")
            continue
        try:
            found = (StatusLineSetting.model_validate(data["statusLine"]), source.name)
        except ValidationError as exc:
            why = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'statusLine'}: {e['msg']}" for e in exc.errors())
            problems.append(f"{source.name}: ignored statusLine ({why}).")
    return found[0], found[1], problems


def status_input(app: "TuiAgentApp", context: ContextUpdated | None, started_at: float) -> dict[str, Any]:
    """Claude Code's status JSON (its field names, as 2.1.197 sends them: measured), from what the app knows now.
    `hook_event_name: "Status"` and `permission_mode` are added: Claude Code's docs name them, older scripts read them."""
    agent = app.agent
    state = app.status.state
    cwd = str(app.settings.cwd)
    model = agent.model.config.model
    project_dir = str(getattr(agent.policy, "project_dir", None) or cwd)
    used = context.used if context is not None else 0
    window = context.window if context is not None else 0
    share = round(100 * used / window) if window and context is not None else None  # null before a response, as in Claude Code
    return {
        "session_id": agent.session.id,
        "transcript_path": str(agent.session.transcript_path),
        "cwd": cwd,
        "permission_mode": state.mode,
        "hook_event_name": "Status",
        "model": {"id": model, "display_name": "demo model" if state.demo else model},
        "workspace": {"current_dir": cwd, "project_dir": project_dir,
                      "added_dirs": [str(d) for d in getattr(app.settings, "add_dirs", None) or []]},
        "version": installed_version(),
        "output_style": {"name": selected_name(agent)},  # a /output-style switch included
        "cost": {
            "total_cost_usd": state.cost_usd or 0.0,
            "total_duration_ms": int((time.monotonic() - started_at) * 1000),
            "total_api_duration_ms": 0,
            "total_lines_added": 0,
            "total_lines_removed": 0,
        },
        "context_window": {
            "total_input_tokens": state.input_tokens,
            "total_output_tokens": state.output_tokens,
            "context_window_size": window,
            "current_usage": None,
            "used_percentage": share,
            "remaining_percentage": None if share is None else 100 - share,
        },
        "exceeds_200k_tokens": used > 200_000,
        "fast_mode": False,
        "thinking": {"enabled": state.thinking},
    }


def first_line(stdout: str) -> Text:
    """The command's first line as Claude Code takes it (stdout trimmed), its ANSI colours kept."""
    lines = stdout.strip().splitlines()
    return Text.from_ansi(lines[0]) if lines else Text()


class StatusCommand:
    """Runs the configured command when what it shows changes, and puts its line in `app.status_command`."""

    def __init__(self, app: "TuiAgentApp") -> None:
        self.app = app
        self.started_at = time.monotonic()
        self.context: ContextUpdated | None = None
        self.runs = 0
        """Runs started (tests wait on it)."""
        self._dirty = False
        self._waiting = False
        self._task: asyncio.Task[None] | None = None
        self._last_start = -MIN_INTERVAL_S
        self._told: set[str] = set()

    @property
    def idle(self) -> bool:
        """No run going, waiting or due."""
        return self._task is None and not self._waiting and not self._dirty

    def note(self, event: Any) -> None:
        """A core event applied: run again if it changes what the line is told."""
        if isinstance(event, ContextUpdated):
            self.context = event
        if isinstance(event, CHANGES):
            self.changed()

    def changed(self) -> None:
        """Something the line shows may have changed: run now, or when 300 ms have passed since the last run."""
        if not self.app.ready:
            return
        self._dirty = True
        if self._waiting or self._task is not None:
            return  # the waiting or running one picks the change up when it is done
        delay = max(0.0, self._last_start + MIN_INTERVAL_S - time.monotonic())
        self._waiting = True
        if delay > 0:
            self.app.set_timer(delay, self._start)
        else:
            self.app.call_later(self._start)  # (a Textual timer of 0 s divides by zero)

    def _start(self) -> None:
        self._waiting = False
        if not self._dirty:
            return
        self._dirty = False
        setting, origin, problems = read_status_line(self.app.agent.policy)
        for problem in problems:
            self._tell_once(problem)
        if setting is None:
            self._show(None, 0)
            return
        self._last_start = time.monotonic()
        self.runs += 1
        self._task = asyncio.create_task(self._run(setting, origin))

    async def _run(self, setting: StatusLineSetting, origin: str) -> None:
        try:
            payload = json.dumps(status_input(self.app, self.context, self.started_at)).encode()
            hook = HookSpec("", setting.command, TIMEOUT_S, origin, "StatusLine")
            env = {**os.environ, "CLAUDE_PROJECT_DIR": str(self.app.settings.cwd)}
            failure: list[str] = []
            ran = await run_hook_command(hook, payload, Path(self.app.settings.cwd), env, lambda _level, text: failure.append(text))
            if ran is not None and ran[0] != 0:
                failure.append(f"status line command `{setting.command}` failed (exit {ran[0]}): {ran[2] or 'no output'}")
            if failure:
                self._tell_once(failure[0], key=setting.command)
                self._show(None, setting.padding)
            else:
                assert ran is not None
                self._show(first_line(ran[1]), setting.padding)
        except Exception as exc:  # noqa: BLE001 - a broken status line must never break the app
            self._tell_once(f"status line command failed: {type(exc).__name__}: {exc}")
            self._show(None, 0)
        finally:
            self._task = None
            if self._dirty:
                self.changed()

    def _show(self, line: Text | None, padding: int) -> None:
        widget = self.app.status_command
        widget.styles.padding = (0, 1 + padding)  # Claude Code's `padding`: extra columns before the line
        widget.update(line or Text())
        widget.display = bool(line and line.plain.strip())

    def _tell_once(self, text: str, key: str | None = None) -> None:
        """One notice per problem (a failing command: once per command, however often it runs)."""
        key = key or text
        if key in self._told:
            return
        self._told.add(key)
        self.app.conversation.notice("warning", text, now=True)

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()  # run_hook_command kills the process group on cancellation
