"""Hooks the driving program registered in `initialize`: its callbacks, called over the protocol.

Each matching callback gets a `hook_callback` request with Claude Code's hook input (`session_id`,
`transcript_path`, `cwd`, `permission_mode`, `hook_event_name`, and per event `tool_name`,
`tool_input`, `tool_use_id`, `tool_response`, `prompt`). Its reply is applied as Claude Code applies
a hook's JSON output: PreToolUse may block, approve, ask or replace the input; PostToolUse may add words
for the model (`additionalContext`, or a block reason). A callback that fails or times out is reported
on stderr and decides nothing.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ..core.permission_types import PermissionCheck, PermissionDecision
from ..core.permissions.engine import with_hook_outcome
from ..core.permissions.hooks import HookOutcome, matcher_applies, parse_pre_tool_use_output
from ..core.tool_hooks import FinishedCall
from .channel import Channel, ProgramError
from .wire import HookMatcher

DEFAULT_TIMEOUT = 60.0


@dataclass(frozen=True, slots=True)
class HookSession:
    """The session facts every hook input carries."""

    session_id: str
    transcript_path: Path
    cwd: Path
    permission_mode: Callable[[], str]


class ProgramHooks:
    def __init__(self, channel: Channel, session: HookSession, notice: Callable[[str], None]) -> None:
        self._channel = channel
        self._session = session
        self._notice = notice
        self._matchers: dict[str, list[HookMatcher]] = {}

    def register(self, hooks: dict[str, list[HookMatcher]] | None) -> None:
        self._matchers = dict(hooks or {})

    def has(self, event: str) -> bool:
        return bool(self._matchers.get(event))

    async def call(self, event: str, tool_name: str | None = None, tool_use_id: str | None = None, **fields: Any) -> list[dict[str, Any]]:
        """Every matching callback's reply (in registration order), called at once."""
        chosen = [
            (cid, m.timeout or DEFAULT_TIMEOUT)
            for m in self._matchers.get(event, [])
            if tool_name is None or matcher_applies(m.matcher, tool_name)
            for cid in m.hookCallbackIds
        ]
        if not chosen:
            return []
        s = self._session
        hook_input: dict[str, Any] = {
            "session_id": s.session_id,
            "transcript_path": str(s.transcript_path),
            "cwd": str(s.cwd),
            "permission_mode": s.permission_mode(),
            "hook_event_name": event,
        }
        if tool_name is not None:
            hook_input.update({"tool_name": tool_name})
        hook_input.update(fields)
        if tool_use_id is not None:
            hook_input["tool_use_id"] = tool_use_id
        replies = await asyncio.gather(*(self._one(event, cid, timeout, hook_input, tool_use_id) for cid, timeout in chosen))
        return [r for r in replies if r is not None]

    async def _one(self, event: str, callback_id: str, timeout: float, hook_input: dict[str, Any], tool_use_id: str | None) -> dict[str, Any] | None:
        request = {"subtype": "hook_callback", "callback_id": callback_id, "input": hook_input, "tool_use_id": tool_use_id}
        try:
            return await asyncio.wait_for(self._channel.request(request), timeout)
        except TimeoutError:
            self._notice(f"tui-agent: {event} hook {callback_id} did not answer within {timeout:g} s; it decides nothing")
        except ProgramError as exc:
            self._notice(f"tui-agent: {event} hook {callback_id} failed: {exc}")
        return None

    # ----- the events -------------------------------------------------------------------------
    async def pre_tool_use(self, check: PermissionCheck) -> HookOutcome:
        replies = await self.call("PreToolUse", check.tool.name, check.tool_use_id, tool_input=check.raw_input)
        outcomes = [parse_pre_tool_use_output(r, "PreToolUse hook (program callback)") for r in replies]
        updated = next((u for r in replies if isinstance(u := hook_specific_output(r).get("updatedInput"), dict)), None)
        for decision in ("deny", "ask", "allow"):
            chosen = [o for o in outcomes if o.decision == decision]
            if chosen:
                reason = "\n".join(o.reason for o in chosen if o.reason)
                return HookOutcome(decision, reason, chosen[0].source, updated)  # type: ignore[arg-type]
        return HookOutcome(updated_input=updated)

    async def post_tool_use(self, call: FinishedCall) -> str | None:
        if not self.has("PostToolUse"):
            return None
        replies = await self.call("PostToolUse", call.tool_name, call.tool_use_id, tool_input=call.tool_input, tool_response=call.tool_response)
        notes: list[str] = []
        for reply in replies:
            if reply.get("decision") == "block" and reply.get("reason"):
                notes.append(f"PostToolUse hook feedback: {reply['reason']}")
            if hook_specific_output(reply).get("additionalContext"):
                notes.append(str(hook_specific_output(reply)["additionalContext"]))
        return "\n".join(notes) or None


def hook_specific_output(reply: dict[str, Any]) -> dict[str, Any]:
    specific = reply.get("hookSpecificOutput")
    return specific if isinstance(specific, dict) else {}


class HookedPolicy:
    """The session's permission policy with the program's PreToolUse callbacks in front: a callback may
    deny anything, turn an allow into an ask, or skip an ask; it never undoes a deny."""

    def __init__(self, inner: Any, hooks: ProgramHooks) -> None:
        self._inner = inner
        self._hooks = hooks

    @property
    def mode(self) -> str:
        return self._inner.mode

    @mode.setter
    def mode(self, value: str) -> None:
        self._inner.mode = value

    async def decide(self, check: PermissionCheck) -> PermissionDecision:
        outcome = await self._hooks.pre_tool_use(check) if self._hooks.has("PreToolUse") else HookOutcome()
        return with_hook_outcome(await self._inner.decide(check), outcome)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)
