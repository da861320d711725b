"""MCP tools in the loop, against a real MCP server subprocess (stdio and streamable HTTP)."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import time

import psutil
import pytest

from tests.core.support import assert_history_valid
from tests.mcp.conftest import SERVER, mcp_dynamic, stdio_entry
from tui_agent.core.events import ToolFinished, ToolStarted
from tui_agent.core.mcp import mcp_manager
from tui_agent.core.permission_types import PermissionAnswer
from tui_agent.providers.scripted import Reply, Text, ToolUse


async def allow_all(request):
    return PermissionAnswer("allow_once")


def results_of(history, index=-1):
    """The tool_result blocks of a user message (by default the last one that has any)."""
    with_results = [m for m in history if m["role"] == "user" and isinstance(m["content"], list) and any(b.get("type") == "tool_result" for b in m["content"])]
    return [b for b in with_results[index]["content"] if b.get("type") == "tool_result"]


async def started(h):
    manager = mcp_manager(h.agent)
    await manager.wait_all()
    return manager


class TestCalls:
    async def test_text_structured_error_and_image_results_come_back_as_claude_code_shapes_them(self, make_agent):
        h = make_agent([
            Reply([
                ToolUse("mcp__testsrv__echo", {"text": "hi"}),
                ToolUse("mcp__testsrv__add", {"a": 2, "b": 3}),
                ToolUse("mcp__testsrv__fail", {"message": "bad input"}),
                ToolUse("mcp__testsrv__picture", {}),
            ]),
            Reply([Text("done")]),
        ], ask=allow_all, mcp_config=mcp_dynamic(("testsrv", stdio_entry())))
        manager = await started(h)
        try:
            ended = await h.agent.run("use the server")
        finally:
            await h.agent.close()
        assert ended.reason == "completed"
        assert manager.statuses()[0].status == "connected" and manager.statuses()[0].tools == 8
        echo, add, fail, picture = results_of(h.agent.history)
        assert echo["content"] == '{"result":"echo: hi"}'
        assert add["content"] == '{"sum":5,"operands":[2,3]}'
        assert fail["is_error"] is True and "it failed: bad input" in fail["content"]
        assert picture["content"][0]["type"] == "image"
        assert picture["content"][0]["source"]["media_type"] == "image/png"
        assert_history_valid(h.agent.history)

    async def test_tools_are_sent_with_the_servers_schema_a_normalized_name_and_safety_from_the_hint(self, make_agent):
        h = make_agent([Reply([Text("ok")])], mcp_config=mcp_dynamic(("test.srv", stdio_entry())))
        await started(h)
        try:
            await h.agent.run("hi")
            echo, add = h.agent.registry.find("mcp__test_srv__echo"), h.agent.registry.find("mcp__test_srv__add")
            # readOnlyHint makes a tool concurrency-safe; nothing else does.
            assert echo.is_concurrency_safe(echo.Input.model_validate({"text": "x"}))
            assert not add.is_concurrency_safe(add.Input.model_validate({"a": 1, "b": 2}))
        finally:
            await h.agent.close()
        tools = {t["name"]: t for t in h.requests[0]["tools"]}
        add = tools["mcp__test_srv__add"]
        assert add["input_schema"]["required"] == ["a", "b"]
        assert add["input_schema"]["properties"]["a"]["type"] == "integer"
        assert add["description"] == "Add two integers (structured output)."
        assert "Bash" in tools  # the built-in tools stay

    async def test_mcp_tools_ask_even_when_read_only_and_headless_denies_them(self, make_agent):
        h = make_agent([Reply([ToolUse("mcp__s__echo", {"text": "x"})]), Reply([Text("ok")])], mcp_config=mcp_dynamic(("s", stdio_entry())))
        await started(h)
        try:
            ended = await h.agent.run("go")
        finally:
            await h.agent.close()
        (result,) = results_of(h.agent.history)
        assert result["is_error"] and "not granted" in result["content"]
        assert [d["tool_name"] for d in ended.permission_denials] == ["mcp__s__echo"]

    async def test_allow_rules_name_a_server_or_one_tool(self, make_agent):
        h = make_agent(
            [Reply([ToolUse("mcp__a__echo", {"text": "1"}), ToolUse("mcp__b__echo", {"text": "2"}), ToolUse("mcp__c__echo", {"text": "3"}), ToolUse("mcp__c__add", {"a": 1, "b": 2})]), Reply([Text("ok")])],
            mcp_config=mcp_dynamic(("a", stdio_entry()), ("b", stdio_entry()), ("c", stdio_entry())),
            allowed_tools=["mcp__a", "mcp__b__*", "mcp__c__echo"],
        )
        await started(h)
        try:
            ended = await h.agent.run("go")
        finally:
            await h.agent.close()
        a, b, c, c_add = results_of(h.agent.history)
        assert [a["content"], b["content"], c["content"]] == ['{"result":"echo: 1"}', '{"result":"echo: 2"}', '{"result":"echo: 3"}']
        assert c_add["is_error"]  # `mcp__c__echo` allows that one tool only
        assert [d["tool_name"] for d in ended.permission_denials] == ["mcp__c__add"]

    async def test_a_deny_rule_for_a_server_removes_its_tools_and_wins_over_allow_and_bypass(self, make_agent):
        h = make_agent(
            [Reply([ToolUse("mcp__s__echo", {"text": "x"}), ToolUse("mcp__t__add", {"a": 1, "b": 1})]), Reply([Text("ok")])],
            mcp_config=mcp_dynamic(("s", stdio_entry()), ("t", stdio_entry())),
            allowed_tools=["mcp__s", "mcp__t"], disallowed_tools=["mcp__s__*", "mcp__t__add"], permission_mode="bypassPermissions",
        )
        await started(h)
        try:
            await h.agent.run("go")
        finally:
            await h.agent.close()
        names = {t["name"] for t in h.requests[0]["tools"]}
        assert not any(n.startswith("mcp__s__") for n in names)
        assert "mcp__t__add" not in names and "mcp__t__echo" in names
        echo, add = results_of(h.agent.history)
        assert echo["is_error"] and add["is_error"]

    async def test_output_over_the_budget_goes_to_tool_results(self, make_agent):
        h = make_agent([Reply([ToolUse("mcp__s__big", {"chars": 150_000})]), Reply([Text("ok")])], ask=allow_all, mcp_config=mcp_dynamic(("s", stdio_entry())))
        await started(h)
        try:
            await h.agent.run("go")
        finally:
            await h.agent.close()
        (result,) = results_of(h.agent.history)
        assert "<persisted-output>" in result["content"] and "tool-results" in result["content"]
        assert not result.get("is_error")


class TestFailures:
    async def test_esc_cancels_a_slow_call_at_once_and_the_server_gets_the_cancellation(self, make_agent, log_file):
        h = make_agent([Reply([ToolUse("mcp__s__slow", {"seconds": 60})])], ask=allow_all, mcp_config=mcp_dynamic(("s", stdio_entry())))
        await started(h)
        run = asyncio.ensure_future(h.agent.run("go"))
        try:
            while "slow started" not in log_file.read_text():
                await asyncio.sleep(0.01)
            t0 = time.monotonic()
            h.agent.abort()
            ended = await asyncio.wait_for(run, 60)
            stopped_in = time.monotonic() - t0
            deadline = time.monotonic() + 30
            while "slow cancelled" not in log_file.read_text() and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
            assert "slow cancelled" in log_file.read_text()  # notifications/cancelled reached the server
            assert "slow finished" not in log_file.read_text()
            # The session goes on: the same server answers the next call.
            h.model._script.append(Reply([ToolUse("mcp__s__echo", {"text": "again"})]))
            h.model._script.append(Reply([Text("fine")]))
            again = await h.agent.run("next")
        finally:
            await h.agent.close()
        assert ended.reason == "aborted" and stopped_in < 5
        aborted = results_of(h.agent.history, 0)
        assert aborted[0]["is_error"] and "Interrupted" in aborted[0]["content"]
        assert again.reason == "completed"
        assert results_of(h.agent.history)[0]["content"] == '{"result":"echo: again"}'
        assert_history_valid(h.agent.history)

    async def test_a_server_that_crashes_mid_call_gives_an_error_result_and_the_others_go_on(self, make_agent):
        h = make_agent([
            Reply([ToolUse("mcp__a__crash", {}), ToolUse("mcp__b__echo", {"text": "still here"})]),
            Reply([ToolUse("mcp__a__echo", {"text": "dead?"})]),
            Reply([Text("ok")]),
        ], ask=allow_all, mcp_config=mcp_dynamic(("a", stdio_entry()), ("b", stdio_entry())))
        manager = await started(h)
        try:
            ended = await h.agent.run("go")
        finally:
            await h.agent.close()
        assert ended.reason == "completed"
        crash, echo = results_of(h.agent.history, 0)
        assert crash["is_error"] and "closed the connection" in crash["content"]
        assert "about to crash: simulated fatal error" in crash["content"]  # its stderr tail
        assert echo["content"] == '{"result":"echo: still here"}'
        (after,) = results_of(h.agent.history, 1)
        assert after["is_error"]  # mcp__a__ tools left the registry once the server died
        states = {s.name: s for s in manager.statuses()}
        assert states["a"].status == "failed" and states["b"].status == "connected"
        failures = [e for e in h.events if getattr(e, "text", "").startswith("MCP server 'a' failed")]
        assert len(failures) == 1  # reported once

    async def test_a_server_that_never_starts_fails_after_mcp_timeout_and_the_run_goes_on(self, make_agent, monkeypatch):
        monkeypatch.setenv("MCP_TIMEOUT", "1500")
        h = make_agent([Reply([Text("ok")])], mcp_config=mcp_dynamic(("hang", stdio_entry("--hang", fresh=True))))
        manager = await started(h)
        pid = manager.connections["hang"].pid
        try:
            ended = await h.agent.run("go")
        finally:
            await h.agent.close()
        states = {s.name: s for s in manager.statuses()}
        assert states["hang"].status == "failed" and "MCP_TIMEOUT" in states["hang"].error
        assert "hanging forever" in states["hang"].error  # the stderr tail
        assert ended.reason == "completed"
        assert pid is None or not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE

    async def test_a_server_that_exits_at_start_is_failed_with_its_stderr(self, make_agent):
        h = make_agent([Reply([Text("ok")])], mcp_config=mcp_dynamic(("x", stdio_entry("--exit")), ("y", {"command": "/no/such/program"})))
        manager = await started(h)
        await h.agent.close()
        states = {s.name: s for s in manager.statuses()}
        assert states["x"].status == "failed" and "missing configuration TESTSRV_TOKEN" in states["x"].error
        assert states["y"].status == "failed" and "/no/such/program" in states["y"].error

    async def test_every_server_process_and_its_children_are_gone_after_close(self, make_agent, log_file):
        h = make_agent([Reply([ToolUse("mcp__s__spawn_child", {})]), Reply([Text("ok")])], ask=allow_all, mcp_config=mcp_dynamic(("s", stdio_entry(fresh=True))))
        manager = await started(h)
        server_pid = manager.connections["s"].pid
        await h.agent.run("go")
        child_pid = int(results_of(h.agent.history)[0]["content"].split('"')[3])
        assert psutil.pid_exists(child_pid)
        await h.agent.close()
        for pid in (server_pid, child_pid):
            assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve_http(flag: str):
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(SERVER), flag, str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            break
        except OSError:
            time.sleep(0.05)
    return proc, port


@pytest.fixture
def http_server():
    proc, port = serve_http("--http")
    yield f"http://127.0.0.1:{port}/mcp"
    proc.terminate()
    proc.wait(10)


@pytest.fixture
def sse_server():
    proc, port = serve_http("--sse")
    yield f"http://127.0.0.1:{port}/sse"
    proc.terminate()
    proc.wait(10)


class TestHttp:
    async def test_streamable_http_server_tools_work_like_stdio_ones(self, make_agent, http_server):
        h = make_agent([
            Reply([ToolUse("mcp__web__echo", {"text": "over http"}), ToolUse("mcp__web__add", {"a": 40, "b": 2})]),
            Reply([Text("done")]),
        ], ask=allow_all, mcp_config=mcp_dynamic(("web", {"type": "http", "url": http_server, "headers": {"X-Test": "1"}})))
        manager = await started(h)
        try:
            ended = await h.agent.run("go")
        finally:
            await h.agent.close()
        assert manager.statuses()[0].status == "connected" and manager.statuses()[0].transport == "http"
        echo, add = results_of(h.agent.history)
        assert echo["content"] == '{"result":"echo: over http"}' and add["content"] == '{"sum":42,"operands":[40,2]}'
        assert ended.reason == "completed"

    async def test_esc_cancels_a_slow_http_call(self, make_agent, http_server, log_file):
        # The HTTP server was started before log_file's env: it cannot log; the client side must still stop at once.
        h = make_agent([Reply([ToolUse("mcp__web__slow", {"seconds": 60})])], ask=allow_all, mcp_config=mcp_dynamic(("web", {"type": "streamable-http", "url": http_server})))
        await started(h)
        run = asyncio.ensure_future(h.agent.run("go"))
        try:
            while not any(isinstance(e, ToolStarted) for e in h.events):
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.2)
            t0 = time.monotonic()
            h.agent.abort()
            ended = await asyncio.wait_for(run, 60)
            assert time.monotonic() - t0 < 5
        finally:
            await h.agent.close()
        assert ended.reason == "aborted"
        finished = [e for e in h.events if isinstance(e, ToolFinished)]
        assert finished[-1].status == "cancelled"

    async def test_the_older_sse_transport_still_works(self, make_agent, sse_server):
        h = make_agent([Reply([ToolUse("mcp__old__echo", {"text": "sse"})]), Reply([Text("done")])], ask=allow_all, mcp_config=mcp_dynamic(("old", {"type": "sse", "url": sse_server})))
        manager = await started(h)
        try:
            await h.agent.run("go")
        finally:
            await h.agent.close()
        assert manager.statuses()[0].transport == "sse" and manager.statuses()[0].status == "connected"
        assert results_of(h.agent.history)[0]["content"] == '{"result":"echo: sse"}'

    async def test_an_unreachable_http_server_fails_and_says_so(self, make_agent):
        h = make_agent([Reply([Text("ok")])], mcp_config=mcp_dynamic(("gone", {"type": "http", "url": f"http://127.0.0.1:{free_port()}/mcp"})))
        manager = await started(h)
        await h.agent.close()
        status = manager.statuses()[0]
        assert status.status == "failed" and status.error


class TestLimits:
    async def test_a_call_over_mcp_tool_timeout_is_an_error_result_and_the_server_is_told(self, make_agent, monkeypatch, log_file):
        monkeypatch.setenv("MCP_TOOL_TIMEOUT", "1000")
        h = make_agent([Reply([ToolUse("mcp__s__slow", {"seconds": 60})]), Reply([Text("ok")])], ask=allow_all, mcp_config=mcp_dynamic(("s", stdio_entry())))
        await started(h)
        try:
            ended = await h.agent.run("go")
            deadline = time.monotonic() + 30
            while "slow cancelled" not in log_file.read_text() and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
        finally:
            await h.agent.close()
        (result,) = results_of(h.agent.history)
        assert result["is_error"] and "timed out" in result["content"]
        assert "slow cancelled" in log_file.read_text()
        assert ended.reason == "completed"

    def test_names_are_normalized_and_descriptions_cut_at_2048_characters(self):
        from tui_agent.core.mcp.connection import ToolSpec
        from tui_agent.core.mcp.tools import McpTool, mcp_tool_name

        assert mcp_tool_name("my server.v2", "get/item") == "mcp__my_server_v2__get_item"

        class Conn:
            name = "srv"

        tool = McpTool(Conn(), ToolSpec("t", "d" * 5000, {"type": "object"}, False))  # type: ignore[arg-type]
        assert len(tool.description) == 2048 and tool.description.endswith("…")
        assert tool.api_definition() == {"name": "mcp__srv__t", "description": tool.description, "input_schema": {"type": "object"}}
