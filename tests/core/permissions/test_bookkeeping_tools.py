"""The agent's own bookkeeping tools (TodoWrite, BashOutput, KillShell of its own shells) never ask, in any
mode, headless included; only a rule the user wrote for the tool can stop them (issue 10, finding 6)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.core.support import assert_history_valid
from tui_agent.core.permission_types import PermissionAnswer, PermissionRequest
from tui_agent.providers.scripted import Reply, Text, ToolUse
from tui_agent.tools.registry import default_tools

TODOS = {"todos": [{"content": "Look around", "status": "in_progress", "activeForm": "Looking around"}]}


def _script() -> list[Any]:
    return [
        Reply([ToolUse("Bash", {"command": "sleep 30", "run_in_background": True}, id="bg")]),
        Reply([
            ToolUse("TodoWrite", TODOS, id="todo"),
            ToolUse("BashOutput", {"bash_id": "bash_1"}, id="out"),
        ]),
        Reply([ToolUse("KillShell", {"shell_id": "bash_1"}, id="kill")]),
        Reply([Text("done")]),
    ]


def _results(history: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {
        b["tool_use_id"]: b
        for m in history
        if m["role"] == "user" and isinstance(m["content"], list)
        for b in m["content"]
        if b["type"] == "tool_result"
    }


@pytest.mark.parametrize("mode", ["default", "plan", "acceptEdits"])
async def test_bookkeeping_tools_run_headless_without_a_denial(make_harness, mode) -> None:
    """No one to ask (ask=None, as in `-p`): the todo list and the session's own shell tools still run."""
    h = make_harness(_script(), tools=default_tools(), permission_mode=mode)
    ended = await h.agent.run("go")
    await h.agent.close()
    assert ended.reason == "completed", ended
    assert ended.permission_denials == ()
    results = _results(h.agent.history)
    for tool_use_id in ("todo", "out", "kill"):
        assert not results[tool_use_id].get("is_error"), results[tool_use_id]
    assert "Successfully killed shell: bash_1" in str(results["kill"]["content"])
    assert_history_valid(h.agent.history)


async def test_bookkeeping_tools_never_open_the_dialog(make_harness) -> None:
    asked: list[PermissionRequest] = []

    async def ask(request: PermissionRequest) -> PermissionAnswer:
        asked.append(request)
        return PermissionAnswer("deny")

    h = make_harness(_script(), tools=default_tools(), ask=ask)
    ended = await h.agent.run("go")
    await h.agent.close()
    assert ended.reason == "completed" and asked == []


@pytest.mark.parametrize("mode", ["default", "bypassPermissions"])
async def test_a_deny_rule_the_user_wrote_still_applies(make_harness, mode) -> None:
    h = make_harness(
        [Reply([ToolUse("TodoWrite", TODOS, id="todo")]), Reply([Text("ok")])],
        tools=default_tools(),
        permission_mode=mode,
        disallowed_tools=["TodoWrite"],
    )
    ended = await h.agent.run("go")
    assert [d["tool_name"] for d in ended.permission_denials] == ["TodoWrite"]
    assert _results(h.agent.history)["todo"]["is_error"] is True


async def test_an_ask_rule_the_user_wrote_still_asks(make_harness, tmp_path) -> None:
    settings = tmp_path / "s.json"
    settings.write_text('{"permissions": {"ask": ["KillShell"]}}')
    asked: list[str] = []

    async def ask(request: PermissionRequest) -> PermissionAnswer:
        asked.append(request.tool_name)
        return PermissionAnswer("allow_once")

    h = make_harness(_script(), tools=default_tools(), ask=ask, settings_file=settings)
    ended = await h.agent.run("go")
    await h.agent.close()
    assert ended.reason == "completed" and asked == ["KillShell"]


async def test_killshell_of_a_shell_that_is_not_the_sessions_is_refused(make_harness) -> None:
    h = make_harness([Reply([ToolUse("KillShell", {"shell_id": "bash_7"}, id="kill")]), Reply([Text("ok")])], tools=default_tools())
    await h.agent.run("go")
    result = _results(h.agent.history)["kill"]
    assert result["is_error"] is True and "No shell found with ID: bash_7" in str(result["content"])
