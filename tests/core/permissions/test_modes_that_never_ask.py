"""dontAsk turns every question into a denial (naming why it would have asked) and leaves allows and denials as
they are; a tool that is itself a question to the person (AskUserQuestion) is always put to them, whatever the
mode or allow rules; an ask rule's question names the rule."""

from __future__ import annotations

import pytest

from tui_agent.core.permission_types import PermissionCheck
from tui_agent.core.permissions.engine import DONT_ASK_MESSAGE, USER_ANSWERS_SOURCE
from tui_agent.tools.ask_user_question import AskUserQuestionTool

QUESTION = {"questions": [{"question": "Which port?", "header": "Port", "multiSelect": False,
                           "options": [{"label": "8080", "description": "the usual"}, {"label": "9000", "description": "the other"}]}]}


def ask_user(env, tool_use_id: str = "toolu_q") -> PermissionCheck:
    tool = AskUserQuestionTool()
    inp = tool.Input(**QUESTION)
    return PermissionCheck(tool, inp, QUESTION, tool_use_id, env.workspace, tool.is_read_only(inp))


async def test_dont_ask_denies_what_would_ask_and_says_why(env) -> None:
    engine = env.engine(mode="dontAsk")
    write = env.check("Write", file_path="src/new.py")
    would_ask = await env.engine().decide(env.check("Write", "toolu_0", file_path="src/new.py"))
    assert would_ask.behavior == "ask"
    decision = await engine.decide(write)
    assert (decision.behavior, decision.source) == ("deny", "mode dontAsk")
    assert decision.message == DONT_ASK_MESSAGE.format(tool="Write", why=would_ask.message)
    assert engine.denials == [{"tool_name": "Write", "tool_use_id": "toolu_1", "tool_input": write.raw_input}]


async def test_dont_ask_leaves_allowed_and_denied_calls_as_they_are(env) -> None:
    engine = env.engine(mode="dontAsk", allowed_tools=["Bash(make *)"], disallowed_tools=["Bash(rm *)"])
    assert (await engine.decide(env.check("Bash", "toolu_a", command="make all"))).behavior == "allow"
    assert (await engine.decide(env.check("Read", "toolu_r", file_path="src/a.py"))).behavior == "allow"
    denied = await engine.decide(env.check("Bash", "toolu_d", command="rm -rf build"))
    assert (denied.behavior, denied.source) == ("deny", "Bash(rm *) in --disallowedTools")


@pytest.mark.parametrize("mode", ["default", "acceptEdits", "bypassPermissions", "plan"])
async def test_a_question_to_the_person_is_always_put_to_them(env, mode) -> None:
    engine = env.engine(mode=mode, allowed_tools=["AskUserQuestion"])
    decision = await engine.decide(ask_user(env))
    assert (decision.behavior, decision.source, decision.message) == ("ask", USER_ANSWERS_SOURCE, "AskUserQuestion asks the user.")
    assert decision.suggestions == ()


async def test_an_ask_rule_names_itself_in_the_question(env) -> None:
    env.write(env.project_settings, {"permissions": {"ask": ["Bash(git push *)"]}, })
    engine = env.engine(allowed_tools=["Bash(git *)"])
    decision = await engine.decide(env.check("Bash", command="git push origin main"))
    where = f"Bash(git push *) in {env.project_settings}"
    assert (decision.behavior, decision.source, decision.message) == ("ask", where, f"{where} asks for confirmation.")
    assert decision.suggestions == ()  # an allow rule cannot override an ask rule, so none is offered
