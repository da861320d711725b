"""`-p "/export [file]"`: the (resumed) conversation as Markdown without a model request — on stdout
without a file (`tui-agent -c -p /export > notes.md`), written to the file with one. Like `/context`,
a success is a run's start and end events, so every output format (text, json, stream-json) carries it."""

from __future__ import annotations

import re
import time
from typing import Any

from .core.events import LoopEnded, RunStarted

_EXPORT = re.compile(r"^\s*/export(?:\s+(?P<args>.*?))?\s*$", re.S)
NOTHING = "No conversation to export: resume one with --resume or --continue."


def export_command(prompt: str) -> str | None:
    """The file of an `/export [file]` prompt ('' without one); None for other prompts."""
    found = _EXPORT.match(prompt)
    return None if found is None else (found.group("args") or "").strip()


async def export_headless(agent: Any, printer: Any, name: str) -> int:
    from .core.export import conversation_markdown, export_conversation

    started = time.monotonic()
    printer.session_id = agent.session.id
    history = list(agent.history)
    model = agent.model.config.model
    problem = ""
    if not any(m.get("role") == "user" for m in history):
        problem = NOTHING
    elif name:
        try:
            text = f"Conversation exported to: {export_conversation(history, name, agent.workspace.root, model=model)}"
        except OSError as exc:
            problem = f"Failed to export conversation: {exc}"
    else:
        text = conversation_markdown(history, model=model)
    took = int((time.monotonic() - started) * 1000)
    if problem:
        if printer.fmt == "text":
            printer._note(f"Error: {problem}")
        else:
            printer._line({"type": "result", "subtype": "error_during_execution", "is_error": True, "duration_ms": took,
                           "duration_api_ms": 0, "num_turns": 0, "result": problem, "session_id": agent.session.id,
                           "total_cost_usd": agent.totals.cost_usd or 0.0, "usage": agent.totals.as_usage()})
        return 1
    agent.emit(RunStarted(agent.session.id, model, "/export", agent.registry.names, str(agent.workspace.root), agent.demo))
    agent.emit(LoopEnded("completed", "", text, 0, took, 0, agent.totals.cost_usd or 0.0))
    return 0
