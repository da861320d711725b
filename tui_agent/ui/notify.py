"""Notifications: when a turn that took 5 s or more ends, and when a permission ask has waited 6 s.

Unless the terminal reported that it has focus (focus reporting, CSI ? 1004; "unknown" counts as not
focused), the bell rings and a desktop-notification escape goes out, as `preferredNotifChannel` says
(Claude Code's values, plus `none`): `auto` sends the bell, OSC 9 and OSC 777 (iTerm2, Kitty, Ghostty,
WezTerm; wrapped for tmux's passthrough inside tmux). A `Notification` hook in the settings runs its
command every time, with Claude Code's JSON on stdin.
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any, Callable

TURN_SECONDS = 5.0
PERMISSION_WAIT_SECONDS = 6.0
TITLE = "tui-agent"
CHANNELS = ("auto", "iterm2", "iterm2_with_bell", "terminal_bell", "kitty", "ghostty", "notifications_disabled", "none")
BELL = "\x07"


def osc9(message: str) -> str:
    return f"\x1b]9;{message}\x07"


def osc777(title: str, message: str) -> str:
    return f"\x1b]777;notify;{title};{message}\x07"


def osc99(message: str) -> str:
    return f"\x1b]99;;{message}\x1b\\"


def tmux_passthrough(seq: str) -> str:
    """tmux hands an escape on to the outer terminal only inside its DCS passthrough."""
    return "\x1bPtmux;" + seq.replace("\x1b", "\x1b\x1b") + "\x1b\\"


def escapes(channel: str, message: str, *, in_tmux: bool) -> str:
    """What to write to the terminal for `message` on `channel` ('' for none)."""
    clean = message.replace("\x07", " ").replace("\x1b", " ").replace(";", ",")
    parts = {
        "auto": [BELL, osc9(clean), osc777(TITLE, clean)],
        "iterm2": [osc9(clean)],
        "iterm2_with_bell": [osc9(clean), BELL],
        "terminal_bell": [BELL],
        "kitty": [osc99(clean)],
        "ghostty": [osc777(TITLE, clean)],
    }.get(channel, [])
    return "".join(tmux_passthrough(p) if in_tmux and p != BELL else p for p in parts)


class Notifier:
    """The app's notifications. `write` puts bytes on the terminal; `settings` reads a settings key;
    `hooks` lists the Notification hook commands; `hook_input` gives the session's fields."""

    def __init__(
        self,
        write: Callable[[str], None],
        *,
        setting: Callable[[str, Any], Any] = lambda key, default: default,
        hooks: Callable[[], list[tuple[str, float | None]]] = list,
        hook_input: Callable[[], dict[str, Any]] = dict,
        cwd: str | None = None,
        on_problem: Callable[[str], None] = lambda text: None,
        schedule: Callable[[float, Callable[[], None]], Any] | None = None,
    ) -> None:
        self._write = write
        self._setting = setting
        self._hooks = hooks
        self._hook_input = hook_input
        self._cwd = cwd
        self._on_problem = on_problem
        self.focused: bool | None = None
        """What the terminal last reported (None until it reports anything)."""
        self.sent: list[str] = []
        """Messages notified so far (for the status and the tests)."""
        self._tasks: set[asyncio.Task[None]] = set()
        self._schedule = schedule
        self._waiting: dict[str, Any] = {}  # permission request id -> its 6 s timer

    def on_event(self, event: Any) -> None:
        """Follow the core's events: asks start a timer, answers stop it, a long run's end notifies."""
        from ..core.events import LoopEnded, PermissionAnswered, PermissionAsked

        if isinstance(event, PermissionAsked) and self._schedule is not None:
            name = event.name
            self._waiting[event.request_id] = self._schedule(PERMISSION_WAIT_SECONDS, lambda: self.permission_waiting(name))
        elif isinstance(event, PermissionAnswered):
            timer = self._waiting.pop(event.request_id, None)
            if timer is not None:
                timer.stop()
        elif isinstance(event, LoopEnded):
            for timer in self._waiting.values():
                timer.stop()
            self._waiting.clear()
            self.turn_ended(event.duration_ms / 1000)

    def set_focus(self, focused: bool) -> None:
        self.focused = focused

    def turn_ended(self, duration_s: float) -> None:
        if duration_s >= TURN_SECONDS:
            self.notify(f"{TITLE} is waiting for your input", "idle_prompt")

    def permission_waiting(self, tool_name: str) -> None:
        self.notify(f"{TITLE} needs your permission to use {tool_name}", "permission_prompt")

    def notify(self, message: str, kind: str) -> None:
        self.sent.append(message)
        channel = str(self._setting("preferredNotifChannel", "auto"))
        if channel not in CHANNELS:
            channel = "auto"
        if self.focused is not True:
            data = escapes(channel, message, in_tmux=bool(os.environ.get("TMUX")))
            if data:
                self._write(data)
        for command, timeout in self._hooks():
            task = asyncio.get_running_loop().create_task(self._run_hook(command, timeout, message, kind))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _run_hook(self, command: str, timeout: float | None, message: str, kind: str) -> None:
        payload = {**self._hook_input(), "hook_event_name": "Notification", "message": message, "notification_type": kind}
        try:
            proc = await asyncio.create_subprocess_shell(
                command, cwd=self._cwd, stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE, start_new_session=True,
            )
            try:
                _, err = await asyncio.wait_for(proc.communicate(json.dumps(payload).encode()), timeout or 60)
            except asyncio.TimeoutError:
                proc.kill()
                await proc.wait()
                self._on_problem(f"Notification hook timed out: {command}")
                return
            if proc.returncode:
                self._on_problem(f"Notification hook failed (exit {proc.returncode}): {command}: {err.decode(errors='replace').strip()[:300]}")
        except OSError as exc:
            self._on_problem(f"Notification hook could not run: {command}: {exc}")

    async def wait_hooks(self) -> None:
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)


def app_notifier(app: Any) -> Notifier:
    """A Notifier wired to the app: its terminal, its agent's settings files and session."""
    from ..core.user_settings import hook_commands, read_setting

    def write(data: str) -> None:
        driver = getattr(app, "_driver", None)
        if driver is not None:
            driver.write(data)
            driver.flush()

    def policy() -> Any:
        return app.agent.policy if app.ready else None

    def hook_input() -> dict[str, Any]:
        session = app.agent.session
        return {"session_id": session.id, "transcript_path": str(session.transcript_path), "cwd": str(app.settings.cwd)}

    return Notifier(
        write,
        setting=lambda key, default: read_setting(policy(), key, default),
        hooks=lambda: hook_commands(policy(), "Notification") if app.ready else [],
        hook_input=hook_input,
        cwd=str(app.requested.cwd),  # before the settings are validated (after the first frame)
        on_problem=lambda text: app.conversation.notice("warning", text, now=True),
        schedule=app.set_timer,
    )
