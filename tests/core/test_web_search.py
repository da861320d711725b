"""WebSearch through the API's server-side tool: offered as Claude Code offers it where the endpoint
supports it, its server_tool_use and web_search_tool_result blocks (and cited text) kept in the history
exactly as streamed by the scripted model, no tool_result owed; hidden (and the request resent without it)
when the endpoint refuses it."""

from __future__ import annotations

from pathlib import Path

from tui_agent.config import AgentSettings
from tui_agent.core.events import ServerToolBlock
from tui_agent.factory import build_agent
from tui_agent.providers.scripted import Reply, ScriptedModel, ServerToolUse, Text, WebSearchResult, fault
from tui_agent.tools import web_search

RESULTS = [
    {"title": "Python 3.14 released", "url": "https://www.python.org/downloads/release/python-3140/", "encrypted_content": "EqQBCkYI", "page_age": "October 7, 2025"},
    {"title": "What's new", "url": "https://docs.python.org/3.14/whatsnew/3.14.html", "encrypted_content": "Zm9vYmFy", "page_age": None},
]


def agent_for(tmp_path: Path, scripted: ScriptedModel, events: list | None = None):
    cwd = tmp_path / "p"
    cwd.mkdir(exist_ok=True)
    emit = events.append if events is not None else (lambda e: None)
    return build_agent(AgentSettings(cwd=cwd), scripted=scripted, emit=emit)


async def test_search_blocks_are_kept_exactly_and_the_turn_ends_without_tool_results(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    script = [
        Reply([
            Text("Let me search."),
            ServerToolUse({"query": "python 3.14 release"}, id="srvtoolu_01"),
            WebSearchResult("srvtoolu_01", RESULTS),
            Text("Python 3.14 came out in October 2025."),
        ]),
        Reply([Text("again")]),
    ]
    scripted = ScriptedModel(script, web_search=True)
    events: list = []
    agent = agent_for(tmp_path, scripted, events)
    ended = await agent.run("when did 3.14 come out?")
    await agent.run("thanks")
    await agent.close()
    assert ended.reason == "completed" and ended.num_turns == 1
    first = scripted.requests[0]
    assert {"type": "web_search_20250305", "name": "web_search", "max_uses": 8} in first["tools"]
    assistant = agent.history[1]["content"]
    assert assistant[1] == {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {"query": "python 3.14 release"}}
    assert assistant[2] == {
        "type": "web_search_tool_result",
        "tool_use_id": "srvtoolu_01",
        "content": [{"type": "web_search_result", **r} for r in RESULTS],
    }
    # Sent back unchanged in the next request, with no tool_result for the server tool.
    assert scripted.requests[1]["messages"][1]["content"][:3] == assistant[:3]
    assert not any(b.get("type") == "tool_result" for m in scripted.requests[1]["messages"] for b in m["content"])
    shown = [e.block["type"] for e in events if isinstance(e, ServerToolBlock)]
    assert shown == ["server_tool_use", "web_search_tool_result"]


async def test_hidden_where_the_endpoint_does_not_support_it(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    scripted = ScriptedModel([Reply([Text("hi")])])  # a scripted endpoint without web search
    agent = agent_for(tmp_path, scripted)
    await agent.run("hi")
    await agent.close()
    assert not any(t.get("name") == "web_search" for t in scripted.requests[0]["tools"])
    assert web_search.supported("http://localhost:8080") is False
    assert web_search.supported(None) is True
    monkeypatch.setenv("TUI_AGENT_WEB_SEARCH", "1")
    assert web_search.supported("http://localhost:8080") is True


async def test_an_endpoint_that_refuses_the_tool_gets_the_request_again_without_it(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    refusal = fault(400, "tools.9: Input tag 'web_search_20250305' found using 'type' does not match any of the expected tags")
    scripted = ScriptedModel([refusal, Reply([Text("answer")]), Reply([Text("second")])], web_search=True)
    agent = agent_for(tmp_path, scripted)
    try:
        ended = await agent.run("hi")
        await agent.run("again")
    finally:
        await agent.close()
        web_search._unsupported.clear()
    assert ended.reason == "completed" and ended.result == "answer"
    assert any(t.get("name") == "web_search" for t in scripted.requests[0]["tools"])
    assert all(t.get("name") != "web_search" for r in scripted.requests[1:] for t in r["tools"])
