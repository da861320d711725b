"""MCP when the real claude-agent-sdk drives tui-agent: servers from `mcp_servers` (a real stdio server written
with the `mcp` package, and an in-process `create_sdk_mcp_server` reached through `mcp_message` control
requests), their states in `init` and `get_mcp_status()`, toggle and reconnect, a server that fails to start,
and a program that answers `mcp_message` with garbage."""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

import pytest
from claude_agent_sdk import (
    ClaudeSDKClient,
    PermissionResultDeny,
    ResultMessage,
    SystemMessage,
    create_sdk_mcp_server,
    query,
    tool,
)

from tests.e2e.sdk_support import result_text, tui_agent_cli
from tests.mcp.conftest import stdio_entry
from tui_agent.providers.scripted import Reply, Text, ToolUse

BROKEN = {"command": "/nonexistent/bin/mcp-server"}


def greeter(calls: list[dict[str, Any]]) -> Any:
    """An in-process SDK server with one tool that records its calls."""

    @tool("greet", "Greet someone by name", {"name": str})
    async def greet(args: dict[str, Any]) -> dict[str, Any]:
        calls.append(args)
        return {"content": [{"type": "text", "text": f"Hello, {args['name']}!"}]}

    @tool("explode", "Always fails", {})
    async def explode(args: dict[str, Any]) -> dict[str, Any]:
        raise RuntimeError("the greeter exploded")

    return create_sdk_mcp_server("inproc", version="2.0.0", tools=[greet, explode])


async def until_result(client: ClaudeSDKClient) -> list[Any]:
    return [m async for m in client.receive_response()]


def init_of(messages: list[Any]) -> dict[str, Any]:
    return next(m.data for m in messages if isinstance(m, SystemMessage) and m.subtype == "init")


def tool_names(request: dict[str, Any]) -> list[str]:
    return [t["name"] for t in request.get("tools", [])]


class TestServersFromOptions:
    async def test_stdio_and_sdk_tools_answer_the_model_and_a_broken_server_fails_alone(self, make_run):
        run = make_run([
            Reply([ToolUse("mcp__srv__echo", {"text": "hi"}, id="t_echo"), ToolUse("mcp__inproc__greet", {"name": "Ada"}, id="t_greet"),
                   ToolUse("mcp__inproc__explode", {}, id="t_boom")]),
            Reply([Text("both answered")]),
            Reply([Text("still going")]),
        ])
        calls: list[dict[str, Any]] = []
        options = run.options(mcp_servers={"srv": stdio_entry(), "inproc": greeter(calls), "broken": BROKEN},
                              allowed_tools=["mcp__srv__echo", "mcp__inproc"])
        async with ClaudeSDKClient(options) as client:
            await client.query("use the tools")
            first = await until_result(client)
            status = await client.get_mcp_status()
            await client.query("and again")
            second = await until_result(client)

        init = init_of(first)
        assert init["mcp_servers"] == [{"name": "srv", "status": "connected"}, {"name": "inproc", "status": "connected"},
                                       {"name": "broken", "status": "failed"}]
        assert {"mcp__srv__echo", "mcp__inproc__greet", "mcp__inproc__explode"} <= set(init["tools"])
        assert {"mcp__srv__echo", "mcp__inproc__greet"} <= set(tool_names(run.requests[0]))
        greet_schema = next(t for t in run.requests[0]["tools"] if t["name"] == "mcp__inproc__greet")["input_schema"]
        assert greet_schema["properties"] == {"name": {"type": "string"}}

        results = run.tool_results(1)
        assert "echo: hi" in result_text(results["t_echo"]) and not results["t_echo"].get("is_error")
        assert result_text(results["t_greet"]) == "Hello, Ada!" and not results["t_greet"].get("is_error")
        assert results["t_boom"]["is_error"] and "the greeter exploded" in result_text(results["t_boom"])
        assert calls == [{"name": "Ada"}]
        assert first[-1].subtype == "success" and first[-1].result == "both answered"
        assert second[-1].subtype == "success" and second[-1].result == "still going"
        assert any("broken" in line and "/nonexistent/bin/mcp-server" in line for line in run.stderr), run.stderr

        servers = {s["name"]: s for s in status["mcpServers"]}
        assert [s["name"] for s in status["mcpServers"]] == ["srv", "inproc", "broken"]
        srv = servers["srv"]
        assert srv["status"] == "connected" and srv["scope"] == "dynamic"
        assert srv["serverInfo"]["name"] == "testsrv"
        assert srv["config"] == {"type": "stdio", **stdio_entry()}
        assert {"name": "echo", "annotations": {"readOnly": True}} in srv["tools"]
        assert servers["inproc"]["config"] == {"type": "sdk", "name": "inproc"}
        assert servers["inproc"]["serverInfo"] == {"name": "inproc", "version": "2.0.0"}
        assert [t["name"] for t in servers["inproc"]["tools"]] == ["greet", "explode"]
        broken = servers["broken"]
        assert broken["status"] == "failed" and "/nonexistent/bin/mcp-server" in broken["error"] and "tools" not in broken

    async def test_an_sdk_tool_asks_the_program_like_any_mcp_tool_and_a_deny_rule_removes_it(self, make_run):
        run = make_run([
            Reply([ToolUse("mcp__inproc__greet", {"name": "Bob"}, id="t_greet")]),
            Reply([Text("denied, fine")]),
        ])
        calls: list[dict[str, Any]] = []
        asked: list[tuple[str, dict[str, Any]]] = []

        async def can_use_tool(name: str, tool_input: dict[str, Any], ctx: Any) -> Any:
            asked.append((name, tool_input))
            return PermissionResultDeny(message="No greetings today.")

        async def prompts():  # a stream: the SDK keeps stdin open for can_use_tool and mcp_message
            yield {"type": "user", "message": {"role": "user", "content": "greet Bob"}}

        options = run.options(mcp_servers={"inproc": greeter(calls)}, can_use_tool=can_use_tool,
                              disallowed_tools=["mcp__inproc__explode"])
        messages = [m async for m in query(prompt=prompts(), options=options)]
        assert asked == [("mcp__inproc__greet", {"name": "Bob"})]
        assert calls == []
        result = run.tool_results(1)["t_greet"]
        assert result["is_error"] and "No greetings today." in result_text(result)
        assert "mcp__inproc__greet" in tool_names(run.requests[0]) and "mcp__inproc__explode" not in tool_names(run.requests[0])
        assert messages[-1].subtype == "success"

    async def test_sdk_tools_are_deferred_behind_tool_search_like_any_mcp_tool(self, make_run):
        run = make_run([Reply([Text("nothing to call")])])
        run.env["ENABLE_TOOL_SEARCH"] = "true"
        messages = [m async for m in query(prompt=_one_prompt("hi"), options=run.options(mcp_servers={"inproc": greeter([])}))]
        assert messages[-1].subtype == "success"
        request = run.requests[0]
        assert "ToolSearch" in tool_names(request)
        deferred = [t for t in request["tools"] if t.get("defer_loading")]
        assert {t["name"] for t in deferred} == {"mcp__inproc__greet", "mcp__inproc__explode"}


class TestServersFromFiles:
    async def test_user_servers_start_and_project_servers_follow_the_approval_rules(self, make_run):
        run = make_run([Reply([Text("ok")])])
        home = run.work.parent / "home"
        home.mkdir(exist_ok=True)
        (home / ".claude.json").write_text(json.dumps({"mcpServers": {"usr": stdio_entry()}}))
        (run.work / ".mcp.json").write_text(json.dumps({"mcpServers": {"allowed": stdio_entry(), "unasked": stdio_entry()}}))
        (run.work / ".claude").mkdir()
        (run.work / ".claude" / "settings.local.json").write_text(json.dumps({"enabledMcpjsonServers": ["allowed"]}))
        async with ClaudeSDKClient(run.options()) as client:
            await client.query("hi")
            messages = await until_result(client)
            status = {s["name"]: s for s in (await client.get_mcp_status())["mcpServers"]}
        assert init_of(messages)["mcp_servers"] == [{"name": "usr", "status": "connected"}, {"name": "allowed", "status": "connected"},
                                                    {"name": "unasked", "status": "needs-approval"}]
        assert (status["usr"]["scope"], status["allowed"]["scope"], status["unasked"]["scope"]) == ("user", "project", "project")
        assert not any(n.startswith("mcp__unasked__") for n in tool_names(run.requests[0]))
        assert any('"unasked"' in line and "enabledMcpjsonServers" in line for line in run.stderr), run.stderr


class TestControl:
    async def test_toggle_off_removes_the_tools_toggle_on_and_reconnect_bring_them_back(self, make_run):
        run = make_run([Reply([Text("one")]), Reply([Text("two")]), Reply([ToolUse("mcp__srv__echo", {"text": "back"}, id="t_echo")]),
                        Reply([Text("three")]), Reply([Text("four")])])
        calls: list[dict[str, Any]] = []
        options = run.options(mcp_servers={"srv": stdio_entry(), "inproc": greeter(calls), "broken": BROKEN}, allowed_tools=["mcp__srv__echo"])
        async with ClaudeSDKClient(options) as client:
            await client.query("first")
            await until_result(client)

            await client.toggle_mcp_server("srv", False)
            off = {s["name"]: s for s in (await client.get_mcp_status())["mcpServers"]}
            assert off["srv"]["status"] == "disabled" and "tools" not in off["srv"]
            await client.query("second")
            second = await until_result(client)
            assert init_of(second)["mcp_servers"][0] == {"name": "srv", "status": "disabled"}
            assert not any(n.startswith("mcp__srv__") for n in tool_names(run.requests[1]))
            assert "mcp__inproc__greet" in tool_names(run.requests[1])

            await client.toggle_mcp_server("srv", True)
            assert (await client.get_mcp_status())["mcpServers"][0]["status"] == "connected"
            await client.query("third")
            third = await until_result(client)
            assert "mcp__srv__echo" in tool_names(run.requests[2]) and third[-1].result == "three"
            assert "echo: back" in result_text(run.tool_results(3)["t_echo"])  # the server runs again

            await client.reconnect_mcp_server("srv")
            await client.reconnect_mcp_server("inproc")  # a fresh handshake through mcp_message
            on = {s["name"]: s for s in (await client.get_mcp_status())["mcpServers"]}
            assert on["srv"]["status"] == "connected" and on["inproc"]["status"] == "connected"
            await client.query("fourth")
            await until_result(client)
            assert {"mcp__srv__echo", "mcp__inproc__greet"} <= set(tool_names(run.requests[4]))

            with pytest.raises(Exception, match="Server not found: nope"):
                await client.reconnect_mcp_server("nope")
            with pytest.raises(Exception, match="Server not found: nope"):
                await client.toggle_mcp_server("nope", False)
            with pytest.raises(Exception, match="/nonexistent/bin/mcp-server"):
                await client.reconnect_mcp_server("broken")
            assert (await client.get_mcp_status())["mcpServers"][1]["status"] == "connected"  # the session goes on


class TestInterrupt:
    async def test_an_interrupt_cancels_a_running_sdk_tool_in_the_program_and_the_session_goes_on(self, make_run):
        started, cancelled = asyncio.Event(), asyncio.Event()

        @tool("wait", "Waits until cancelled", {})
        async def wait(args: dict[str, Any]) -> dict[str, Any]:
            started.set()
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                cancelled.set()
                raise
            return {"content": []}

        run = make_run([Reply([ToolUse("mcp__inproc__wait", {}, id="t_wait")]), Reply([Text("after the interruption")])])
        options = run.options(mcp_servers={"inproc": create_sdk_mcp_server("inproc", tools=[wait])}, allowed_tools=["mcp__inproc"])
        async with ClaudeSDKClient(options) as client:
            await client.query("wait for it")
            await asyncio.wait_for(started.wait(), 60)
            await client.interrupt()
            first = await until_result(client)
            await asyncio.wait_for(cancelled.wait(), 60)  # notifications/cancelled reached the program's server
            await client.query("again")
            second = await until_result(client)
        assert isinstance(first[-1], ResultMessage) and first[-1].subtype == "error_during_execution"
        assert second[-1].subtype == "success" and second[-1].result == "after the interruption"
        interrupted = run.tool_results(1)["t_wait"]
        assert interrupted["is_error"]


class RawProgram:
    """A program that speaks the protocol itself (no SDK): `answer(message)` decides each mcp_message reply,
    as the `control_response` body's fields (`{"response": ...}` for success, `{"error": ...}` for an error)."""

    def __init__(self, run: Any, answer: Any, *extra: str) -> None:
        self.run = run
        self.answer = answer
        self.extra = extra
        self.out: list[dict[str, Any]] = []
        self.err = ""

    async def __call__(self, *requests: dict[str, Any]) -> dict[str, dict[str, Any]]:
        """Send `requests`, one prompt, serve mcp_message until its result, then an mcp_status; the control
        responses by request id."""
        config = json.dumps({"mcpServers": {"inproc": {"type": "sdk", "name": "inproc"}}})
        proc = await asyncio.create_subprocess_exec(
            tui_agent_cli(), "--output-format", "stream-json", "--verbose", "--input-format", "stream-json", "--mcp-config", config, *self.extra,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, cwd=self.run.work,
            env={**{k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}, **self.run.env},
        )
        assert proc.stdin and proc.stdout and proc.stderr

        def send(obj: dict[str, Any]) -> None:
            proc.stdin.write((json.dumps(obj) + "\n").encode())

        for request_id, request in enumerate(requests):
            send({"type": "control_request", "request_id": f"r{request_id}", "request": request})
        send({"type": "user", "message": {"role": "user", "content": "hello"}})
        async with asyncio.timeout(60):
            while True:
                raw = await proc.stdout.readline()
                assert raw, f"tui-agent ended early: {(await proc.stderr.read()).decode()}"
                line = json.loads(raw)
                self.out.append(line)
                if line["type"] == "control_request" and line["request"]["subtype"] == "mcp_message":
                    body = self.answer(line["request"]["message"])
                    send({"type": "control_response", "response": {"subtype": "error" if "error" in body else "success",
                                                                  "request_id": line["request_id"], **body}})
                if line["type"] == "result":
                    break
            send({"type": "control_request", "request_id": "status", "request": {"subtype": "mcp_status"}})
            proc.stdin.close()
            self.out += [json.loads(l) for l in (await proc.stdout.read()).decode().splitlines()]
            self.err = (await proc.stderr.read()).decode()
            assert await proc.wait() == 0
        return {o["response"]["request_id"]: o["response"] for o in self.out if o["type"] == "control_response"}

    @property
    def init(self) -> dict[str, Any]:
        return next(o for o in self.out if o.get("subtype") == "init")

    @property
    def result(self) -> dict[str, Any]:
        return next(o for o in self.out if o["type"] == "result")


def ack(message: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
    return {"response": {"mcp_response": {"jsonrpc": "2.0", "id": message.get("id"), "result": result}}}


class TestHostileProgram:
    async def test_a_handshake_answered_for_another_id_fails_that_server_with_a_clear_line_and_the_session_goes_on(self, make_run):
        """The `initialize` handshake answered with a response to another id, and a malformed mcp_toggle
        request: each is named, the server is "failed", the prompt is answered."""
        run = make_run([Reply([Text("answered anyway")])])
        program = RawProgram(run, lambda m: {"response": {"mcp_response": {"jsonrpc": "2.0", "id": 4242, "result": {}}}})
        responses = await program({"subtype": "mcp_toggle", "serverName": "inproc"})
        assert responses["r0"]["subtype"] == "error" and "invalid mcp_toggle request" in responses["r0"]["error"]
        assert "enabled" in responses["r0"]["error"]
        assert program.init["mcp_servers"] == [{"name": "inproc", "status": "failed"}]
        assert program.result["subtype"] == "success" and program.result["result"] == "answered anyway"
        why = "is not a JSON-RPC response to it: its id 4242 is not the request's 1"
        assert why in program.err, program.err
        status = responses["status"]["response"]["mcpServers"][0]
        assert status["status"] == "failed" and why in status["error"]

    async def test_a_call_the_program_answers_with_an_error_is_an_error_result_and_the_turn_goes_on(self, make_run):
        run = make_run([Reply([ToolUse("mcp__inproc__t", {}, id="t1")]), Reply([Text("carried on")])])
        calls: list[dict[str, Any]] = []

        def answer(message: dict[str, Any]) -> dict[str, Any]:
            method = message.get("method")
            if method == "initialize":
                return ack(message, {"protocolVersion": message["params"]["protocolVersion"], "capabilities": {"tools": {}},
                                     "serverInfo": {"name": "raw", "version": "9"}})
            if method == "tools/list":
                return ack(message, {"tools": [{"name": "t", "inputSchema": {"type": "object"}}]})
            if method == "tools/call":
                calls.append(message["params"])
                return {"error": "the program's tool handler blew up"}
            return ack(message, {})

        program = RawProgram(run, answer, "--allowedTools", "mcp__inproc__t")
        responses = await program()
        assert program.init["mcp_servers"] == [{"name": "inproc", "status": "connected"}]
        result = run.tool_results(1)["t1"]
        assert result["is_error"] and "the program's tool handler blew up" in result_text(result)
        assert calls[0]["name"] == "t" and calls[0]["_meta"]["claudecode/toolUseId"] == "t1"  # as Claude Code sends it
        assert program.result["subtype"] == "success" and program.result["result"] == "carried on"
        assert responses["status"]["response"]["mcpServers"][0]["serverInfo"] == {"name": "raw", "version": "9"}


async def _one_prompt(text: str) -> Any:
    yield {"type": "user", "message": {"role": "user", "content": text}}
