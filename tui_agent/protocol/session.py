"""One protocol session: a reader task beside the agent, prompts run one at a time in one conversation.

The reader answers control requests at once (also while a turn runs: `interrupt` must not wait for
it), hands the program's answers to the requests we sent, and queues prompts; the runner takes each
prompt in turn and writes one `result` for it. When stdin closes and the queue is done, the session
ends: exit 0, or 1 when the last result was an error. SIGINT/SIGTERM/SIGHUP abort the running turn
(its `result` is still written) and end the session. A program that stops reading stdout ends it too: the
running turn is aborted (its tools killed, the transcript valid), and the exit status is 0.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..config import AgentSettings
from ..core.commands import commands_info
from ..core.events import Event, LoopEnded, Notice
from ..core.permission_types import PERMISSION_MODES
from ..core.structured_output import install_structured_output
from ..headless import SIGNAL_EXIT
from ..headless_context import compact_command, compact_result
from ..output_stream import OUTPUT_CLOSED
from .agents import agent_listing, join_program_agents, serve_stop_task, watch_background_shells
from .asker import ProgramAsker
from .channel import Channel
from .flags import unsupported_flags
from .init_fields import InitializeFields
from ..core.hook_events import dispatcher_of
from ..core.output_styles import current_style_name, style_names
from .hooks import ProgramHooks
from .mapping import MessageMapper
from .mcp_control import MCP_SUBTYPES, McpControl
from .stdin import stdin_lines
from .wire import (
    ControlCancelLine,
    ControlRequestLine,
    ControlResponseLine,
    InitializeRequest,
    InterruptRequest,
    KeepAliveLine,
    LineError,
    OtherRequest,
    SetModelRequest,
    StopTaskRequest,
    SetPermissionModeRequest,
    UserLine,
    parse_line,
    parse_request,
)

Prompt = str | list[dict[str, Any]]


@dataclass(frozen=True, slots=True)
class ProtocolOptions:
    ask_program: bool = False
    """--permission-prompt-tool stdio: asks go to the program as can_use_tool requests."""
    partial_messages: bool = False
    """--include-partial-messages: stream_event lines as text arrives."""
    replay_user_messages: bool = False
    """--replay-user-messages: each prompt echoed with its transcript uuid (what `rewind_files` takes)."""
    unsupported: tuple[str, ...] = field(default_factory=tuple)
    """Flags given that tui-agent accepts but does not act on (named once on stderr)."""
    json_schema: dict[str, Any] | None = None
    """--json-schema, parsed and checked (core/structured_output.py)."""

    @classmethod
    def from_args(cls, args: argparse.Namespace, json_schema: dict[str, Any] | None = None) -> "ProtocolOptions":
        return cls(
            json_schema=json_schema,
            ask_program=getattr(args, "permission_prompt_tool", None) == "stdio",
            partial_messages=bool(getattr(args, "include_partial_messages", False)),
            replay_user_messages=bool(getattr(args, "replay_user_messages", False)),
            unsupported=tuple(unsupported_flags(args)),
        )


class ProtocolSession:
    def __init__(self, settings: AgentSettings, options: ProtocolOptions, channel: Channel, scripted: Any = None, opened: Any = None) -> None:
        from ..factory import build_agent

        self.channel = channel
        self.options = options
        self._prompts: asyncio.Queue[Prompt | None] = asyncio.Queue()
        # The mapper exists before the agent: building it may already report (a malformed settings file).
        self.mapper = MessageMapper("", partial_messages=options.partial_messages, permission_mode=lambda: self.policy.mode,
                                    api_key_source="ANTHROPIC_API_KEY" if settings.api_key else "none")
        asker = ProgramAsker(channel, lambda: self.policy, self._abort, channel.note) if options.ask_program else None
        self.agent = build_agent(settings, emit=self.on_event, ask=asker, on_notice=lambda level, text: self.on_event(Notice.of(level, text)), scripted=scripted, opened=opened)
        self.policy = self.agent.policy  # the engine: modes and rules live here
        self.mapper.session_id = self.agent.session.id
        self.mapper.output_style = lambda: current_style_name(self.agent)
        watch_background_shells(self.agent, self.mapper, channel)  # their task_notification when they end
        self.default_model = self.agent.model.config.model
        # The program's hook callbacks: one more source of the session's dispatcher (core/hook_events.py).
        self.hooks = ProgramHooks(channel, channel.note)
        dispatcher = dispatcher_of(self.agent.context.services)
        if dispatcher is not None:
            dispatcher.add_source(self.hooks)
            dispatcher.notify_asks = True  # a program hears Notification when an ask waits for it
        install_structured_output(self.agent, options.json_schema)
        self.init_fields = InitializeFields(channel.note)
        from .rewind import Rewind, sdk_checkpointing

        self.rewind = Rewind(self.agent, channel.send, replay=options.replay_user_messages, enabled=sdk_checkpointing())
        from ..core.mcp import mcp_manager

        self.mcp_control = McpControl(channel, lambda: mcp_manager(self.agent), self.mapper)

    # ----- output -------------------------------------------------------------------------------
    def on_event(self, event: Event) -> None:
        self._write(self.mapper.map(event))

    def _write(self, outs: list[Any]) -> None:
        for out in outs:
            if isinstance(out, str):
                self.channel.note(out)
            else:
                self.channel.send(out)

    # ----- the session ----------------------------------------------------------------------------
    async def run(self) -> int:
        for flag in self.options.unsupported:
            self.channel.note(f"tui-agent: {flag} is accepted for compatibility but has no effect")
        loop = asyncio.get_running_loop()
        received: list[int] = []

        def on_signal(signum: int) -> None:
            if received:
                from ..headless import kill_everything_now

                kill_everything_now()
                os._exit(SIGNAL_EXIT.get(received[0], 130))
            received.append(signum)
            mcp.cancel()
            self._prompts.put_nowait(None)
            self._abort("interrupted by user" if signum == signal.SIGINT else f"interrupted by {signal.Signals(signum).name}")

        def on_output_closed() -> None:
            mcp.cancel()
            self._prompts.put_nowait(None)
            loop.call_soon(self._abort, OUTPUT_CLOSED)  # not inside the event being written

        self.channel.on_output_closed = on_output_closed
        for signum in SIGNAL_EXIT:
            loop.add_signal_handler(signum, on_signal, signum)
        mcp = loop.create_task(self._start_mcp_servers())  # beside the reader: `initialize` is answered meanwhile
        reader = loop.create_task(self._read())
        last_error = False
        try:
            while (prompt := await self._prompts.get()) is not None and not received and not self.channel.output_closed:
                if not mcp.done():
                    await asyncio.gather(mcp, return_exceptions=True)  # the first request has their tools
                    if received or self.channel.output_closed:
                        break
                instructions = compact_command(prompt) if isinstance(prompt, str) else None
                if instructions is not None:
                    last_error = await self._compact(instructions)
                else:
                    last_error = (await self._run_prompt(prompt)).is_error
        finally:
            for signum in SIGNAL_EXIT:
                loop.remove_signal_handler(signum)
            reader.cancel()
            mcp.cancel()
            await asyncio.gather(reader, mcp, return_exceptions=True)
            await self.mcp_control.close()
            await self.agent.close()
        if received:
            return SIGNAL_EXIT[received[0]]
        return 0 if self.channel.output_closed or not last_error else 1

    async def _start_mcp_servers(self) -> None:
        """As in `-p`: no one is asked, so the servers the user's own settings, `--mcp-config` (the SDK's
        `mcp_servers`) or flags approved start, each waited for up to its time-out; a project server
        nobody approved is named and skipped."""
        from ..core.mcp import mcp_manager

        manager = mcp_manager(self.agent)
        if manager is None:
            return
        from .sdk_mcp import ProgramMcpLink

        manager.serve_program_servers(ProgramMcpLink(self.channel, self.channel.note))  # the SDK's "sdk" servers
        for line in manager.skipped_lines():
            self.channel.note(line)
        await manager.wait_all()
        self.mapper.mcp_servers = [s.for_init() for s in manager.statuses()]

    def _abort(self, reason: str) -> None:
        self.agent.abort(reason)

    # ----- one prompt ---------------------------------------------------------------------------
    async def _run_prompt(self, prompt: Prompt) -> LoopEnded:
        """The prompt's turn and its one result (written as the run ends). Its UserPromptSubmit and Stop
        hooks run inside the run (core/hook_events.py), as in -p and the app."""
        from ..core.commands.prompt import run_with_commands

        return await run_with_commands(self.agent, prompt, mentions=False)  # `/greet world`, the skills listing

    async def _compact(self, instructions: str) -> bool:
        """`/compact [instructions]` as a prompt (as Claude Code takes it from an SDK program): the
        compaction's status and boundary lines, then one result. Returns whether it failed."""
        self.mapper.session_id = self.mapper.session_id or self.agent.session.id
        finished = await self.agent.compact(instructions)
        self._write([compact_result(finished, self.agent.session.id, self.agent.totals)])
        return finished.outcome != "compacted"

    # ----- input --------------------------------------------------------------------------------
    async def _read(self) -> None:
        number = 0
        try:
            async for text in stdin_lines():
                number += 1
                if text.strip():
                    self._take(text, number)
        finally:
            self.channel.close("stdin was closed before the program answered")
            self._prompts.put_nowait(None)

    def _take(self, text: str, number: int) -> None:
        """One line: a bad one is reported (a control_response error when it has a request id, always
        a stderr line) and the session goes on."""
        try:
            line = parse_line(text)
            if isinstance(line, UserLine):
                self._prompts.put_nowait(line.message.content)
            elif isinstance(line, ControlRequestLine):
                self._serve(line)
            elif isinstance(line, ControlResponseLine):
                if not self.channel.resolve(line.response):
                    self.channel.note(f"tui-agent: stdin line {number}: control_response for {line.response.request_id!r}, which nothing waits for; ignored")
            elif isinstance(line, (KeepAliveLine, ControlCancelLine)):
                pass
        except LineError as exc:
            self.channel.note(f"tui-agent: stdin line {number}: {exc}; ignored")
            if exc.request_id:
                self.channel.respond_error(exc.request_id, str(exc))

    def _serve(self, line: ControlRequestLine) -> None:
        request = parse_request(line)
        rid = line.request_id
        if isinstance(request, InitializeRequest):
            self.init_fields.check(line.request)  # the fields tui-agent does not act on, named once
            self.hooks.register(request.hooks)
            join_program_agents(self.agent, request.agents, self.mapper, self.channel.note)
            self.channel.respond(rid, self._initialize_response())
        elif isinstance(request, InterruptRequest):
            self._abort("interrupted by user")
            self.channel.respond(rid)
        elif isinstance(request, SetPermissionModeRequest):
            if request.mode not in PERMISSION_MODES:
                self.channel.respond_error(rid, f"Invalid permission mode {request.mode!r}: choose one of {', '.join(PERMISSION_MODES)}")
                return
            self.policy.mode = request.mode
            self.channel.respond(rid, {"mode": request.mode})
            self.channel.send({"type": "system", "subtype": "status", "status": None, "permissionMode": request.mode,
                               "session_id": self.agent.session.id})
        elif isinstance(request, SetModelRequest):
            self.agent.model.config.model = request.model or self.default_model
            self.channel.respond(rid)
        elif isinstance(request, StopTaskRequest):
            serve_stop_task(self.agent, self.mapper, self.channel, rid, request.task_id)
        elif isinstance(request, OtherRequest) and request.subtype == "get_context_usage":
            from ..core.context.breakdown import agent_breakdown  # /context's data, in the SDK's shape

            self.channel.respond(rid, agent_breakdown(self.agent).as_sdk())
        elif isinstance(request, OtherRequest) and request.subtype == "rewind_files":
            answer, error = self.rewind.answer(line.request)
            if error is None:
                self.channel.respond(rid, answer)
            else:
                self.channel.respond_error(rid, error)
        elif isinstance(request, OtherRequest) and request.subtype in MCP_SUBTYPES:
            self.mcp_control.serve(rid, line.request)
        elif isinstance(request, OtherRequest):
            self.channel.respond_error(rid, f"Unsupported control request subtype: {request.subtype}")

    def _initialize_response(self) -> dict[str, Any]:
        model = self.agent.model.config.model
        return {
            "commands": commands_info(Path(self.agent.workspace.root)),  # custom commands and skills (core/commands)
            "agents": agent_listing(self.agent),
            "output_style": current_style_name(self.agent),
            "available_output_styles": style_names(self.agent.policy),
            "models": [{"value": model, "displayName": model, "description": "the model this session started with"}],
            "account": {"apiKeySource": self.mapper.api_key_source},
            "pid": os.getpid(),
        }


async def run_protocol(settings: AgentSettings, options: ProtocolOptions, opened: Any = None) -> int:
    """`tui-agent --input-format stream-json --output-format stream-json`: serve one program until stdin closes.
    `opened` is the session --resume/--continue/--fork-session already opened (as for -p)."""
    return await ProtocolSession(settings, options, Channel(), opened=opened).run()
