"""An MCP rule names one server exactly: `mcp__git`, `mcp__git__*` and `mcp__git__status` never reach the tools of
`mcp__github` (a server whose name starts with another's), in allow, ask and deny, and in the deny that takes a
tool out of the request altogether."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.core.permissions.conftest import Env
from tui_agent.core.permission_types import PermissionCheck
from tui_agent.core.permissions.mcp_rules import covers_mcp_tool, denied_whole
from tui_agent.tools.base import Tool, ToolInput


class McpInput(ToolInput):
    text: str = "x"


def mcp_tool(name: str) -> Tool[McpInput]:
    return type("McpTool", (Tool,), {"name": name, "description": "An MCP tool.", "Input": McpInput})()


GIT, GITHUB, GITLAB = "mcp__git__status", "mcp__github__create_issue", "mcp__git-lab__status"


@pytest.mark.parametrize(
    ("rule", "tool", "covered"),
    [
        ("mcp__git", GIT, True),
        ("mcp__git__*", GIT, True),
        ("mcp__git", GITHUB, False),
        ("mcp__git__*", GITHUB, False),
        ("mcp__git", GITLAB, False),
        ("mcp__github", GIT, False),
        ("mcp__github", GITHUB, True),
        ("mcp__git__status", GIT, False),  # a tool rule: matched by its whole name elsewhere, not as a server
        ("mcp__gi", GIT, False),
        ("Bash", GIT, False),
        ("mcp__git", "Bash", False),
    ],
)
def test_a_server_rule_covers_exactly_that_servers_tools(rule: str, tool: str, covered: bool) -> None:
    assert covers_mcp_tool(rule, tool) is covered


def check(env: Env, name: str) -> PermissionCheck:
    tool = mcp_tool(name)
    inp = tool.Input()
    return PermissionCheck(tool, inp, inp.model_dump(), "toolu_1", env.workspace, False)


@pytest.mark.parametrize("rule", ["mcp__git", "mcp__git__*", "mcp__git__status"])
@pytest.mark.parametrize("kind", ["allow", "deny", "ask"])
async def test_a_rule_for_git_decides_gits_tool_and_leaves_githubs_to_the_default(env: Env, rule: str, kind: str) -> None:
    env.write(env.user_settings, {"permissions": {kind: [rule]}})
    engine = env.engine()
    git = await engine.decide(check(env, GIT))
    github = await engine.decide(check(env, GITHUB))
    assert git.behavior == kind, git
    assert github.behavior == "ask", github  # no rule names it: the default for a tool with effects
    assert env.warnings() == []


@pytest.mark.parametrize("rule", ["mcp__git", "mcp__git__*"])
def test_a_whole_server_deny_for_git_keeps_githubs_tools_in_the_request(env: Env, rule: str) -> None:
    env.write(env.user_settings, {"permissions": {"deny": [rule]}})
    engine = env.engine()
    assert denied_whole(engine, GIT)
    assert not denied_whole(engine, GITHUB)
    assert not denied_whole(engine, GITLAB)


def test_a_github_rule_next_to_a_git_deny_still_allows_github(env: Env, tmp_path: Path) -> None:
    env.write(env.user_settings, {"permissions": {"deny": ["mcp__git"], "allow": ["mcp__github"]}})
    engine = env.engine()
    kinds: dict[str, Any] = {kind: text for kind, text, _ in engine.rules_in_force()}
    assert kinds == {"deny": "mcp__git", "allow": "mcp__github"}
    assert denied_whole(engine, GIT) and not denied_whole(engine, GITHUB)
