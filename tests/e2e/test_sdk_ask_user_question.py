"""AskUserQuestion end to end. Over the SDK protocol (the real claude-agent-sdk starting tui-agent as its
binary, the scripted model on a port) the questions reach the program's `can_use_tool` in `input`, and the
`updated_input` it answers with carries the answers the model then gets in Claude Code's words; a deny or an
odd answer is reported, not lost. In `-p`, where no one can answer, the tool is not offered at all."""

from __future__ import annotations

from typing import Any

from claude_agent_sdk import PermissionResultAllow, PermissionResultDeny, ResultMessage, ToolPermissionContext, UserMessage, query

from tests.e2e.sdk_support import result_text
from tests.e2e.test_headless import env, run_cli, serve, work  # noqa: F401  (fixtures)
from tui_agent.providers.scripted import Reply, Text, ToolUse

QUESTIONS = [
    {
        "question": "Which database should we use?",
        "header": "Database",
        "options": [
            {"label": "SQLite", "description": "A file beside the app."},
            {"label": "Postgres", "description": "A server, more to run.", "preview": "DATABASE_URL=postgres://localhost/app"},
        ],
        "multiSelect": False,
    },
    {
        "question": "Which checks should CI run?",
        "header": "CI",
        "options": [
            {"label": "Tests", "description": "pytest"},
            {"label": "Lint", "description": "ruff"},
            {"label": "Types", "description": "mypy"},
        ],
        "multiSelect": True,
    },
]


def ask_script() -> list[Any]:
    return [Reply([ToolUse("AskUserQuestion", {"questions": QUESTIONS}, id="ask")]), Reply([Text("noted")])]


async def collect(prompt: str, options: Any) -> list[Any]:
    return [m async for m in query(prompt=prompt, options=options)]


async def test_the_program_gets_the_questions_and_its_answers_reach_the_model(make_run) -> None:
    run = make_run(ask_script())
    asked: list[tuple[str, dict[str, Any]]] = []

    async def can_use_tool(name: str, tool_input: dict[str, Any], ctx: ToolPermissionContext):
        asked.append((name, tool_input))
        answers = {"Which database should we use?": "Postgres", "Which checks should CI run?": ["Tests", "Types"]}
        return PermissionResultAllow(updated_input={**tool_input, "answers": answers})

    messages = await collect("set up the project", run.options(can_use_tool=can_use_tool))

    assert "AskUserQuestion" in [t["name"] for t in run.requests[0]["tools"]]
    assert asked == [("AskUserQuestion", {"questions": QUESTIONS})]
    result = run.tool_results(1)["ask"]
    assert not result.get("is_error")
    assert result_text(result) == (
        'Your questions have been answered: "Which database should we use?"="Postgres", '
        '"Which checks should CI run?"="Tests, Types". You can now continue with these answers in mind.'
    )
    assert isinstance(messages[-1], ResultMessage) and messages[-1].subtype == "success"
    # The SDK's UserMessage carries Claude Code's AskUserQuestionOutput: the questions and the answers given.
    carried = [m.tool_use_result for m in messages if isinstance(m, UserMessage) and m.tool_use_result]
    assert carried == [{"questions": QUESTIONS, "answers": {"Which database should we use?": "Postgres",
                                                            "Which checks should CI run?": "Tests, Types"}}]


async def test_an_allow_without_answers_tells_the_model_nothing_was_answered(make_run) -> None:
    run = make_run(ask_script())

    async def can_use_tool(name: str, tool_input: dict[str, Any], ctx: ToolPermissionContext):
        return PermissionResultAllow()

    await collect("set up the project", run.options(can_use_tool=can_use_tool))

    assert result_text(run.tool_results(1)["ask"]) == "The user did not answer the questions."


async def test_a_deny_is_the_user_declining_with_the_programs_words(make_run) -> None:
    run = make_run(ask_script())

    async def can_use_tool(name: str, tool_input: dict[str, Any], ctx: ToolPermissionContext):
        return PermissionResultDeny(message="Pick whatever is simplest.")

    await collect("set up the project", run.options(can_use_tool=can_use_tool))

    denied = run.tool_results(1)["ask"]
    assert denied["is_error"] and "doesn't want to proceed" in result_text(denied)
    assert "Pick whatever is simplest." in result_text(denied)


async def test_an_odd_answer_from_the_program_is_reported_to_the_model(make_run) -> None:
    run = make_run(ask_script())

    async def can_use_tool(name: str, tool_input: dict[str, Any], ctx: ToolPermissionContext):
        return PermissionResultAllow(updated_input={**tool_input, "answers": {"Which database should we use?": 3}})

    messages = await collect("set up the project", run.options(can_use_tool=can_use_tool))

    odd = run.tool_results(1)["ask"]
    assert odd["is_error"] and "The input given in place of the model's is invalid" in result_text(odd)
    assert "answers" in result_text(odd)
    assert isinstance(messages[-1], ResultMessage) and messages[-1].subtype == "success"  # the run went on


def test_print_mode_does_not_offer_it(env, work):  # noqa: F811  (fixtures)
    with serve([Reply([Text("ok")])], env) as server:
        proc = run_cli(["-p", "hi"], env, work)
    assert proc.returncode == 0, proc.stderr
    offered = [t["name"] for t in server.model.requests[0].get("tools", [])]
    assert "Read" in offered and "AskUserQuestion" not in offered
