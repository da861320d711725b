"""Headless mode (`tui-agent -p`): the same core, printed for scripts as text, json or stream-json.

Output follows `claude -p` so scripts written for it work unchanged. SIGINT, SIGTERM and SIGHUP fire
the same abort as ESC: every tool process is stopped, the output and the transcript end valid (the
last output line is a `result`, the transcript's a `tui-agent-run`), then the process exits 130
(SIGINT) or 143 (SIGTERM/SIGHUP). A second SIGINT during that cleanup kills what is left and exits at once.
A reader that closes stdout (`| head -1`) stops the run the same way, quietly, and the exit status is 0
(output_stream.py).
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from typing import IO, Any

from .config import AgentSettings, OutputFormat
from .core.events import (
    Event,
    LoopEnded,
    Notice,
    Retrying,
    RunStarted,
    SubagentEvent,
    SubagentFinished,
    SubagentStarted,
    ToolFinished,
    ToolStarted,
)
from .core.context.report import context_command, is_context_command
from .headless_context import COMPACTION_EVENTS, compact_command, compact_result, compaction_note
from .headless_export import export_command, export_headless
from .output_stream import OUTPUT_CLOSED, OutputStream
from .tools.os_names import json_line

SUBTYPES = {
    "completed": "success",
    "max_turns": "error_max_turns",
    "max_budget_usd": "error_max_budget_usd",
    "max_structured_output_retries": "error_max_structured_output_retries",
}
SIGNAL_EXIT = {signal.SIGINT: 130, signal.SIGTERM: 143, signal.SIGHUP: 143}


def result_object(ended: LoopEnded, session_id: str) -> dict[str, Any]:
    is_error = ended.is_error
    return {
        "type": "result",
        "subtype": SUBTYPES.get(ended.reason, "error_during_execution"),
        "is_error": is_error,
        "reason": ended.reason,
        "duration_ms": ended.duration_ms,
        "duration_api_ms": ended.duration_api_ms,
        "num_turns": ended.num_turns,
        "result": ended.result or (ended.detail if is_error else ""),
        "detail": ended.detail,
        "session_id": session_id,
        "total_cost_usd": ended.total_cost_usd,
        "usage": ended.usage,
        "modelUsage": ended.model_usage,
        "permission_denials": list(ended.permission_denials),
        # --json-schema: Claude Code writes the key only when the model gave a valid value
        **({"structured_output": ended.structured_output} if ended.structured_output is not None else {}),
    }


class HeadlessPrinter:
    """Consumes the core's events and prints them in the chosen format."""

    def __init__(self, fmt: OutputFormat, verbose: bool, out: IO[str] = sys.stdout, err: IO[str] = sys.stderr, *, partial: bool = False) -> None:
        self.fmt = fmt
        self.verbose = verbose
        self.partial = partial and fmt == "stream-json"
        """--include-partial-messages: a `stream_event` line per stream event, as Claude Code prints them."""
        self.out = OutputStream(out)
        """stdout: a reader that goes away (`| head -1`) stops the run (run_headless sets `on_closed`)."""
        self.err = OutputStream(err)
        self.session_id = ""
        self.permission_mode = "default"
        self.mcp_servers: list[dict[str, str]] = []
        self.ended: LoopEnded | None = None
        self.mapper: Any = None
        """stream-json: the SDK protocol's MessageMapper writes every line, so `claude -p --output-format
        stream-json` readers (the SDK's parser among them) get the same messages as a program driving us."""
        if fmt == "stream-json":
            from .protocol.mapping import MessageMapper  # it imports this module: not at the top

            self.mapper = MessageMapper("", partial_messages=self.partial, permission_mode=lambda: self.permission_mode,
                                        api_key_source="ANTHROPIC_API_KEY" if os.environ.get("ANTHROPIC_API_KEY") else "none")

    def _line(self, obj: dict[str, Any]) -> None:
        self.out.write(json_line(obj) + "\n")  # a folder name that is not UTF-8 stays escaped

    def _note(self, text: str) -> None:
        self.err.write(text + "\n")

    def __call__(self, event: Event) -> None:
        if self.mapper is not None:
            self._stream_json(event)
            return
        # text and json: the answer (or the result object) at the end, notes on stderr
        if isinstance(event, (SubagentEvent, SubagentStarted, SubagentFinished)):
            return  # a subagent's: its Agent call's result is what counts here
        if isinstance(event, COMPACTION_EVENTS):
            note = compaction_note(event) if self.fmt == "text" or self.verbose else None
            if note:
                self._note(note)
            return
        if isinstance(event, RunStarted):
            self.session_id = event.session_id
            if event.demo and self.fmt == "text":
                self._note("[demo model: no ANTHROPIC_API_KEY — scripted replies, real tools]")
        elif isinstance(event, Retrying):
            self._note(f"API error ({event.why}); retrying in {event.delay:.1f}s (attempt {event.attempt})")
        elif isinstance(event, Notice):
            self._note(f"[{event.level}] {event.text}")
        elif isinstance(event, ToolStarted) and self.verbose and self.fmt == "text":
            self._note(f"→ {event.name} started (lane {event.lane})")
        elif isinstance(event, ToolFinished) and self.verbose and self.fmt == "text":
            self._note(f"← {event.name} {event.status} in {event.duration:.2f}s")
        elif isinstance(event, LoopEnded):
            self.ended = event
            if self.fmt == "text":
                if event.is_error:
                    if event.result:
                        self.out.write(event.result + "\n")
                    self._note(f"Error ({event.reason}): {event.detail or event.result}")
                else:
                    self.out.write(event.result + "\n")
            else:
                self._line(result_object(event, self.session_id))

    def _stream_json(self, event: Event) -> None:
        if isinstance(event, RunStarted):
            self.session_id = event.session_id
            self.mapper.mcp_servers = self.mcp_servers
        elif isinstance(event, LoopEnded):
            self.ended = event
        for out in self.mapper.map(event):
            if isinstance(out, dict):
                self._line(out)
            elif self.verbose or isinstance(event, Notice):  # notices always; retries with --verbose
                self._note(out)
        if self.verbose and isinstance(event, COMPACTION_EVENTS) and (note := compaction_note(event)):
            self._note(note)


async def start_mcp_servers(agent: Any, printer: HeadlessPrinter, tasks: list[asyncio.Task[Any]]) -> bool:
    """Headless cannot ask: start the allowed servers and wait (up to MCP_TIMEOUT each) so the first
    request has their tools; name each project server it skipped. False when a signal stopped the wait."""
    from .core.mcp import mcp_manager

    manager = mcp_manager(agent)
    if manager is None:
        return True
    for line in manager.skipped_lines():
        printer._note(line)
    tasks.append(asyncio.get_running_loop().create_task(manager.wait_all()))
    try:
        await tasks[0]
    except asyncio.CancelledError:
        return False
    printer.mcp_servers = [s.for_init() for s in manager.statuses()]
    return True


def kill_everything_now() -> None:
    """Second Ctrl+C: kill every process we started, at once, and go."""
    from .tools.processes import kill_all_now

    kill_all_now()


async def run_headless(settings: AgentSettings, prompt: str, fmt: OutputFormat, verbose: bool, opened: Any = None, *, partial: bool = False,
                       json_schema: dict[str, Any] | None = None) -> int:
    from .core.mentions import run_prompt
    from .factory import build_agent

    printer = HeadlessPrinter(fmt, verbose, partial=partial)

    agent = build_agent(settings, emit=printer, ask=None, on_notice=lambda level, text: printer(Notice.of(level, text)), opened=opened)
    if json_schema is not None:  # --json-schema: the StructuredOutput tool (core/structured_output.py)
        from .core.structured_output import install_structured_output

        install_structured_output(agent, json_schema)
    printer.permission_mode = getattr(agent.policy, "mode", "default")
    if printer.mapper is not None:  # stream-json's init names the output style in force
        from .core.output_styles import current_style_name

        printer.mapper.output_style = lambda: current_style_name(agent)
    loop = asyncio.get_running_loop()
    received: list[int] = []
    mcp_start: list[asyncio.Task[Any]] = []

    def on_signal(signum: int) -> None:
        if received and signum == signal.SIGINT:
            kill_everything_now()
            os._exit(SIGNAL_EXIT.get(received[0], 130))
        if not received:
            received.append(signum)
            for task in mcp_start:
                task.cancel()
            agent.abort(f"interrupted by {signal.Signals(signum).name}" if signum != signal.SIGINT else "interrupted by user")

    def on_output_closed() -> None:  # `| head -1` has its line: stop as SIGPIPE would, but end valid
        for task in mcp_start:
            task.cancel()
        loop.call_soon(agent.abort, OUTPUT_CLOSED)  # not inside the event being printed

    printer.out.on_closed = on_output_closed
    for signum in SIGNAL_EXIT:
        loop.add_signal_handler(signum, on_signal, signum)
    try:
        if not await start_mcp_servers(agent, printer, mcp_start):
            return SIGNAL_EXIT[received[0]] if received else 0
        instructions = compact_command(prompt)
        if instructions is not None:  # `-p "/compact [instructions]"`: compact the (resumed) session
            code = await compact_headless(agent, printer, instructions)
        elif is_context_command(prompt):  # `-p "/context"`: the breakdown, no model request
            code = 1 if context_command(agent).is_error else 0
        elif (export_to := export_command(prompt)) is not None:  # `-p "/export [file]"`: no model request either
            code = await export_headless(agent, printer, export_to)
        else:
            ended = await run_prompt(agent, prompt)
            code = 1 if ended.is_error else 0
    finally:
        for signum in SIGNAL_EXIT:
            loop.remove_signal_handler(signum)
        await agent.close()
    if received:
        return SIGNAL_EXIT[received[0]]
    return 0 if printer.out.closed else code


async def compact_headless(agent: Any, printer: HeadlessPrinter, instructions: str) -> int:
    """`/compact` as the prompt: the result line says whether the conversation was compacted."""
    printer.session_id = agent.session.id
    finished = await agent.compact(instructions)
    ok = finished.outcome == "compacted"
    result = compact_result(finished, agent.session.id, agent.totals)
    if printer.fmt == "text":
        if not ok:
            printer._note(f"Error: {finished.detail}")
    else:
        printer._line(result)
    return 0 if ok else 1
