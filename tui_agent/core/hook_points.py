"""Where each hook event fires: the seams the loop, the executor, the subagent runner and compaction call
into (each one line at its place), over the session's dispatcher (core/hook_events.py).

- SessionStart at a session's first prompt ("startup" / "resume") and after a compaction ("compact");
  SessionEnd as it closes. UserPromptSubmit before a prompt joins the history (may block it or add
  context); Stop when the model is done (a block continues the conversation with its reason).
- Notification and PermissionRequest before a permission ask is shown (a PermissionRequest decision
  answers it); SubagentStart as a subagent starts, SubagentStop when its model is done (in the same
  loop as Stop: a block continues the subagent with its reason).
- A tool hook's `continue: false` ends the run once its tools are done (`take_stop`).
Subagents fire no session or prompt events of their own; their tool calls' hooks carry `agent_id`.
"""

from __future__ import annotations

from typing import Any

from .hook_events import AGENT_SERVICE, HookDispatcher, agent_fields, dispatcher_of, fire


def take_stop(services: dict[str, Any]) -> str | None:
    """The pending `continue: false` reason, cleared (the loop asks after each round of tools)."""
    dispatcher = dispatcher_of(services)
    if dispatcher is None:
        return None
    why, dispatcher.stop_requested = dispatcher.stop_requested, None
    if why is not None:
        dispatcher.on_notice("info", f"A hook stopped the run: {why}")
    return why


def terminal_reason(ended: Any) -> str:
    """Claude Code's `terminal_reason` for a run's end: "hook_stopped" after a hook's `continue: false` (the
    one completed run that carries a detail: its stopReason), else the end reason."""
    return "hook_stopped" if ended.reason == "completed" and ended.detail else ended.reason


async def permission_request_hooks(services: dict[str, Any], request: Any) -> Any:
    """Before a permission ask is shown: Notification ("permission_prompt", where the front end wants it from
    the core) and PermissionRequest, whose `decision` may answer the ask in the person's place. Returns the
    `PermissionAnswer` a hook gave, or None to ask as usual."""
    from .permission_types import PermissionAnswer

    dispatcher = dispatcher_of(services)
    if dispatcher is None:
        return None
    agent = agent_fields(services)
    if dispatcher.notify_asks:
        await fire(services, "Notification", message=f"Claude needs your permission to use {request.tool_name}",
                   notification_type="permission_prompt")
    if not dispatcher.has("PermissionRequest", request.tool_name):
        return None
    result = await fire(services, "PermissionRequest", tool_use_id=request.tool_use_id, tool_name=request.tool_name,
                        tool_input=request.input, **agent)
    decision = result.permission_request()
    if decision is None:
        return None
    if decision["behavior"] == "deny":
        return PermissionAnswer("deny", str(decision.get("message") or "Denied by a PermissionRequest hook."))
    updated = decision.get("updatedInput")
    return PermissionAnswer("allow_once", updated_input=updated if isinstance(updated, dict) else None)


async def session_start(agent: Any, prompt: Any, source: str | None = None, signal: Any = None) -> Any:
    """SessionStart, once per session at its first prompt (after a front end wired its callbacks): source
    "startup", or "resume" when the session came with history; `source="compact"` after a compaction.
    Their additional context joins the (next) prompt. Subagents fire none. With `signal`, ESC stops the
    hooks; without hooks nothing is awaited at all (compaction's abort points stay where they were)."""
    from .context.compaction import until_aborted

    services = agent.context.services
    dispatcher = dispatcher_of(services)
    if dispatcher is None or AGENT_SERVICE in services:
        return prompt
    if source is None:
        if dispatcher.cleared:  # /clear ended one conversation and begins another, as Claude Code reports it
            dispatcher.cleared = False
            await session_end(agent, "clear")
            source = "clear"
        elif dispatcher.session_started:
            return _with_context(prompt, dispatcher)
        else:
            source = "resume" if agent.history else "startup"
        dispatcher.session_started = True
    if dispatcher.has("SessionStart", source):
        hooks = fire(services, "SessionStart", source=source)
        result = await (hooks if signal is None else until_aborted(hooks, signal))
        if result is not None:
            dispatcher.pending_context.extend(result.session_context(source))
    return prompt if prompt is None else _with_context(prompt, dispatcher)


def _with_context(prompt: Any, dispatcher: HookDispatcher) -> Any:
    words, dispatcher.pending_context = dispatcher.pending_context, []
    return _with_words(prompt, words)


def cleared(agent: Any) -> None:
    """The app's /clear: the next prompt fires SessionEnd ("clear") and SessionStart ("clear") first, on
    the agent's own loop (the command runs on the app's)."""
    dispatcher = dispatcher_of(agent.context.services)
    if dispatcher is not None:
        dispatcher.cleared = True


async def session_end(agent: Any, reason: str = "other") -> None:
    """SessionEnd as the session closes (its answers decide nothing; Claude Code's neither)."""
    services = agent.context.services
    dispatcher = dispatcher_of(services)
    if dispatcher is not None and AGENT_SERVICE not in services and dispatcher.has("SessionEnd", reason):
        await fire(services, "SessionEnd", reason=reason)


async def subagent_start(child: Any, agent_id: str, agent_type: str, prompt: str) -> str:
    """Mark `child` as a subagent (its tool hooks carry `agent_id`/`agent_type`) and fire SubagentStart; its
    additional context joins the subagent's prompt."""
    child.context.services[AGENT_SERVICE] = {"agent_id": agent_id, "agent_type": agent_type}
    result = await fire(child.context.services, "SubagentStart", agent_id=agent_id, agent_type=agent_type)
    return "\n\n".join([prompt, *result.additional_context])


MAX_STOP_CONTINUATIONS = 8
"""A Stop (SubagentStop) hook that always blocks must not keep a run going forever (Claude Code's cap too)."""


def _main_thread(services: dict[str, Any], event: str) -> HookDispatcher | None:
    dispatcher = dispatcher_of(services)
    if dispatcher is None or AGENT_SERVICE in services or not dispatcher.has(event):
        return None
    return dispatcher


async def prompt_submitted(agent: Any, prompt: Any, signal: Any) -> tuple[Any, str | None]:
    """UserPromptSubmit, before a prompt joins the history: (the prompt with the hooks' context, None), or
    (None, why) when a hook blocked it, stopped the session's run, or ESC came first."""
    from .context.compaction import until_aborted  # (compaction imports this module)

    if _main_thread(agent.context.services, "UserPromptSubmit") is None:
        return prompt, None
    result = await until_aborted(fire(agent.context.services, "UserPromptSubmit", prompt=prompt_text(prompt)), signal)
    if result is None:
        return None, f"{(signal.reason or 'interrupted by user').capitalize()}."
    if result.blocked:
        return None, result.reason or "The prompt was blocked by a UserPromptSubmit hook."
    if result.stop_reason is not None:
        return None, result.stop_reason
    return _with_words(prompt, result.additional_context), None


async def stop_requested_continuation(agent: Any, last_message: str, rounds: int, signal: Any) -> str | None:
    """Stop (SubagentStop in a subagent, with its transcript), when the model is done: the words to continue
    the conversation with when a hook blocks (`decision: "block"` + reason) or adds context, else None.
    `rounds`: continuations so far (`stop_hook_active` after one)."""
    from .context.compaction import until_aborted

    services = agent.context.services
    dispatcher = dispatcher_of(services)
    who = agent_fields(services)
    event = "SubagentStop" if who else "Stop"
    if dispatcher is None or not dispatcher.has(event, who.get("agent_type")):
        return None
    if rounds >= MAX_STOP_CONTINUATIONS:
        dispatcher.on_notice("warning", f"{event} hooks blocked {rounds} times in a row; the turn ends here.")
        return None
    fields: dict[str, Any] = {"stop_hook_active": rounds > 0, "last_assistant_message": last_message}
    if who:
        fields.update(agent_transcript_path=str(getattr(agent.session, "transcript_path", "") or ""), **who)
    result = await until_aborted(fire(services, event, **fields), signal)
    if result is None or result.stop_reason is not None:
        return None
    if result.blocked:
        return result.reason or f"A {event} hook asked to continue."
    # Stop's additionalContext is feedback the model gets without an error; it goes on to act on it.
    return "\n".join(result.additional_context) or None


def prompt_text(prompt: Any) -> str:
    if isinstance(prompt, str):
        return prompt
    return "\n".join(str(b.get("text", "")) for b in prompt if isinstance(b, dict) and b.get("type") == "text")


def _with_words(prompt: Any, words: list[str]) -> Any:
    if not words:
        return prompt
    blocks = [{"type": "text", "text": prompt}] if isinstance(prompt, str) else list(prompt)
    return [*blocks, *({"type": "text", "text": w} for w in words)]
