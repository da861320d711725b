"""The program's side of subagents: `initialize.agents` joins the session's catalog; `stop_task` stops a task.

- Agents: each definition the SDK sends becomes a subagent type of this session (over a file of the
  same name); a definition that cannot be used, and fields tui-agent does not act on, are named once on
  stderr. The `initialize` answer and the `init` message list the types as Claude Code does.
- `stop_task`: the task id is a subagent's (`task_started` with `task_type: "local_agent"`) or a
  background shell's (`local_bash`). A subagent's Agent call is stopped like a lane the user stops (its
  result tells the model it was stopped; the turn goes on); a shell's process group is killed and its
  end lines are written. Claude Code answers success even for a task it does not know (one that just
  ended, typically), and so do we, with a line on stderr.
- A background shell that ends by itself gets its end lines too (completed or failed).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Callable

from ..core.agents.from_options import definitions_from_options
from ..core.agents.runner import SERVICE, SubagentHost
from ..tools.background import SERVICE_KEY as SHELLS

if TYPE_CHECKING:
    from ..core.agents.definitions import AgentCatalog
    from ..core.loop import Agent
    from .channel import Channel
    from .mapping import MessageMapper

STOPPED_REASON = "Stopped by the program (stop_task)"


def catalog_of(agent: "Agent") -> "AgentCatalog | None":
    host = agent.context.services.get(SERVICE)
    return host.catalog if isinstance(host, SubagentHost) else None


def agent_listing(agent: "Agent") -> list[dict[str, str]]:
    """The `agents` of the `initialize` answer: name, description and (when not inherited) model."""
    catalog = catalog_of(agent)
    if catalog is None:
        return []
    return [{"name": d.name, "description": d.description, **({"model": d.model} if d.model != "inherit" else {})}
            for d in catalog.definitions()]


def join_program_agents(agent: "Agent", agents: Any, mapper: "MessageMapper", note: Callable[[str], None]) -> None:
    """`initialize.agents` into the session's catalog; the `init` message lists every type afterwards."""
    catalog = catalog_of(agent)
    if agents is not None:
        found = definitions_from_options(agents)
        for problem in found.problems:
            note(f"tui-agent: initialize: {problem}; this agent is not available")
        if found.ignored:
            note(f"tui-agent: initialize: agent fields not supported, ignored: {', '.join(found.ignored)}")
        if catalog is None:
            if found.definitions:
                note("tui-agent: initialize: subagents are not available in this session; the program's agents are ignored")
        else:
            catalog.add_program_agents(found.definitions)
    mapper.agents = [d.name for d in catalog.definitions()] if catalog is not None else []


_running: set[asyncio.Task[None]] = set()  # a task must be referenced until it ends


def _spawn(coro: Any) -> None:
    task = asyncio.get_running_loop().create_task(coro)
    _running.add(task)
    task.add_done_callback(_running.discard)


def watch_background_shells(agent: "Agent", mapper: "MessageMapper", channel: "Channel") -> None:
    """A background shell that ends by itself gets its end lines (completed or failed), as in Claude Code;
    one stopped by stop_task or KillShell has them from there."""

    async def watch(shell_id: str) -> None:
        shells = agent.context.services.get(SHELLS)
        shell = shells.get(shell_id) if shells is not None else None
        if shell is None:
            return
        await shell.shell.wait_exit()
        if not shell.killed:
            for line in mapper.tasks.shell_ended(shell_id, "completed" if shell.shell.returncode == 0 else "failed", mapper.session_id):
                channel.send(line)

    mapper.tasks.on_shell_started = lambda shell_id: _spawn(watch(shell_id))


def serve_stop_task(agent: "Agent", mapper: "MessageMapper", channel: "Channel", request_id: str, task_id: str) -> None:
    """Answer a `stop_task` request (a shell is killed asynchronously; the answer follows its end)."""
    _spawn(_stop(agent, mapper, channel, request_id, task_id))


async def _stop(agent: "Agent", mapper: "MessageMapper", channel: "Channel", request_id: str, task_id: str) -> None:
    try:
        host = agent.context.services.get(SERVICE)
        if isinstance(host, SubagentHost) and host.stop(task_id, STOPPED_REASON):
            channel.respond(request_id)  # its task_notification follows when the subagent has ended
            return
        shells = agent.context.services.get(SHELLS)
        shell = shells.get(task_id) if shells is not None else None
        if shell is not None and shell.status == "running":
            await shell.kill()
            for line in mapper.tasks.shell_ended(task_id, "stopped", mapper.session_id):
                channel.send(line)
            channel.respond(request_id)
            return
        channel.note(f"tui-agent: stop_task: no running task {task_id!r} (finished already, or never started); nothing to stop")
        channel.respond(request_id)
    except Exception as exc:  # the session must outlive a stop that failed
        channel.note(f"tui-agent: stop_task {task_id!r} failed: {type(exc).__name__}: {exc}")
        channel.respond_error(request_id, f"stop_task {task_id} failed: {exc}")
