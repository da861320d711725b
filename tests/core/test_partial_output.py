"""What a tool printed or reported before it was stopped reaches the model, however it was stopped (issue 26).

A stopped tool has no result of its own; the model gets an is_error "interrupted" result and, with it, the
output so far: Bash's captured output (whole lines and an unfinished last one, what the command prints as
it is stopped included), or the progress any other tool streamed (an MCP tool's progress too). That holds
for ESC of the run, the lane's own cancel, a failing shell sibling, a tool that ignores its cancel and is
ended without it after the kill grace, and a timeout.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any, Callable

import pytest

from tests.core.support import SleepInput, SleepRead, assert_history_valid, sample_tools
from tui_agent.core.events import Event, LoopEnded, ToolFinished, ToolProgress, ToolStarted
from tui_agent.core.mcp import mcp_manager
from tui_agent.core.permission_types import PermissionAnswer
from tui_agent.core.abort import AbortSignal
from tui_agent.core.tool_call import PARTIAL_OUTPUT_KEEP, TrackedTool, output_so_far
from tui_agent.providers.scripted import Reply, Text, ToolUse
from tui_agent.tools.base import ToolOutput
from tui_agent.tools.bash import BashInput, BashTool

PROGRESS_SERVER = Path(__file__).with_name("progress_mcp_server.py")
# A command that prints two lines and an unfinished third, then works for a long time.
PRINTS_THEN_WORKS = "echo one; echo two; printf three; sleep 30"


class Deaf(SleepRead):
    """A tool that reports progress, then ignores every cancel (a blocking library call, a buggy tool)
    until the test releases it."""

    name = "Deaf"
    aliases = ()

    def __init__(self, lines: int = 2) -> None:
        self.lines = lines
        self.release = asyncio.Event()
        self.cancels = 0

    async def call(self, input: SleepInput, ctx: Any) -> ToolOutput:
        for i in range(1, self.lines + 1):
            ctx.progress(f"step {i}")  # progress lines come without their newline
        while True:
            try:
                await self.release.wait()
                ctx.progress("step after release")
                return ToolOutput("released")
            except asyncio.CancelledError:
                self.cancels += 1


class DeafBash(BashTool):
    """Bash whose call ignores its cancel: the command runs on, and the test stops it at the end."""

    name = "DeafBash"

    def __init__(self) -> None:
        self.inner: asyncio.Task[ToolOutput] | None = None

    async def call(self, input: BashInput, ctx: Any) -> ToolOutput:
        self.inner = asyncio.ensure_future(super().call(input, ctx))
        while True:
            try:
                return await asyncio.shield(self.inner)
            except asyncio.CancelledError:
                if self.inner.cancelled():  # the test stopped the command itself
                    raise


def on_event(h: Any, match: Callable[[Event], bool], action: Callable[[], Any]) -> None:
    """Run `action` in the loop's next callback after the first event that matches."""
    loop = asyncio.get_running_loop()
    fired: list[bool] = []

    def emit(event: Event) -> None:
        h.events.append(event)
        if not fired and match(event):
            fired.append(True)
            loop.call_soon(action)

    h.agent.emit = emit


def progress(text: str) -> Callable[[Event], bool]:
    return lambda e: isinstance(e, ToolProgress) and text in e.text


def results(h: Any) -> dict[str, dict[str, Any]]:
    found = {}
    for message in h.agent.history:
        if message["role"] == "user" and isinstance(message["content"], list):
            found.update({b["tool_use_id"]: b for b in message["content"] if b.get("type") == "tool_result"})
    return found


def bash_harness(make_harness: Any, calls: list[ToolUse], *extra: Any) -> Any:
    script = [Reply(calls), Reply([Text("ok")])]
    return make_harness(script, tools=[*sample_tools(), BashTool(), *extra], allowed_tools=["Bash", "DeafBash"])


async def run(h: Any) -> Any:
    # A safety net only: each of these runs ends well within a second or two once it works.
    return await asyncio.wait_for(h.agent.run("go"), 60)


class TestBashStopped:
    async def test_esc_keeps_the_lines_and_the_unfinished_last_one(self, make_harness, tmp_path):
        marker = tmp_path / "printed"
        h = bash_harness(make_harness, [ToolUse("Bash", {"command": f"echo one; echo two; printf three; touch {marker}; sleep 30"}, id="b")])

        async def abort_once_printed() -> None:
            while not marker.exists():  # the state: the command has printed all three
                await asyncio.sleep(0.01)
            h.agent.abort()

        on_event(h, lambda e: isinstance(e, ToolStarted), lambda: asyncio.ensure_future(abort_once_printed()))
        ended = await run(h)
        assert ended.reason == "aborted"
        result = results(h)["b"]
        assert result["is_error"] and result["content"].startswith("Interrupted by user after")
        assert result["content"].endswith("Partial output before it was stopped:\none\ntwo\nthree")
        assert_history_valid(h.agent.history)

    async def test_what_the_command_prints_as_it_is_stopped_is_kept(self, make_harness):
        # A test runner prints its summary when it is told to stop: that is the most useful part.
        command = "trap 'echo summary: 3 passed, stopped; exit 143' TERM; echo started; sleep 30 & wait"
        h = bash_harness(make_harness, [ToolUse("Bash", {"command": command}, id="b")])
        on_event(h, progress("started"), h.agent.abort)
        await run(h)
        content = results(h)["b"]["content"]
        assert content.endswith("started\nsummary: 3 passed, stopped"), content

    async def test_the_lanes_own_cancel_keeps_it(self, make_harness):
        h = bash_harness(make_harness, [ToolUse("Bash", {"command": PRINTS_THEN_WORKS}, id="b")])
        on_event(h, progress("two"), lambda: h.agent.cancel_tool("b"))
        ended = await run(h)
        assert ended.reason == "completed"
        content = results(h)["b"]["content"]
        assert content.startswith("Cancelled by user after") and "Partial output before it was stopped:\none\ntwo" in content

    async def test_a_failing_shell_sibling_keeps_it(self, make_harness):
        h = bash_harness(make_harness, [
            ToolUse("Bash", {"command": "echo one; echo two; sleep 30"}, id="b"),
            ToolUse("Bash", {"command": "cat gate; ls no/such/dir"}, id="failing"),  # read-only: they run side by side
        ])
        gate = h.agent.workspace.root / "gate"
        os.mkfifo(gate)

        def open_the_gate() -> None:  # once `b` has printed, its sibling fails (when its `cat` reads the gate)
            asyncio.ensure_future(asyncio.to_thread(lambda: os.close(os.open(gate, os.O_WRONLY))))

        on_event(h, progress("two"), open_the_gate)
        try:
            await run(h)
        finally:
            os.close(os.open(gate, os.O_RDONLY | os.O_NONBLOCK))  # a writer still waiting for a reader goes on
        content = results(h)["b"]["content"]
        assert content.startswith("Cancelled: parallel shell command")
        assert content.endswith("Partial output before it was stopped:\none\ntwo")

    async def test_a_timeout_keeps_it(self, make_harness):
        h = bash_harness(make_harness, [ToolUse("Bash", {"command": PRINTS_THEN_WORKS, "timeout": 300}, id="b")])
        await run(h)
        result = results(h)["b"]
        assert result["is_error"] and result["content"] == "one\ntwo\nthree\nCommand timed out after 0.3s"

    async def test_a_bash_that_ignores_its_cancel_is_ended_with_its_captured_output(self, make_harness):
        deaf = DeafBash()
        h = bash_harness(make_harness, [ToolUse("DeafBash", {"command": PRINTS_THEN_WORKS}, id="b")], deaf)
        on_event(h, progress("two"), h.agent.abort)
        try:
            ended = await run(h)
            assert ended.reason == "aborted"
            assert [e.status for e in h.of(ToolFinished)] == ["cancelled"]
            # Bash's own capture, lines apart and the unfinished one too (not the live view's lines glued).
            assert results(h)["b"]["content"].endswith("Partial output before it was stopped:\none\ntwo\nthree")
        finally:
            assert deaf.inner is not None
            deaf.inner.cancel()  # the command ends now (its process group killed)
            await asyncio.gather(deaf.inner, return_exceptions=True)
        assert not h.agent.context.services.get("partial_output"), "nothing is kept for a call that already has its result"
        assert_history_valid(h.agent.history)


class TestToolsThatIgnoreTheirCancel:
    async def test_esc_ends_it_after_the_grace_with_its_progress_as_lines(self, make_harness):
        deaf = Deaf()
        h = make_harness([Reply([ToolUse("Deaf", {}, id="d")])], tools=[*sample_tools(), deaf])
        on_event(h, progress("step 2"), h.agent.abort)
        try:
            ended = await run(h)
        finally:
            deaf.release.set()
        assert ended.reason == "aborted" and deaf.cancels >= 1
        content = results(h)["d"]["content"]
        assert content.startswith("Interrupted by user after")
        assert content.endswith("Partial output before it was stopped:\nstep 1\nstep 2"), content
        assert_history_valid(h.agent.history)

    async def test_the_lanes_own_cancel_ends_it_after_the_grace_and_the_run_goes_on(self, make_harness):
        deaf = Deaf()
        h = make_harness([Reply([ToolUse("Deaf", {}, id="d")]), Reply([Text("ok")])], tools=[*sample_tools(), deaf])
        on_event(h, progress("step 2"), lambda: h.agent.cancel_tool("d"))
        try:
            ended = await run(h)
        finally:
            deaf.release.set()
        assert ended.reason == "completed" and ended.result == "ok"
        assert [e.status for e in h.of(ToolFinished)] == ["cancelled"]
        assert results(h)["d"]["content"].endswith("Partial output before it was stopped:\nstep 1\nstep 2")

    async def test_long_progress_keeps_its_latest_part_and_says_what_was_left_out(self, make_harness):
        deaf = Deaf(lines=5_000)
        h = make_harness([Reply([ToolUse("Deaf", {}, id="d")])], tools=[*sample_tools(), deaf])
        on_event(h, progress("step 5000"), h.agent.abort)
        try:
            await run(h)
        finally:
            deaf.release.set()
        content = results(h)["d"]["content"]
        assert content.endswith("\nstep 4999\nstep 5000"), "the latest output, not the first"
        total = sum(len(f"step {i}\n") for i in range(1, 5_001))
        assert f"[{total - PARTIAL_OUTPUT_KEEP:,} earlier characters not shown]" in content
        assert len(content) < PARTIAL_OUTPUT_KEEP + 300

    async def test_a_late_answer_after_it_was_ended_changes_nothing(self, make_harness):
        deaf = Deaf()
        h = make_harness([Reply([ToolUse("Deaf", {}, id="d")])], tools=[*sample_tools(), deaf])
        on_event(h, progress("step 2"), h.agent.abort)
        try:
            await run(h)
        finally:
            deaf.release.set()  # it answers now, long after its result was given
        for _ in range(5):
            await asyncio.sleep(0)
        assert [e.id for e in h.of(ToolFinished)] == ["d"], "one final state per tool"
        assert isinstance(h.events[-1], LoopEnded), "no progress of a call that has its final state"
        assert "released" not in results(h)["d"]["content"]


def test_a_chatty_tools_progress_is_kept_in_bounded_memory():
    tracked = TrackedTool(0, {"id": "t", "name": "T"}, None, None, False, AbortSignal())
    for i in range(100_000):
        tracked.keep_progress(f"line {i}")
    assert tracked.partial_len <= 2 * PARTIAL_OUTPUT_KEEP and sum(map(len, tracked.partial)) == tracked.partial_len
    assert output_so_far(tracked, {}).endswith("line 99998\nline 99999")


async def allow_all(request: Any) -> PermissionAnswer:
    return PermissionAnswer("allow_once")


@pytest.fixture
def mcp_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("MCP_TIMEOUT", "MCP_TOOL_TIMEOUT", "ENABLE_TOOL_SEARCH", "CLAUDE_CONFIG_DIR"):
        monkeypatch.delenv(name, raising=False)


def progress_server() -> list[str]:
    import json

    from tests.warm_start import python_script_command

    command, *rest = python_script_command(PROGRESS_SERVER)
    return [json.dumps({"mcpServers": {"prog": {"command": command, "args": rest}}})]


class TestMcpProgress:
    async def test_esc_keeps_the_progress_an_mcp_tool_reported(self, make_harness, mcp_env):
        h = make_harness([Reply([ToolUse("mcp__prog__crawl", {"pages": 2}, id="m")])], ask=allow_all, mcp_config=progress_server())
        await mcp_manager(h.agent).wait_all()
        on_event(h, progress("page 2 read"), h.agent.abort)
        try:
            ended = await run(h)
        finally:
            await h.agent.close()
        assert ended.reason == "aborted"
        assert results(h)["m"]["content"].endswith("Partial output before it was stopped:\npage 1 read\npage 2 read")

    async def test_an_mcp_tool_timeout_keeps_its_progress(self, make_harness, mcp_env, monkeypatch):
        monkeypatch.setenv("MCP_TOOL_TIMEOUT", "1000")
        h = make_harness([Reply([ToolUse("mcp__prog__crawl", {"pages": 2}, id="m")]), Reply([Text("ok")])], ask=allow_all, mcp_config=progress_server())
        await mcp_manager(h.agent).wait_all()
        try:
            ended = await run(h)
        finally:
            await h.agent.close()
        assert ended.reason == "completed"
        result = results(h)["m"]
        assert result["is_error"] and "timed out" in result["content"]
        assert result["content"].endswith("Output before it timed out:\npage 1 read\npage 2 read"), result["content"]
