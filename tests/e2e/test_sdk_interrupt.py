"""`interrupt` from a program lands at every await point of a protocol turn: while the model streams,
while the program's can_use_tool or PreToolUse callback is pending, while a tool runs, while a
PostToolUse, UserPromptSubmit or Stop callback is pending. Each time the turn ends with its messages and a
result (`error_during_execution` for an unfinished turn), callbacks still waiting are cancelled (control_cancel_request), the
history stays valid, and the next prompt continues the conversation."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from claude_agent_sdk import ClaudeSDKClient, HookMatcher, PermissionResultAllow, ResultMessage, ToolPermissionContext

from tests.core.support import assert_history_valid
from tests.e2e.sdk_support import Run
from tui_agent.providers.scripted import Reply, Text, ToolUse


@pytest.fixture
def run(tmp_path: Path):
    r = Run(tmp_path, [])
    yield r
    r.stop()


class Pending:
    """A program callback that waits until it is cancelled, and says when it started and how it ended."""

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.cancelled = asyncio.Event()

    def on_first_call(self) -> Any:
        """A hook callback that is pending on its first call and answers `{}` after."""
        calls: list[int] = []

        async def hook(hook_input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> Any:
            calls.append(1)
            return await self.wait() if len(calls) == 1 else {}

        return hook

    async def wait(self) -> Any:
        self.started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.cancelled.set()
            raise


async def interrupt_when(client: ClaudeSDKClient, started: asyncio.Event) -> list[Any]:
    """Interrupt once `started` is set; the messages up to and including the turn's result."""
    messages: list[Any] = []

    async def interrupter() -> None:
        await asyncio.wait_for(started.wait(), 180)
        await client.interrupt()

    task = asyncio.create_task(interrupter())
    async for message in client.receive_messages():
        messages.append(message)
        if isinstance(message, ResultMessage):
            break
    await task
    return messages


async def next_prompt_continues(client: ClaudeSDKClient, run: Run) -> None:
    await client.query("go on")
    messages = [m async for m in client.receive_response()]
    assert messages[-1].subtype == "success" and messages[-1].result == "continued"
    assert_history_valid(run.requests[-1]["messages"])


def script(first: Reply) -> list[Any]:
    return [first, Reply([Text("continued")])]


class TestInterruptLands:
    async def test_while_the_model_streams(self, run):
        run.model._script = script(Reply([Text("a long answer " * 50)], chunk=4, delay=0.05))
        streaming = asyncio.Event()
        async with ClaudeSDKClient(run.options(include_partial_messages=True)) as client:
            await client.query("talk")
            messages: list[Any] = []

            async def interrupter() -> None:
                await asyncio.wait_for(streaming.wait(), 180)
                await client.interrupt()

            task = asyncio.create_task(interrupter())
            async for message in client.receive_messages():
                messages.append(message)
                if type(message).__name__ == "StreamEvent":
                    streaming.set()
                if isinstance(message, ResultMessage):
                    break
            await task
            assert messages[-1].subtype == "error_during_execution"
            await next_prompt_continues(client, run)

    async def test_while_can_use_tool_is_pending(self, run):
        run.model._script = script(Reply([ToolUse("Write", {"file_path": str(run.work / "x.txt"), "content": "x"}, id="w")]))
        pending = Pending()

        async def can_use_tool(name: str, tool_input: dict[str, Any], ctx: ToolPermissionContext) -> Any:
            return await pending.wait()

        async with ClaudeSDKClient(run.options(can_use_tool=can_use_tool)) as client:
            await client.query("write")
            messages = await interrupt_when(client, pending.started)
            assert messages[-1].subtype == "error_during_execution"
            await asyncio.wait_for(pending.cancelled.wait(), 180)
            run.model._script[1:] = [Reply([Text("continued")])]
            await next_prompt_continues(client, run)
        assert not (run.work / "x.txt").exists()

    async def test_while_a_pre_tool_use_callback_is_pending(self, run):
        run.model._script = script(Reply([ToolUse("Read", {"file_path": str(run.work / "README.md")}, id="r")]))
        pending = Pending()

        async def hook(hook_input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> Any:
            return await pending.wait()

        async with ClaudeSDKClient(run.options(hooks={"PreToolUse": [HookMatcher(hooks=[hook])]})) as client:
            await client.query("read")
            messages = await interrupt_when(client, pending.started)
            assert messages[-1].subtype == "error_during_execution"
            await asyncio.wait_for(pending.cancelled.wait(), 180)
            await next_prompt_continues(client, run)

    async def test_while_a_post_tool_use_callback_is_pending(self, run):
        run.model._script = script(Reply([ToolUse("Read", {"file_path": str(run.work / "README.md")}, id="r")]))
        pending = Pending()

        async def hook(hook_input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> Any:
            return await pending.wait()

        async with ClaudeSDKClient(run.options(hooks={"PostToolUse": [HookMatcher(matcher="*", hooks=[hook])]})) as client:
            await client.query("read")
            messages = await interrupt_when(client, pending.started)
            assert messages[-1].subtype == "error_during_execution"
            await asyncio.wait_for(pending.cancelled.wait(), 180)
            await next_prompt_continues(client, run)
        interrupted = run.requests[1]["messages"][2]["content"][0]
        assert interrupted["tool_use_id"] == "r" and interrupted["is_error"]

    async def test_after_permission_was_given_while_the_tool_runs(self, run):
        """The program allowed a shell command; the interrupt lands while it runs: its process is gone."""
        import psutil

        marker = "sleep 27.1828"
        run.model._script = script(Reply([ToolUse("Bash", {"command": f"touch started.txt && {marker}"}, id="sh")]))
        running = asyncio.Event()
        asked: list[str] = []

        def sleeping() -> list[psutil.Process]:
            return [p for p in psutil.process_iter(["cmdline"]) if marker in " ".join(p.info["cmdline"] or [])]

        async def watch() -> None:
            while not sleeping():
                await asyncio.sleep(0.02)
            running.set()

        async def can_use_tool(name: str, tool_input: dict[str, Any], ctx: ToolPermissionContext) -> Any:
            asked.append(name)
            return PermissionResultAllow()

        async with ClaudeSDKClient(run.options(can_use_tool=can_use_tool)) as client:
            watcher = asyncio.create_task(watch())
            await client.query("sleep")
            messages = await interrupt_when(client, running)
            await watcher
            assert messages[-1].subtype == "error_during_execution"
            assert asked == ["Bash"] and not sleeping()
            await next_prompt_continues(client, run)

    async def test_while_a_user_prompt_submit_callback_is_pending(self, run):
        run.model._script = [Reply([Text("continued")])]
        pending = Pending()
        async with ClaudeSDKClient(run.options(hooks={"UserPromptSubmit": [HookMatcher(hooks=[pending.on_first_call()])]})) as client:
            await client.query("first")
            messages = await interrupt_when(client, pending.started)
            assert messages[-1].subtype == "error_during_execution" and messages[-1].num_turns == 0
            await asyncio.wait_for(pending.cancelled.wait(), 180)
            assert run.requests == [], "an interrupted prompt never reaches the model"
            await next_prompt_continues(client, run)

    async def test_while_a_stop_callback_is_pending(self, run):
        run.model._script = [Reply([Text("answered")]), Reply([Text("continued")])]
        pending = Pending()
        async with ClaudeSDKClient(run.options(hooks={"Stop": [HookMatcher(hooks=[pending.on_first_call()])]})) as client:
            await client.query("first")
            messages = await interrupt_when(client, pending.started)
            assert messages[-1].result == "answered", "the turn was over: its own result stands"
            await asyncio.wait_for(pending.cancelled.wait(), 180)
            await next_prompt_continues(client, run)
