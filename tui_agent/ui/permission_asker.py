"""The TUI's answer to the core's permission asks: a queue of asks shown one dialog at a time.

The core awaits `ask(request)` from a tool's own task, so several asks may wait at once (parallel tool
calls); tools already running keep running. The dialog never opens while the user is typing in the
prompt (a key within `typing_quiet` seconds), so type-ahead cannot answer it; the ask just stays
pending. Everything that touches the screen runs on the app's message loop (`call_later`), because
`ask` is called from the core's tasks.
"""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from textual.app import App

from ..core.permission_types import PermissionAnswer, PermissionRequest
from .ask_dialogs import dialog_for
from .dialog_typing import TypingGuard
from .screens.permission import LOCAL_SETTINGS, PermissionScreen


@dataclass(eq=False, slots=True)
class _Ask:
    request: PermissionRequest
    future: asyncio.Future[PermissionAnswer]


def settings_label(policy: Any) -> str:
    """Where "always allow" writes, as the user would find it (relative to the working folder)."""
    project, cwd = getattr(policy, "project_dir", None), getattr(policy, "cwd", None)
    if project is None:
        return LOCAL_SETTINGS
    path = Path(project) / LOCAL_SETTINGS
    return os.path.relpath(path, cwd) if cwd is not None else str(path)


class PermissionAsker:
    """The agent's `ask` handler. The app calls `note_keypress()` on every key typed in the prompt and
    `cancel_all()` on abort."""

    def __init__(
        self,
        app: App[Any],
        policy: Any,
        *,
        clock: Callable[[], float] = time.monotonic,
        typing_quiet: float = 1.0,
        guard: float = 0.4,
        poll: float = 0.1,
        typing_clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._app = app
        self._policy = policy
        self._clock = clock
        self._typing_quiet = typing_quiet
        self._guard = guard
        self._poll = poll
        self._typing_clock = typing_clock  # how fast keys come, to tell a sentence from an answer
        self._last_key = float("-inf")
        self._queue: list[_Ask] = []  # asked, not yet shown
        self._current: _Ask | None = None
        self._screen: PermissionScreen | None = None
        self._answered = 0  # answers in this run of asks ("2 of 3" counts them)
        self._waiting = False  # a retry to open is scheduled

    # ----- the app's side -----------------------------------------------------------------------
    @property
    def dialog(self) -> PermissionScreen | None:
        """The dialog now shown, if any."""
        return self._screen

    @property
    def pending(self) -> int:
        """Asks without an answer yet (shown or waiting)."""
        return len(self._queue) + (self._current is not None)

    def note_keypress(self) -> None:
        self._last_key = self._clock()

    def cancel_all(self) -> None:
        """Abort: every pending ask ends (its tool is reported interrupted by the core), the dialog closes."""
        for item in [*self._queue, *([self._current] if self._current else [])]:
            item.future.cancel()
        self._queue.clear()
        self._close_current()
        self._answered = 0

    # ----- the core's side ------------------------------------------------------------------------
    async def ask(self, request: PermissionRequest) -> PermissionAnswer:
        """Queue the ask and wait for its answer (cancelling the caller withdraws it)."""
        item = _Ask(request, asyncio.get_running_loop().create_future())
        self._queue.append(item)
        if not self._app.call_later(self._show):
            self._queue.remove(item)  # the app is closing: no one can answer
            return PermissionAnswer("deny")
        try:
            return await item.future
        except asyncio.CancelledError:
            self._withdraw(item)
            raise

    def _withdraw(self, item: _Ask) -> None:
        if item in self._queue:
            self._queue.remove(item)
        elif item is self._current:
            self._close_current()
        self._app.call_later(self._show)

    # ----- the dialog -------------------------------------------------------------------------------
    def _count(self) -> tuple[int, int]:
        return self._answered + 1, self._answered + (self._current is not None) + len(self._queue)

    def _show(self) -> None:
        """Update the open dialog's count, or open one for the next ask once the user stops typing."""
        if self._screen is not None:
            if isinstance(self._screen, PermissionScreen):
                self._screen.set_count(*self._count())
            return
        if not self._queue:
            self._answered = 0
            return
        wait = self._typing_quiet - (self._clock() - self._last_key)
        if wait > 0:
            if not self._waiting:
                self._waiting = True
                self._app.set_timer(min(self._poll, wait), self._retry)
            return
        item = self._current = self._queue.pop(0)
        position, total = self._count()
        own = dialog_for(item.request.tool_name)
        if own is not None:  # a question to the person, not a permission: its own dialog
            self._screen = own(item.request, self._policy)  # type: ignore[assignment]
            self._app.push_screen(self._screen, callback=lambda answer, item=item: self._answer(item, answer))
            return
        self._screen = PermissionScreen(
            item.request,
            position=position,
            total=total,
            on_deny_all=self._deny_waiting,
            settings_label=settings_label(self._policy),
            clock=self._clock,
            guard=self._guard,
            typing=TypingGuard(clock=self._typing_clock),
        )
        self._app.push_screen(self._screen, callback=lambda answer, item=item: self._answer(item, answer))

    def _retry(self) -> None:
        self._waiting = False
        self._show()

    def _answer(self, item: _Ask, answer: PermissionAnswer | None) -> None:
        if item is self._current:
            self._current = self._screen = None
        if answer is not None and not item.future.done():
            item.future.set_result(answer)
            self._answered += 1
        self._show()  # the next ask, with a fresh guard

    def _deny_waiting(self, words: str) -> None:
        """"Deny all with words": every ask not yet shown gets the same deny."""
        for item in self._queue:
            if not item.future.done():
                item.future.set_result(PermissionAnswer("deny", words=words))
                self._answered += 1
        self._queue.clear()

    def _close_current(self) -> None:
        screen, self._current, self._screen = self._screen, None, None
        if screen is not None:
            self._app.call_later(self._dismiss, screen)

    def _dismiss(self, screen: PermissionScreen) -> None:
        if screen in self._app.screen_stack:
            screen.pop_until_active()  # whatever was opened over the dialog goes with it
            screen.dismiss(None)
