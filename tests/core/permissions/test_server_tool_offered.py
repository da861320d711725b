"""Whether the API's own web search is offered in the next request (`server_tool_offered`): only while no deny
or ask rule names it, bare or with a query, from any settings file or `--disallowedTools`; re-checked per
request, so a rule saved mid-session applies to the next one. With no rules engine (the simple policy) only
the flag counts."""

from __future__ import annotations

import pytest

from tui_agent.core.permission_types import SimplePolicy
from tui_agent.core.permissions.server_tools import server_tool_offered


def test_offered_with_no_rule_an_allow_rule_or_rules_for_other_tools(env) -> None:
    assert server_tool_offered(env.engine(), "WebSearch") is True
    engine = env.engine(allowed_tools=["WebSearch"], disallowed_tools=["WebFetch", "Bash(curl *)"])
    assert server_tool_offered(engine, "WebSearch") is True


@pytest.mark.parametrize("kind, rule", [("deny", "WebSearch"), ("ask", "WebSearch"), ("deny", "WebSearch(weather)"), ("ask", "WebSearch(news)")])
def test_a_deny_or_ask_rule_naming_it_keeps_it_out(env, kind, rule) -> None:
    env.write(env.project_settings, {"permissions": {kind: [rule]}})
    assert server_tool_offered(env.engine(), "WebSearch") is False
    assert server_tool_offered(env.engine(), "WebFetch") is True  # the rule names WebSearch only


def test_the_disallowed_flag_keeps_it_out(env) -> None:
    assert server_tool_offered(env.engine(disallowed_tools=["WebSearch"]), "WebSearch") is False


def test_a_rule_saved_mid_session_applies_to_the_next_request(env) -> None:
    engine = env.engine()
    assert server_tool_offered(engine, "WebSearch") is True
    env.write(env.local_settings, {"permissions": {"deny": ["WebSearch"]}})
    engine.settings.reload(engine.settings.source_for(env.local_settings))
    assert server_tool_offered(engine, "WebSearch") is False


def test_the_simple_policy_counts_the_flag_alone() -> None:
    assert server_tool_offered(SimplePolicy(), "WebSearch") is True
    assert server_tool_offered(SimplePolicy(disallowed_tools={"WebSearch"}), "WebSearch") is False
    assert server_tool_offered(SimplePolicy(disallowed_tools={"WebFetch"}), "WebSearch") is True
