"""Deferred loading: MCP tools behind ToolSearch with the beta, and the fallback when there is no beta."""

from __future__ import annotations

from tests.core.support import assert_history_valid
from tests.mcp.conftest import mcp_dynamic, stdio_entry
from tui_agent.core.mcp import mcp_manager
from tui_agent.core.mcp.deferred import BETA, ToolSearchSettings, fallback_request
from tui_agent.core.permission_types import PermissionAnswer
from tui_agent.providers.scripted import Reply, Text, ToolUse


async def allow_all(request):
    return PermissionAnswer("allow_once")


def script():
    return [
        Reply([ToolUse("ToolSearch", {"query": "select:mcp__s__add"})]),
        Reply([ToolUse("mcp__s__add", {"a": 2, "b": 2})]),
        Reply([Text("four")]),
    ]


class TestSettings:
    def test_enable_tool_search_values_and_the_threshold(self):
        big = [{"name": f"t{i}", "description": "d" * 4000, "input_schema": {}} for i in range(25)]  # ~25k tokens
        small = big[:1]
        assert ToolSearchSettings(None, None).should_defer(big)
        assert not ToolSearchSettings(None, None).should_defer(small)
        assert ToolSearchSettings("auto:0.4", None).should_defer(small)
        assert ToolSearchSettings("true", None).should_defer(small)
        assert not ToolSearchSettings("false", None).should_defer(big)

    def test_the_beta_is_used_for_anthropic_or_when_asked_and_never_after_a_refusal(self):
        assert ToolSearchSettings(None, None).use_beta
        assert ToolSearchSettings(None, "https://api.anthropic.com").use_beta
        assert not ToolSearchSettings(None, "http://127.0.0.1:8080").use_beta
        assert ToolSearchSettings("true", "http://127.0.0.1:8080").use_beta
        refused = ToolSearchSettings("true", None)
        refused.refused = True
        assert not refused.use_beta


class TestBeta:
    async def test_tools_are_deferred_found_with_tool_search_and_called(self, make_agent, monkeypatch):
        monkeypatch.setenv("ENABLE_TOOL_SEARCH", "true")
        h = make_agent(script(), ask=allow_all, mcp_config=mcp_dynamic(("s", stdio_entry())))
        await mcp_manager(h.agent).wait_all()
        try:
            ended = await h.agent.run("add 2 and 2")
        finally:
            await h.agent.close()
        assert ended.reason == "completed" and ended.result == "four"
        first = h.requests[0]
        assert BETA in h.model.request_headers[0]["anthropic-beta"]
        tools = {t["name"]: t for t in first["tools"]}
        assert "ToolSearch" in tools and not tools["ToolSearch"].get("defer_loading")
        assert tools["Bash"].get("defer_loading") is None
        assert all(tools[n]["defer_loading"] is True for n in tools if n.startswith("mcp__s__"))
        names = first["messages"][0]["content"][0]["text"]
        assert names.startswith("<available-deferred-tools>") and "mcp__s__add" in names
        # ToolSearch answered with a tool_reference block, kept so in the history.
        search_result = h.requests[1]["messages"][-1]["content"][0]
        assert search_result["content"] == [{"type": "tool_reference", "tool_name": "mcp__s__add"}]
        assert h.requests[2]["messages"][-1]["content"][0]["content"].startswith('{"sum":4')
        assert_history_valid(h.agent.history)

    async def test_keyword_search_ranks_names_first(self, make_agent, monkeypatch):
        monkeypatch.setenv("ENABLE_TOOL_SEARCH", "true")
        h = make_agent([Reply([ToolUse("ToolSearch", {"query": "echo text", "max_results": 2})]), Reply([Text("ok")])], ask=allow_all, mcp_config=mcp_dynamic(("s", stdio_entry())))
        await mcp_manager(h.agent).wait_all()
        try:
            await h.agent.run("find")
        finally:
            await h.agent.close()
        refs = h.requests[1]["messages"][-1]["content"][0]["content"]
        assert refs[0] == {"type": "tool_reference", "tool_name": "mcp__s__echo"} and len(refs) <= 2

    async def test_small_tool_sets_are_not_deferred_by_default(self, make_agent):
        h = make_agent([Reply([Text("ok")])], mcp_config=mcp_dynamic(("s", stdio_entry())))
        await mcp_manager(h.agent).wait_all()
        try:
            await h.agent.run("hi")
        finally:
            await h.agent.close()
        names = [t["name"] for t in h.requests[0]["tools"]]
        assert "ToolSearch" not in names and "mcp__s__add" in names
        assert "anthropic-beta" not in h.model.request_headers[0]


class TestFallback:
    async def test_an_endpoint_that_refuses_the_beta_gets_the_found_definitions_from_the_loop(self, make_agent, monkeypatch):
        monkeypatch.setenv("ENABLE_TOOL_SEARCH", "true")
        h = make_agent(script(), ask=allow_all, refuse_betas=True, mcp_config=mcp_dynamic(("s", stdio_entry())))
        await mcp_manager(h.agent).wait_all()
        try:
            ended = await h.agent.run("add 2 and 2")
        finally:
            await h.agent.close()
        assert ended.reason == "completed" and ended.result == "four"
        assert h.model.refused == 1  # one refusal, then never the beta again
        accepted = [r for r, hd in zip(h.requests, h.model.request_headers) if "anthropic-beta" not in hd]
        assert len(accepted) == 3
        first, second = accepted[0], accepted[1]
        assert [t["name"] for t in first["tools"] if t["name"].startswith("mcp__")] == []
        assert "mcp__s__add" in first["messages"][0]["content"][0]["text"]  # still named for the model
        assert [t["name"] for t in second["tools"] if t["name"].startswith("mcp__")] == ["mcp__s__add"]
        assert not any("defer_loading" in t for t in second["tools"])
        text = second["messages"][-1]["content"][0]["content"][0]
        assert text["type"] == "text" and "mcp__s__add" in text["text"]
        # The history keeps the tool_reference: only the request was rewritten.
        assert h.agent.history[2]["content"][0]["content"] == [{"type": "tool_reference", "tool_name": "mcp__s__add"}]
        assert any("refused the tool-search beta" in getattr(e, "text", "") for e in h.events)

    async def test_a_non_anthropic_base_url_defers_without_the_beta(self, make_agent, monkeypatch):
        h = make_agent(script(), ask=allow_all, base_url="http://127.0.0.1:9", mcp_config=mcp_dynamic(("s", stdio_entry())))
        search = h.agent.registry.search
        assert not search.use_beta  # ENABLE_TOOL_SEARCH unset and a base URL that is not Anthropic's
        search.percent = 0  # the server's few tools stand in for a set too big for the context
        await mcp_manager(h.agent).wait_all()
        try:
            ended = await h.agent.run("add")
        finally:
            await h.agent.close()
        assert ended.result == "four" and h.model.refused == 0
        assert all("anthropic-beta" not in hd for hd in h.model.request_headers)
        assert [t["name"] for t in h.requests[1]["tools"] if t["name"].startswith("mcp__")] == ["mcp__s__add"]

    def test_fallback_request_is_a_pure_rewrite(self):
        request = {
            "tools": [{"name": "Bash"}, {"name": "mcp__s__a", "defer_loading": True}, {"name": "mcp__s__b", "defer_loading": True}],
            "messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "x", "content": [{"type": "tool_reference", "tool_name": "mcp__s__b"}]}]}],
            "extra_headers": {"anthropic-beta": BETA},
        }
        out = fallback_request(request)
        assert out["tools"] == [{"name": "Bash"}, {"name": "mcp__s__b"}]
        assert "extra_headers" not in out
        assert request["tools"][2]["defer_loading"] is True  # the input is untouched
