"""Hooks the driving program registered in `initialize`: its callbacks, one source of the session's hook
dispatcher (core/hook_events.py), which builds each event's input and applies the answers exactly as
for settings command hooks.

Each matching callback gets a `hook_callback` request with Claude Code's hook input; its reply is the
hook's JSON output. A callback that fails or times out is reported on stderr and decides nothing; once
stdin is closed no callback can answer, so none is asked (SessionEnd after the program hung up).
"""

from __future__ import annotations

import asyncio
from typing import Any, Callable

from ..core.hook_events import HOOK_EVENTS
from ..core.permissions.hooks import matcher_applies
from .channel import Channel, ProgramError
from .wire import HookMatcher

DEFAULT_TIMEOUT = 60.0


class ProgramHooks:
    """The program's `HookMatcher`s, as a `HookSource` of the dispatcher."""

    def __init__(self, channel: Channel, notice: Callable[[str], None]) -> None:
        self._channel = channel
        self._notice = notice
        self._matchers: dict[str, list[HookMatcher]] = {}

    def register(self, hooks: dict[str, list[HookMatcher]] | None) -> None:
        self._matchers = dict(hooks or {})
        for event in self._matchers:
            if event not in HOOK_EVENTS:  # named once, never silently dropped
                self._notice(f"tui-agent: hook event {event!r} is not supported; its callbacks are never called")

    def has(self, event: str) -> bool:
        return bool(self._matchers.get(event)) and not self._channel.closed

    async def replies(self, event: str, match_value: str | None, hook_input: dict[str, Any], tool_use_id: str | None) -> list[Any]:
        """Every matching callback's reply (in registration order), called at once."""
        chosen = [
            (cid, m.timeout or DEFAULT_TIMEOUT)
            for m in self._matchers.get(event, [])
            if match_value is None or matcher_applies(m.matcher, match_value)
            for cid in m.hookCallbackIds
        ]
        replies = await asyncio.gather(*(self._one(event, cid, timeout, hook_input, tool_use_id) for cid, timeout in chosen))
        return [r for r in replies if r is not None]

    async def _one(self, event: str, callback_id: str, timeout: float, hook_input: dict[str, Any], tool_use_id: str | None) -> Any:
        request = {"subtype": "hook_callback", "callback_id": callback_id, "input": hook_input, "tool_use_id": tool_use_id}
        try:
            return await asyncio.wait_for(self._channel.request(request), timeout)
        except TimeoutError:
            self._notice(f"tui-agent: {event} hook {callback_id} did not answer within {timeout:g} s; it decides nothing")
        except ProgramError as exc:
            self._notice(f"tui-agent: {event} hook {callback_id} failed: {exc}")
        return None
