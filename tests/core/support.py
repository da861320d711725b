"""Test tools, the harness type and the history checker shared by core tests."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import psutil
from pydantic import Field

from tui_agent.core.events import Event
from tui_agent.core.history import history_problems
from tui_agent.core.loop import Agent
from tui_agent.providers.scripted import ScriptedModel
from tui_agent.tools.base import Tool, ToolError, ToolInput, ToolOutput


class SleepInput(ToolInput):
    seconds: float = Field(0.0, description="how long")
    text: str = Field("", description="what to return")
    fail: bool = Field(False, description="raise instead")
    crash: bool = Field(False, description="raise an unexpected exception")


class SleepRead(Tool[SleepInput]):
    """A read-only, concurrency-safe tool that sleeps then answers: timing without processes."""

    name = "SleepRead"
    aliases = ("Nap",)
    description = "Sleep, then return text."
    Input = SleepInput

    def is_read_only(self, input: SleepInput) -> bool:
        return True

    async def call(self, input: SleepInput, ctx: Any) -> ToolOutput:
        ctx.progress(f"sleeping {input.seconds}")
        await asyncio.sleep(input.seconds)
        if input.fail:
            raise ToolError(f"failed: {input.text}")
        if input.crash:
            raise RuntimeError("boom")
        return ToolOutput(input.text)


class SleepWrite(SleepRead):
    """The same, but a writer: not concurrency-safe, and it asks permission."""

    name = "SleepWrite"
    aliases = ()

    def is_read_only(self, input: SleepInput) -> bool:
        return False


class CheckedInput(ToolInput):
    path: str = Field(description="a path")
    limit: int = Field(10, description="a limit")


class Checked(Tool[CheckedInput]):
    name = "Checked"
    description = "A tool with a business check."
    Input = CheckedInput

    def is_read_only(self, input: CheckedInput) -> bool:
        return True

    async def validate_input(self, input: CheckedInput, ctx: Any) -> str | None:
        return None if input.path.startswith("/ok") else f"Path {input.path} is not allowed"

    async def call(self, input: CheckedInput, ctx: Any) -> ToolOutput:
        return ToolOutput(f"checked {input.path} {input.limit}")


def sample_tools() -> list[Tool[Any]]:
    return [SleepRead(), SleepWrite(), Checked()]


@dataclass
class Harness:
    agent: Agent
    model: ScriptedModel
    events: list[Event] = field(default_factory=list)

    def of(self, kind: type) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]

    @property
    def requests(self) -> list[dict[str, Any]]:
        return self.model.requests

def assert_history_valid(history: list[dict[str, Any]]) -> None:
    """The API's own rules: roles alternate once merged, every tool_use has exactly one result in the
    very next user message, results come first there and in tool_use order."""
    assert not history_problems(history), history_problems(history)
    merged: list[dict[str, Any]] = []
    for msg in history:
        blocks = [{"type": "text", "text": msg["content"]}] if isinstance(msg["content"], str) else list(msg["content"])
        if merged and merged[-1]["role"] == msg["role"]:
            merged[-1]["content"] += blocks
        else:
            merged.append({"role": msg["role"], "content": blocks})
    assert merged and merged[0]["role"] == "user"
    for i, msg in enumerate(merged):
        if msg["role"] == "assistant":
            assert msg["content"], "an assistant message is never empty"
            ids = [b["id"] for b in msg["content"] if b["type"] == "tool_use"]
            if not ids:
                continue
            assert i + 1 < len(merged), "tool_use without a following user message"
            nxt = merged[i + 1]["content"]
            results = [b for b in nxt if b["type"] == "tool_result"]
            assert [b["tool_use_id"] for b in results] == ids
            assert nxt[: len(results)] == results, "tool_result blocks come first"
        else:
            for b in msg["content"]:
                if b["type"] == "tool_result":
                    prev = merged[i - 1]
                    assert prev["role"] == "assistant"
                    assert b["tool_use_id"] in [x.get("id") for x in prev["content"]]


def count_sleeping(tree: list[psutil.Process]) -> int:
    """How many of `tree` are `sleep` (a process that ended since the listing, e.g. `setsid` before its exec,
    does not count)."""
    count = 0
    for p in tree:
        try:
            count += p.name() == "sleep"
        except psutil.NoSuchProcess:
            pass
    return count


def plain_id(text: str) -> str:
    """A parametrized test's id kept as written: pytest escapes newlines, tabs and backslashes in ids, and an
    escaped id no longer selects its test when passed back on the command line (mutmut runs tests by id)."""
    return text.replace("\n", " NL ").replace("\t", " TAB ").replace("\\", "BS")
