"""A subagent's `tools:` / `disallowedTools:` bind MCP tools too; Explore and Plan get only read-only ones.

A real MCP server subprocess (tests/mcp/mcp_test_server.py), a real Agent with its real subagent runner,
the scripted model routing the parent's and the child's conversations apart.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.mcp.conftest import mcp_dynamic, stdio_entry
from tests.mcp.test_mcp_tools import allow_all, started
from tui_agent.providers.scripted import Conversations, Reply, Text, ToolUse


def agent_file(work: Path, name: str, front: str) -> None:
    folder = work / ".claude" / "agents"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.md").write_text(f"---\nname: {name}\ndescription: A test agent\n{front}---\nYou help.\n")


def call(subagent_type: str) -> ToolUse:
    return ToolUse("Agent", {"description": "try", "prompt": "CHILD: go", "subagent_type": subagent_type}, id="toolu_agent")


def names(request: dict) -> list[str]:
    return [t["name"] for t in request.get("tools", [])]


def child_results(routes: Conversations) -> list[dict]:
    second = routes.requests["CHILD"][1]["messages"][-1]["content"]
    return [b for b in second if b.get("type") == "tool_result"]


async def run(make_agent, routes: Conversations) -> None:
    h = make_agent(routes, ask=allow_all, mcp_config=mcp_dynamic(("srv", stdio_entry())))
    await started(h)
    try:
        ended = await h.agent.run("MAIN: go")
    finally:
        await h.agent.close()
    assert ended.reason == "completed"
    assert "mcp__srv__add" in names(routes.requests["MAIN"][0]), "the parent has every tool of the server"


async def test_tools_read_offers_no_mcp_tool_and_a_call_to_one_is_refused(make_agent, work):
    agent_file(work, "limited", "tools: Read\n")
    routes = Conversations({
        "MAIN": [Reply([call("limited")]), Reply([Text("ok")])],
        "CHILD": [Reply([ToolUse("mcp__srv__add", {"a": 1, "b": 2}, id="c1")]), Reply([Text("done")])],
    })
    await run(make_agent, routes)
    assert names(routes.requests["CHILD"][0]) == ["Read"]
    [result] = child_results(routes)
    assert result["is_error"] and "No such tool available: mcp__srv__add" in str(result["content"])


async def test_full_names_and_whole_servers_select_and_remove_mcp_tools(make_agent, work):
    agent_file(work, "picky", "tools: Read, mcp__srv__echo\n")
    agent_file(work, "server", "tools: [Read, mcp__srv]\ndisallowedTools: mcp__srv__add\n")
    agent_file(work, "nomcp", "disallowedTools: mcp__srv\n")
    for kind in ("picky", "server", "nomcp"):
        routes = Conversations({
            "MAIN": [Reply([call(kind)]), Reply([Text("ok")])],
            "CHILD": [Reply([Text("done")])],
        })
        await run(make_agent, routes)
        offered = [n for n in names(routes.requests["CHILD"][0]) if n.startswith("mcp__")]
        if kind == "picky":
            assert offered == ["mcp__srv__echo"]
        elif kind == "server":
            assert "mcp__srv__echo" in offered and "mcp__srv__fail" in offered and "mcp__srv__add" not in offered
        else:
            assert offered == []


@pytest.mark.parametrize("kind", ["Explore", "Plan"])
async def test_explore_and_plan_get_only_read_only_tools(make_agent, kind):
    routes = Conversations({
        "MAIN": [Reply([call(kind)]), Reply([Text("ok")])],
        "CHILD": [Reply([ToolUse("mcp__srv__add", {"a": 1, "b": 2}, id="c1")]), Reply([Text("done")])],
    })
    await run(make_agent, routes)
    offered = names(routes.requests["CHILD"][0])
    assert not {"Edit", "Write", "NotebookEdit", "Agent"} & set(offered)
    # echo and slow say readOnlyHint; add, fail, picture... do not.
    assert sorted(n for n in offered if n.startswith("mcp__")) == ["mcp__srv__echo", "mcp__srv__slow"]
    [result] = child_results(routes)
    assert result["is_error"] and "No such tool available: mcp__srv__add" in str(result["content"])
