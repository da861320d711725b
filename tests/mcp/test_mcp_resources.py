"""MCP resources against real MCP servers (tests/mcp/resource_server.py): Claude Code's ListMcpResourcesTool and
ReadMcpResourceTool in the loop, and `@server:uri` mentions attached to the prompt the model receives."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from tests.core.support import assert_history_valid
from tests.mcp.conftest import mcp_dynamic
from tests.warm_start import python_script_command
from tui_agent.core.events import Notice
from tui_agent.core.mcp import mcp_manager
from tui_agent.core.mentions import run_prompt
from tui_agent.core.permission_types import PermissionAnswer
from tui_agent.providers.scripted import Reply, Text, ToolUse

RESOURCE_SERVER = Path(__file__).with_name("resource_server.py")
README = "# Project readme\nThe answer is 42.\n"


def resource_entry(*args: str) -> dict:
    command, *rest = python_script_command(RESOURCE_SERVER)
    return {"command": command, "args": [*rest, *args]}


def results_of(history: list[dict]) -> list[dict]:
    last = [m for m in history if m["role"] == "user" and isinstance(m["content"], list) and any(b.get("type") == "tool_result" for b in m["content"])][-1]
    return [b for b in last["content"] if b.get("type") == "tool_result"]


async def run_calls(make_agent, calls: list[ToolUse], *servers: tuple[str, dict]) -> tuple[list[dict], object]:
    h = make_agent([Reply(calls), Reply([Text("done")])] if calls else [Reply([Text("done")])], mcp_config=mcp_dynamic(*servers))
    await mcp_manager(h.agent).wait_all()
    try:
        await h.agent.run("use the resources")
    finally:
        await h.agent.close()
    assert_history_valid(h.agent.history)
    return (results_of(h.agent.history) if calls else []), h


DOCS = ("docs", resource_entry())


class TestListing:
    async def test_listing_all_gives_every_servers_resources_with_a_server_field_as_compact_json(self, make_agent):
        [result], h = await run_calls(make_agent, [ToolUse("ListMcpResourcesTool", {})], DOCS, ("more", resource_entry()), ("plain", resource_entry("--no-resources")))
        listed = json.loads(result["content"])
        assert not result.get("is_error")
        assert result["content"] == json.dumps(listed, separators=(",", ":"))  # compact, as JSON.stringify
        assert {(r["server"], r["uri"]) for r in listed} >= {("docs", "docs://readme"), ("more", "docs://readme"), ("docs", "notes://todo")}
        readme = next(r for r in listed if r["server"] == "docs" and r["uri"] == "docs://readme")
        assert readme["name"] == "readme" and readme["mimeType"] == "text/markdown" and readme["description"] == "The project readme"
        assert not any(r["server"] == "plain" for r in listed)

    async def test_listing_one_server_gives_only_its_resources(self, make_agent):
        [result], _ = await run_calls(make_agent, [ToolUse("ListMcpResourcesTool", {"server": "more"})], DOCS, ("more", resource_entry()))
        assert {r["server"] for r in json.loads(result["content"])} == {"more"}

    async def test_an_unknown_server_is_an_error_naming_the_servers_there_are(self, make_agent):
        listed, read = (await run_calls(make_agent, [
            ToolUse("ListMcpResourcesTool", {"server": "nope"}),
            ToolUse("ReadMcpResourceTool", {"server": "nope", "uri": "docs://readme"}),
        ], DOCS, ("plain", resource_entry("--no-resources"))))[0]
        for result in (listed, read):
            assert result["is_error"] and result["content"] == 'Server "nope" not found. Available servers: docs, plain'

    async def test_a_server_without_the_resources_capability_says_so(self, make_agent):
        listed, read = (await run_calls(make_agent, [
            ToolUse("ListMcpResourcesTool", {"server": "plain"}),
            ToolUse("ReadMcpResourceTool", {"server": "plain", "uri": "x://y"}),
        ], DOCS, ("plain", resource_entry("--no-resources"))))[0]
        for result in (listed, read):
            assert result["is_error"] and result["content"] == 'Server "plain" does not support resources'

    async def test_the_tools_are_offered_only_when_a_connected_server_declares_resources(self, make_agent):
        _, without = await run_calls(make_agent, [], ("plain", resource_entry("--no-resources")))
        _, with_docs = await run_calls(make_agent, [], DOCS)
        assert not {"ListMcpResourcesTool", "ReadMcpResourceTool"} & {t["name"] for t in without.requests[0]["tools"]}
        tools = {t["name"]: t for t in with_docs.requests[0]["tools"]}
        assert tools["ReadMcpResourceTool"]["input_schema"]["required"] == ["server", "uri"]
        assert tools["ListMcpResourcesTool"]["input_schema"]["properties"]["server"] == {"type": "string", "description": "Optional server name to filter resources by"}
        assert "Each returned resource will include all standard MCP resource fields" in tools["ListMcpResourcesTool"]["description"]


class TestReading:
    async def test_reading_text_returns_contents_with_the_text(self, make_agent):
        [result], _ = await run_calls(make_agent, [ToolUse("ReadMcpResourceTool", {"server": "docs", "uri": "docs://readme"})], DOCS)
        assert not result.get("is_error")
        assert json.loads(result["content"]) == {"contents": [{"uri": "docs://readme", "mimeType": "text/markdown", "text": README}]}

    async def test_reading_binary_saves_the_blob_to_a_file_and_describes_it(self, make_agent):
        [result], h = await run_calls(make_agent, [ToolUse("ReadMcpResourceTool", {"server": "docs", "uri": "docs://logo.png"})], DOCS)
        [entry] = json.loads(result["content"])["contents"]
        saved = Path(entry["blobSavedTo"])
        assert saved.suffix == ".png" and saved.read_bytes().startswith(b"\x89PNG") and saved.parent.name == "tool-results"
        assert entry["text"] == f"[Resource from docs at docs://logo.png] Binary content (image/png, {saved.stat().st_size} bytes) saved to {saved}"

    async def test_an_unknown_uri_says_the_resource_was_not_found(self, make_agent):
        [result], _ = await run_calls(make_agent, [ToolUse("ReadMcpResourceTool", {"server": "docs", "uri": "docs://nope"})], DOCS)
        assert result["content"] == "Resource not found: docs://nope \u2014 it may have been deleted or the URI is stale. Re-run ListMcpResourcesTool to refresh."

    async def test_a_read_the_server_fails_is_an_error_and_the_session_goes_on(self, make_agent):
        broken, fine = (await run_calls(make_agent, [
            ToolUse("ReadMcpResourceTool", {"server": "docs", "uri": "docs://broken"}),
            ToolUse("ReadMcpResourceTool", {"server": "docs", "uri": "notes://todo"}),
        ], DOCS))[0]
        assert broken["is_error"] and "Error reading resource docs://broken" in broken["content"]
        assert json.loads(fine["content"])["contents"][0]["text"] == "- write tests\n- ship\n"

    async def test_the_resource_tools_run_without_asking_even_in_plan_mode_and_side_by_side(self, make_agent):
        # No ask handler: a call that asked would come back denied ("not granted").
        h = make_agent([Reply([ToolUse("ListMcpResourcesTool", {}), ToolUse("ReadMcpResourceTool", {"server": "docs", "uri": "notes://todo"})]), Reply([Text("ok")])],
                       mcp_config=mcp_dynamic(DOCS), permission_mode="plan")
        await mcp_manager(h.agent).wait_all()
        try:
            ended = await h.agent.run("look")
            tool = h.agent.registry.find("ReadMcpResourceTool")
        finally:
            await h.agent.close()
        assert not ended.permission_denials and not any(r.get("is_error") for r in results_of(h.agent.history))
        args = tool.Input.model_validate({"server": "docs", "uri": "docs://readme"})
        assert tool.is_read_only(args) and tool.is_concurrency_safe(args)

    async def test_a_deny_rule_naming_the_tool_removes_it_and_a_server_rule_does_not_bind_it(self, make_agent):
        h = make_agent([Reply([Text("ok")])], mcp_config=mcp_dynamic(DOCS), disallowed_tools=["ReadMcpResourceTool", "mcp__docs"])
        await mcp_manager(h.agent).wait_all()
        try:
            await h.agent.run("hi")
        finally:
            await h.agent.close()
        names = {t["name"] for t in h.requests[0]["tools"]}
        assert "ReadMcpResourceTool" not in names and "mcp__docs__ping" not in names
        assert "ListMcpResourcesTool" in names  # as in Claude Code: not an `mcp__docs` tool


class TestMentions:
    async def test_a_mentioned_resource_is_attached_to_the_prompt_the_model_receives(self, make_agent):
        h = make_agent([Reply([Text("ok")])], mcp_config=mcp_dynamic(DOCS))
        await mcp_manager(h.agent).wait_all()
        try:
            await run_prompt(h.agent, "summarize @docs:docs://readme please")
        finally:
            await h.agent.close()
        content = h.requests[0]["messages"][0]["content"]
        texts = [b["text"] for b in content]
        assert texts[:3] == [
            "<system-reminder>\nFull contents of resource:\n</system-reminder>",
            f"<system-reminder>\n{README}\n</system-reminder>",
            "<system-reminder>\nDo NOT read this resource again unless you think it may have changed, since you already have the full contents.\n</system-reminder>",
        ]
        assert texts[-1] == "summarize @docs:docs://readme please"

    async def test_a_binary_resource_is_named_by_its_type(self, make_agent):
        h = make_agent([Reply([Text("ok")])], mcp_config=mcp_dynamic(DOCS))
        await mcp_manager(h.agent).wait_all()
        try:
            await run_prompt(h.agent, "@docs:docs://logo.png")
        finally:
            await h.agent.close()
        assert h.requests[0]["messages"][0]["content"][0]["text"] == "<system-reminder>\n[Binary content: image/png]\n</system-reminder>"

    async def test_an_unknown_server_or_uri_gives_a_notice_and_the_prompt_still_goes(self, make_agent):
        h = make_agent([Reply([Text("ok")])], mcp_config=mcp_dynamic(DOCS))
        await mcp_manager(h.agent).wait_all()
        prompt = "see @doc:docs://readme and @docs:docs://nope and @notes.txt:3"
        try:
            ended = await run_prompt(h.agent, prompt)
        finally:
            await h.agent.close()
        assert ended.reason == "completed"
        assert [b["text"] for b in h.requests[0]["messages"][0]["content"]] == [prompt]
        notices = [e.text for e in h.events if isinstance(e, Notice)]
        assert "@doc:docs://readme was not attached: no MCP server is named 'doc' (connected: docs)." in notices
        assert "@docs:docs://nope was not attached: 'docs' lists no resource 'docs://nope'." in notices
        assert not any("notes.txt" in n for n in notices)  # a path with a colon is not a missing server

    async def test_a_resource_the_server_adds_later_can_be_mentioned_once_it_says_the_list_changed(self, make_agent):
        async def allow(request):
            return PermissionAnswer("allow_once")

        h = make_agent([Reply([ToolUse("mcp__docs__add_note", {"name": "fresh", "text": "new note"})]), Reply([Text("added")]), Reply([Text("ok")])],
                       ask=allow, mcp_config=mcp_dynamic(DOCS))
        manager = mcp_manager(h.agent)
        await manager.wait_all()
        conn = manager.connections["docs"]
        try:
            await h.agent.run("add a note")
            async with asyncio.timeout(30):  # the list comes back in the background after the notification
                while not any(r["uri"] == "notes://fresh" for r in conn.resources):
                    await asyncio.sleep(0.01)
            await run_prompt(h.agent, "read @docs:notes://fresh")
        finally:
            await h.agent.close()
        texts = [b["text"] for b in h.requests[-1]["messages"][-1]["content"]]
        assert "<system-reminder>\nnew note\n</system-reminder>" in texts
