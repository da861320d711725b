"""The subagent runner: a child Agent (the same loop) started by the Agent tool.

A `SubagentHost` sits in an Agent's tool services. For each Agent call it builds a child `Agent` with:
its own history (starting with the prompt) and tool ledger; the parent's model client (another model
only when the call or the definition names one); the definition's system prompt and tools (the Agent
tool itself only above the nesting limit); the parent's permission engine and ask channel (each ask
labelled with the subagent); the side-chain of the parent's transcript; and a child of the call's abort
signal, so ESC stops every subagent and cancelling the call stops this one alone. Each child event
reaches the parent's consumers wrapped in `SubagentEvent` with the Agent tool_use id; the child's model
usage is added to the parent's totals (so the session's totals count it).
"""

from __future__ import annotations

import asyncio
import platform
import uuid
from dataclasses import dataclass, replace
from datetime import date
from typing import TYPE_CHECKING, Any, Callable

from ..abort import AbortSignal
from ..hook_points import subagent_start
from ..events import Event, SubagentEvent, SubagentFinished, SubagentStarted, ToolFinished, ToolQueued, ToolStarted, UsageUpdated
from ..permission_types import AskHandler, PermissionAnswer, PermissionRequest
from ..skills import preloaded_skills
from .definitions import AgentCatalog, AgentDefinition, resolve_model
from .sidechain import SidechainSession

if TYPE_CHECKING:
    from ...tools.base import ToolContext
    from ..loop import Agent

SERVICE = "subagents"
TODOS = "todos"  # tools/todo.py SERVICE_KEY: the agent's own todo list
MAX_DEPTH = 2
"""A subagent at this depth (the main agent is 0) gets no Agent tool: nesting stops there."""
RESULT_LIMIT = 32_000
AGENT_TOOL = "Agent"


class SharedModelClient:
    """The parent's model client under another model name: one HTTP client, one SDK import."""

    def __init__(self, base: Any, model: str) -> None:
        self._base = base
        self.config = replace(base.config, model=model)
        self.limits = base.limits
        """The session's output limits (the base client fits every request to its model's ceiling)."""

    async def stream(self, request: dict[str, Any], on_event: Callable[[Any], None]) -> None:
        await self._base.stream(request, on_event)

    async def close(self) -> None:
        """The parent owns the connection."""


@dataclass(slots=True)
class SubagentOutcome:
    agent_id: str
    reason: str
    detail: str
    text: str
    total_tokens: int
    tool_uses: int
    duration_ms: int

    @property
    def is_error(self) -> bool:
        return self.reason != "completed"


def cut(text: str, limit: int = RESULT_LIMIT) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n\n[... the agent's report was cut at {limit:,} of {len(text):,} characters]"


def environment_note(root: Any) -> str:
    return (
        "\n\nHere is useful information about the environment you are running in:\n<env>\n"
        f"Working directory: {root}\nPlatform: {platform.system().lower()}\n"
        f"Today's date: {date.today().isoformat()}\n</env>"
    )


class _ChildTracker:
    """Watches one child's events on their way to the parent: counts, last usage, accounting."""

    def __init__(self, host: "SubagentHost", tool_use_id: str, agent_id: str, progress: Callable[[str], None]) -> None:
        self.host = host
        self.tool_use_id = tool_use_id
        self.agent_id = agent_id
        self.progress = progress
        self.tool_uses = 0
        self.last_tokens = 0
        self._summaries: dict[str, str] = {}

    def emit(self, event: Event) -> None:
        if isinstance(event, UsageUpdated):
            self.last_tokens = event.input_tokens + event.cache_read_input_tokens + event.cache_creation_input_tokens + event.output_tokens
        elif isinstance(event, ToolFinished):
            self.tool_uses += 1
        elif isinstance(event, ToolQueued):
            self._summaries[event.id] = event.summary
        elif isinstance(event, ToolStarted):
            # The Agent call's progress: what its subagent does now (a lane's last line, partial output on ESC).
            summary = self._summaries.pop(event.id, "")
            self.progress(f"{event.name}: {summary}\n" if summary else f"{event.name}\n")
        parent = self.host.parent
        parent.emit(SubagentEvent(self.tool_use_id, self.agent_id, event))
        if isinstance(event, UsageUpdated):
            self.host.account(event)


class SubagentHost:
    """Runs child agents of `parent` (installed as the `subagents` service of its tools)."""

    def __init__(self, parent: "Agent", catalog: AgentCatalog, depth: int = 0) -> None:
        self.parent = parent
        self.catalog = catalog
        self.depth = depth
        self.children: dict[str, "Agent"] = {}
        """Running child agents by the parent's Agent tool_use id."""
        self.running: dict[str, str] = {}
        """The same, agent id (the task id programs see) → the parent's Agent tool_use id."""

    # ----- accounting -------------------------------------------------------------------------
    def account(self, usage: UsageUpdated) -> None:
        """A child's response counts in this agent's totals; consumers see the new session totals."""
        update = self.parent.totals.add(usage.model, {
            "input_tokens": usage.input_tokens,
            "output_tokens": usage.output_tokens,
            "cache_read_input_tokens": usage.cache_read_input_tokens,
            "cache_creation_input_tokens": usage.cache_creation_input_tokens,
        })
        if update is not None:
            self.parent.emit(update)

    # ----- building a child ------------------------------------------------------------------
    def _ask_for(self, label: str, agent_id: str) -> AskHandler | None:
        ask = self.parent.ask
        if ask is None:
            return None

        async def labelled(request: PermissionRequest) -> PermissionAnswer:
            # A grandchild's ask keeps its own label and id: the innermost agent is the one asking.
            return await ask(replace(request, agent=request.agent or label, agent_id=request.agent_id or agent_id))

        return labelled

    def build_child(self, definition: AgentDefinition, *, tool_use_id: str, agent_id: str, description: str, model: str | None, tracker: _ChildTracker) -> "Agent":
        from ..loop import Agent, LoopOptions

        parent = self.parent
        allowed = None if definition.tools in (None, ["*"]) else definition.tools
        excluded = list(definition.disallowed_tools)
        if self.depth + 1 >= MAX_DEPTH:
            excluded.append(AGENT_TOOL)
        # Questions to the person (AskUserQuestion, plan mode) belong to the main conversation, as in Claude Code.
        excluded += [t.name for t in parent.registry.tools if getattr(t, "asks_user", False)]
        registry = parent.registry.restricted(allowed, exclude=excluded, read_only=definition.read_only)
        model_name = resolve_model(model or definition.model, parent.model.config.model)
        client = parent.model if model_name == parent.model.config.model else SharedModelClient(parent.model, model_name)
        options = LoopOptions(
            max_turns=definition.max_turns or parent.options.max_turns,
            system_prompt=(definition.system_prompt or "You are a helpful subagent.") + environment_note(parent.workspace.root)
            + preloaded_skills(definition.skills, parent.workspace.root),  # the definition's `skills:`
            max_concurrency=parent.options.max_concurrency,
            message_budget=parent.options.message_budget,
        )
        child = Agent(
            model=client,
            registry=registry,
            policy=parent.policy,
            session=SidechainSession(parent.session, agent_id, tool_use_id, definition.name),  # type: ignore[arg-type]
            workspace=parent.workspace,
            options=options,
            ask=self._ask_for(f"{definition.name}: {description}", agent_id),
            emit=tracker.emit,
            clock=parent.clock,
        )
        # Shared per-session services (background shells, kept partial output), but its own host one level down.
        # Not the todo list: each agent keeps its own, starting empty (as in Claude Code).
        child.context.services.update({k: v for k, v in parent.context.services.items() if k not in (SERVICE, TODOS)})
        child.context.services[SERVICE] = SubagentHost(child, self.catalog, self.depth + 1)
        return child

    # ----- running -----------------------------------------------------------------------------
    async def run(
        self,
        definition: AgentDefinition,
        *,
        description: str,
        prompt: str,
        model: str | None,
        ctx: "ToolContext",
    ) -> SubagentOutcome:
        """Run one child to its end. Cancelled (ESC, or this call cancelled alone): the child is
        stopped through its signal and awaited, so its tools are gone and its history is whole."""
        parent = self.parent
        tool_use_id = ctx.tool_use_id
        agent_id = "a" + uuid.uuid4().hex[:16]
        tracker = _ChildTracker(self, tool_use_id, agent_id, ctx.progress)
        child = self.build_child(definition, tool_use_id=tool_use_id, agent_id=agent_id, description=description, model=model, tracker=tracker)
        call_signal: AbortSignal = ctx.signal if ctx.signal is not None else AbortSignal()
        signal = call_signal.child()
        hooked_prompt = await subagent_start(child, agent_id, definition.name, prompt)  # core/hook_points.py
        started = parent.clock()
        parent.emit(SubagentStarted(tool_use_id, agent_id, definition.name, description, prompt, child.model.config.model, started))
        self.children[tool_use_id] = child
        self.running[agent_id] = tool_use_id
        task = asyncio.get_running_loop().create_task(child.run(hooked_prompt, signal=signal))
        ended = None
        try:
            ended = await asyncio.shield(task)
        except asyncio.CancelledError:
            signal.abort(call_signal.reason or "interrupted by user")
            ended = await task  # the child ends its run (tools interrupted, history valid), then we go
            raise
        finally:
            self.children.pop(tool_use_id, None)
            self.running.pop(agent_id, None)
            signal.detach()
            if ended is not None:
                parent.emit(SubagentFinished(
                    tool_use_id, agent_id, ended.reason, ended.result, tracker.last_tokens, tracker.tool_uses,
                    ended.duration_ms, parent.clock(),
                ))
            else:  # the child's run raised: its start still gets an end (an SDK program waits for one)
                parent.emit(SubagentFinished(
                    tool_use_id, agent_id, "error", "", tracker.last_tokens, tracker.tool_uses,
                    int((parent.clock() - started) * 1000), parent.clock(),
                ))
        return SubagentOutcome(agent_id, ended.reason, ended.detail, ended.result, tracker.last_tokens, tracker.tool_uses, ended.duration_ms)

    def cancel(self, tool_use_id: str, reason: str = "Cancelled by user") -> bool:
        """Cancel a running tool anywhere below this agent (a subagent's call, or a tool inside one)."""
        for child_call, child in list(self.children.items()):
            if child.cancel_tool(tool_use_id):
                return True
            host = child.context.services.get(SERVICE)
            if isinstance(host, SubagentHost) and host.cancel(tool_use_id, reason):
                return True
        return False


    def stop(self, agent_id: str, reason: str) -> bool:
        """Stop one running subagent anywhere below this agent by its id: its Agent call is cancelled
        like a lane the user stops, so the caller's result says it was stopped and the run goes on."""
        tool_use_id = self.running.get(agent_id)
        if tool_use_id is not None:
            return self.parent.cancel_tool(tool_use_id, reason)
        for child in list(self.children.values()):
            host = child.context.services.get(SERVICE)
            if isinstance(host, SubagentHost) and host.stop(agent_id, reason):
                return True
        return False


def install(agent: "Agent", catalog: AgentCatalog | None = None) -> SubagentHost:
    """Let `agent`'s Agent tool start subagents (the factory does this for every session)."""
    catalog = catalog if catalog is not None else AgentCatalog(agent.workspace.root)
    host = SubagentHost(agent, catalog)
    agent.context.services[SERVICE] = host
    tool = agent.registry.find(AGENT_TOOL)
    if tool is not None and hasattr(tool, "catalog"):
        tool.catalog = catalog
    return host


def cancel_anywhere(agent: "Agent", tool_use_id: str) -> bool:
    """Cancel one tool call of the main agent or of any of its running subagents."""
    if agent.cancel_tool(tool_use_id):
        return True
    host = agent.context.services.get(SERVICE)
    return isinstance(host, SubagentHost) and host.cancel(tool_use_id)
