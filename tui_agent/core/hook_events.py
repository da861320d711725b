"""One dispatcher for every hook event: settings command hooks and a driving program's callbacks alike.

`fire(event, **fields)` builds Claude Code's hook input (`session_id`, `transcript_path`, `cwd`,
`permission_mode`, `hook_event_name` and the event's own fields), runs every matching hook of every source
at once, and folds their answers into one `HookResult`. The sources:
- the settings files' command hooks (`hooks.<Event>` in .claude/settings.json...): the input as JSON on
  stdin; exit 2 blocks with stderr as the reason, exit 0 may answer with JSON on stdout, any other exit is
  reported and decides nothing;
- callbacks a program registered (the SDK's `HookMatcher`s, protocol/hooks.py), whose replies are the
  same JSON.
A hook that answers garbage is named in a notice and decides nothing; the session goes on. Where each
event fires, and what its answer does there, is core/hook_points.py.

Matchers (Claude Code's): tool events match the tool name, Notification its `notification_type`,
SubagentStart/Stop the `agent_type`, PreCompact the `trigger`, SessionStart the `source`, SessionEnd the
`reason`; UserPromptSubmit and Stop hooks always run.
"""

from __future__ import annotations

import asyncio
import contextvars
import itertools
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Literal, Protocol, Sequence

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .events import HookFinished, HookStarted
from .permissions.hooks import HookOutcome, HookSpec, matcher_applies, run_hook_command

HookEvent = Literal[
    "PreToolUse", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "Stop", "SubagentStart", "SubagentStop",
    "PreCompact", "Notification", "PermissionRequest", "SessionStart", "SessionEnd",
]
HOOK_EVENTS: tuple[str, ...] = HookEvent.__args__  # type: ignore[attr-defined]
MATCH_FIELD: dict[str, str] = {
    "PreToolUse": "tool_name", "PostToolUse": "tool_name", "PostToolUseFailure": "tool_name", "PermissionRequest": "tool_name",
    "Notification": "notification_type", "SubagentStart": "agent_type", "SubagentStop": "agent_type",
    "PreCompact": "trigger", "SessionStart": "source", "SessionEnd": "reason",
}
SERVICE = "hook_events"
"""Where the dispatcher sits in an Agent's tool services (subagents share it with their parent)."""
AGENT_SERVICE = "hook_agent"
"""A subagent's `{agent_id, agent_type}`, added to the input of the hooks its own tool calls fire."""
_DECISIONS = ("deny", "ask", "allow")
_LEGACY = {"approve": "allow", "block": "deny"}

NoticeFn = Callable[[str, str], None]


class HookOutput(BaseModel):
    """A hook's JSON answer (Claude Code's shape; the SDK turns `continue_` into `continue`)."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)
    continue_: bool = Field(True, alias="continue")
    stopReason: str | None = None
    suppressOutput: bool = False
    systemMessage: str | None = None
    decision: str | None = None
    reason: str | None = None
    hookSpecificOutput: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class HookReply:
    """One hook's answer: its JSON output, or exit 2's stderr, or plain stdout."""

    label: str
    output: HookOutput = field(default_factory=HookOutput)
    blocking_error: str | None = None
    text: str = ""


@dataclass(frozen=True, slots=True)
class HookResult:
    """What all the hooks of one firing said, combined."""

    event: str
    replies: tuple[HookReply, ...] = ()

    def _specific(self) -> list[dict[str, Any]]:
        return [r.output.hookSpecificOutput for r in self.replies if isinstance(r.output.hookSpecificOutput, dict)]

    @property
    def blocked(self) -> bool:
        """`decision: "block"` or exit 2."""
        return any(r.blocking_error is not None or r.output.decision == "block" for r in self.replies)

    @property
    def reason(self) -> str:
        """The block reasons (exit 2's stderr, `reason`), one a line."""
        words = [r.blocking_error if r.blocking_error is not None else (r.output.reason or "") for r in self.replies
                 if r.blocking_error is not None or r.output.decision == "block"]
        return "\n".join(w for w in words if w)

    @property
    def stop_reason(self) -> str | None:
        """Set when a hook answered `continue: false`: the run ends, with this reason shown."""
        stops = [r for r in self.replies if not r.output.continue_]
        if not stops:
            return None
        return "\n".join(r.output.stopReason for r in stops if r.output.stopReason) or f"A {self.event} hook stopped the run."

    @property
    def system_messages(self) -> list[str]:
        return [r.output.systemMessage for r in self.replies if r.output.systemMessage]

    @property
    def suppress_output(self) -> bool:
        return any(r.output.suppressOutput for r in self.replies)

    @property
    def additional_context(self) -> list[str]:
        """`hookSpecificOutput.additionalContext` of every hook (plain stdout too for the events where Claude
        Code takes it as context: UserPromptSubmit and SessionStart)."""
        words = [str(s["additionalContext"]) for s in self._specific() if s.get("additionalContext")]
        if self.event in ("UserPromptSubmit", "SessionStart"):
            words += [r.text.strip() for r in self.replies if r.text.strip()]
        return words

    def session_context(self, source: str) -> list[str]:
        """SessionStart's words for the model, framed as Claude Code frames them (measured, 2.1.197): plain
        stdout as "SessionStart:<source> hook success: ...", JSON's as "SessionStart hook additional context: ..."."""
        words = [f"SessionStart hook additional context: {s['additionalContext']}" for s in self._specific() if s.get("additionalContext")]
        return [f"SessionStart:{source} hook success: {r.text.strip()}" for r in self.replies if r.text.strip()] + words

    @property
    def updated_input(self) -> dict[str, Any] | None:
        return next((u for s in self._specific() if isinstance(u := s.get("updatedInput"), dict)), None)

    def permission(self) -> HookOutcome:
        """PreToolUse: `permissionDecision` (or the legacy `decision: approve|block`, or exit 2): deny beats
        ask beats allow; the updated input rides along."""
        votes: list[tuple[str, str, str]] = []
        for r in self.replies:
            specific = r.output.hookSpecificOutput or {}
            if r.blocking_error is not None:
                votes.append(("deny", r.blocking_error or "Blocked by a PreToolUse hook.", r.label))
            elif specific.get("permissionDecision") in _DECISIONS:
                votes.append((specific["permissionDecision"], str(specific.get("permissionDecisionReason") or ""), r.label))
            elif r.output.decision in _LEGACY:
                votes.append((_LEGACY[r.output.decision], r.output.reason or "", r.label))  # type: ignore[index]
        for decision in _DECISIONS:
            chosen = [v for v in votes if v[0] == decision]
            if chosen:
                return HookOutcome(decision, "\n".join(v[1] for v in chosen if v[1]), "; ".join(v[2] for v in chosen),  # type: ignore[arg-type]
                                   self.updated_input)
        return HookOutcome(updated_input=self.updated_input)

    def permission_request(self) -> dict[str, Any] | None:
        """PermissionRequest: `hookSpecificOutput.decision` (`{"behavior": "allow"|"deny", ...}`), deny first."""
        decisions = [d for s in self._specific() if isinstance(d := s.get("decision"), dict) and d.get("behavior") in ("allow", "deny")]
        return next((d for d in decisions if d["behavior"] == "deny"), decisions[0] if decisions else None)

    def feedback(self) -> str | None:
        """Words for the model after a tool call (PostToolUse / PostToolUseFailure): block reasons and
        additional context, as Claude Code appends them to the result."""
        notes = [f"{self.event} hook feedback: {line}" for line in self.reason.splitlines() if line]
        notes += self.additional_context
        return "\n".join(notes) or None


class HookSource(Protocol):
    """Something that answers hooks besides the settings files: a program's registered callbacks."""

    def has(self, event: str) -> bool: ...

    async def replies(self, event: str, match_value: str | None, hook_input: dict[str, Any], tool_use_id: str | None) -> list[Any]: ...


class HookDispatcher:
    """Fires hook events for one session (its main agent and its subagents)."""

    def __init__(
        self,
        *,
        session_id: Callable[[], str],
        transcript_path: Callable[[], Path | str],
        cwd: Path,
        permission_mode: Callable[[], str],
        commands: Callable[[], Sequence[HookSpec]],
        project_dir: Path | None = None,
        on_notice: NoticeFn = lambda level, text: None,
    ) -> None:
        self._session_id = session_id
        self._transcript_path = transcript_path
        self.cwd = cwd
        self._permission_mode = permission_mode
        self._commands = commands
        self.project_dir = project_dir or cwd
        self.on_notice = on_notice
        self.sources: list[HookSource] = []
        self.stop_requested: str | None = None
        """A `continue: false` from a tool's hook: the running turn ends after its tools (loop reads it)."""
        self.session_started = False
        """SessionStart ("startup" / "resume") fired: it fires once, at the session's first prompt."""
        self.cleared = False
        """/clear happened: SessionEnd and SessionStart ("clear") are due at the next prompt."""
        self.pending_context: list[str] = []
        """SessionStart hooks' additional context, for the next prompt."""
        self.on_event: Callable[[Any], None] = lambda event: None
        """Where HookStarted / HookFinished go (the agent's events: the app's lanes show a running hook)."""
        self.clock: Callable[[], float] = time.monotonic
        self._ids = itertools.count(1)
        self.notify_asks = False
        """Fire Notification when a permission ask waits (the protocol sets it; the app's notifier, ui/notify.py,
        sends its own after a wait, and -p never asks)."""

    def note_stop(self, result: HookResult) -> None:
        """A tool's hook said `continue: false`: remember it; the loop ends the turn once its tools are done."""
        if result.stop_reason is not None and self.stop_requested is None:
            self.stop_requested = result.stop_reason

    def add_source(self, source: HookSource) -> None:
        self.sources.append(source)

    def _matching_commands(self, event: str, match_value: str | None) -> list[HookSpec]:
        return [h for h in self._commands() if h.event == event and (match_value is None or matcher_applies(h.matcher, match_value))]

    def has(self, event: str, match_value: str | None = None) -> bool:
        return bool(self._matching_commands(event, match_value)) or any(s.has(event) for s in self.sources)

    def base_input(self, event: str) -> dict[str, Any]:
        return {
            "session_id": self._session_id(),
            "transcript_path": str(self._transcript_path()),
            "cwd": str(self.cwd),
            "permission_mode": self._permission_mode(),
            "hook_event_name": event,
        }

    async def fire(self, event: str, *, tool_use_id: str | None = None, **fields: Any) -> HookResult:
        """Run every hook of `event` that matches, all at once; their answers combined."""
        match_field = MATCH_FIELD.get(event)
        match_value = str(fields.get(match_field) or "") if match_field else None
        commands = self._matching_commands(event, match_value)
        sources = [s for s in self.sources if s.has(event)]
        if not commands and not sources:
            return HookResult(event)
        hook_input = {**self.base_input(event), **{k: v for k, v in fields.items() if v is not None or k == "custom_instructions"}}
        if tool_use_id is not None:
            hook_input["tool_use_id"] = tool_use_id
        payload = json.dumps(hook_input, default=str).encode()
        env = {**os.environ, "CLAUDE_PROJECT_DIR": str(self.project_dir)}
        runs = [self._command(h, payload, env) for h in commands]
        runs += [self._program(s, event, match_value, hook_input, tool_use_id) for s in sources]
        replies = [r for group in await asyncio.gather(*runs) for r in group]
        result = HookResult(event, tuple(replies))
        for message in result.system_messages:
            self.on_notice("warning", message)  # Claude Code shows a hook's systemMessage to the user
        return result

    async def _command(self, hook: HookSpec, payload: bytes, env: dict[str, str]) -> list[HookReply]:
        label = f"{hook.event} hook `{hook.shown}` ({hook.source})"
        hook_id, t0, status = f"hook-{next(self._ids)}", self.clock(), "cancelled"
        self.on_event(HookStarted(hook_id, hook.event, hook.shown, t0))
        try:
            ran = await run_hook_command(hook, payload, self.cwd, env, self.on_notice)
            status = "error" if ran is None or ran[0] not in (0, 2) else "denied" if ran[0] == 2 else "ok"
        finally:
            self.on_event(HookFinished(hook_id, hook.event, hook.shown, status, t0, self.clock()))  # type: ignore[arg-type]
        if ran is None:
            return []
        code, stdout, stderr = ran
        if code == 2:
            return [HookReply(label, blocking_error=stderr)]
        if code != 0:
            self.on_notice("warning", f"{label} failed (exit {code}): {stderr or 'no output'}")
            return []
        text = stdout.strip()
        if not text.startswith("{"):
            return [HookReply(label, text=stdout)] if text else []
        try:
            data = json.loads(text)
        except ValueError as exc:
            self.on_notice("warning", f"{label} printed invalid JSON ({exc}); it decides nothing")
            return []
        reply = self._parse(label, data)
        return [reply] if reply is not None else []

    async def _program(self, source: HookSource, event: str, match_value: str | None, hook_input: dict[str, Any], tool_use_id: str | None) -> list[HookReply]:
        answers = await source.replies(event, match_value, hook_input, tool_use_id)
        return [r for a in answers if (r := self._parse(f"{event} hook (program callback)", a)) is not None]

    def _parse(self, label: str, data: Any) -> HookReply | None:
        if not isinstance(data, dict):
            self.on_notice("warning", f"{label} answered {type(data).__name__}, not a JSON object; it decides nothing")
            return None
        try:
            return HookReply(label, HookOutput.model_validate(data))
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
            self.on_notice("warning", f"{label} answered with an invalid output ({problems}); it decides nothing")
            return None


# ----- finding the dispatcher (core/hook_points.py holds the seams where each event fires) --------


def dispatcher_of(services: dict[str, Any]) -> HookDispatcher | None:
    found = services.get(SERVICE)
    return found if isinstance(found, HookDispatcher) else None


def agent_fields(services: dict[str, Any]) -> dict[str, Any]:
    """`agent_id` / `agent_type` of the subagent whose tool call fires the hook ({} on the main thread)."""
    found = services.get(AGENT_SERVICE)
    return dict(found) if isinstance(found, dict) else {}


_CALLER: contextvars.ContextVar[dict[str, Any]] = contextvars.ContextVar("hook_caller", default={})
"""The subagent whose call is being prepared, for the hooks the permission engine fires (it sees no services)."""


def set_caller(services: dict[str, Any]) -> None:
    """In a call's own task, before its permission check: who makes the call (a subagent, or the main thread)."""
    _CALLER.set(agent_fields(services))


def caller_fields() -> dict[str, Any]:
    return dict(_CALLER.get())


async def fire(services: dict[str, Any], event: str, *, tool_use_id: str | None = None, **fields: Any) -> HookResult:
    """Fire `event` through the session's dispatcher (nothing happens without one)."""
    dispatcher = dispatcher_of(services)
    if dispatcher is None:
        return HookResult(event)
    try:
        return await dispatcher.fire(event, tool_use_id=tool_use_id, **fields)
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # a broken hook must not break the turn
        dispatcher.on_notice("warning", f"{event} hooks failed: {type(exc).__name__}: {exc}")
        return HookResult(event)


def install_hook_events(agent: Any, on_notice: NoticeFn) -> HookDispatcher:
    """Give `agent` (and, through its shared services, its subagents) the session's dispatcher; the
    permission engine runs its PreToolUse hooks through it too."""
    policy = agent.policy
    settings = getattr(policy, "settings", None)
    dispatcher = HookDispatcher(
        session_id=lambda: agent.session.id,
        transcript_path=lambda: agent.session.transcript_path,
        cwd=Path(getattr(policy, "cwd", agent.workspace.root)),
        permission_mode=lambda: str(getattr(agent.policy, "mode", "default")),
        commands=lambda: list(getattr(settings, "hooks", ()) or ()),
        project_dir=getattr(policy, "project_dir", None),
        on_notice=on_notice,
    )
    agent.context.services[SERVICE] = dispatcher
    dispatcher.on_event = lambda event: agent.emit(event)  # the agent's emit of the moment (a front end may swap it)
    dispatcher.clock = getattr(agent, "clock", time.monotonic)
    if hasattr(policy, "hook_events"):
        policy.hook_events = dispatcher
    return dispatcher
