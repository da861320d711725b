"""AskUserQuestion: Claude Code's schema (1–4 questions of 2–4 options, unique texts and labels), its
tool_result texts for the answers the dialog or an SDK program put in the input, and its flags."""

from __future__ import annotations

from typing import Any

from tui_agent.tools.ask_user_question import NOT_ANSWERED, UNIQUE_MESSAGE, AskUserQuestionTool
from tui_agent.tools.base import ToolContext
from tui_agent.tools.builtin import all_tools

from tests.tools.support import run_tool, text


def question(q: str = "Which library?", header: str = "Library", labels: tuple[str, ...] = ("A", "B"), **extra: Any) -> dict[str, Any]:
    return {"question": q, "header": header, "options": [{"label": l, "description": f"about {l}"} for l in labels], **extra}


class TestSchema:
    def test_claude_codes_fields_and_nothing_else_at_the_top(self) -> None:
        schema = AskUserQuestionTool().input_schema()
        assert schema["required"] == ["questions"]
        assert set(schema["properties"]) == {"questions", "answers", "annotations", "metadata"}
        assert schema["additionalProperties"] is False
        assert schema["properties"]["questions"]["minItems"] == 1 and schema["properties"]["questions"]["maxItems"] == 4

    def test_multi_select_defaults_to_false_and_a_preview_is_optional(self) -> None:
        parsed = AskUserQuestionTool.Input.model_validate({"questions": [question()]})
        q = parsed.questions[0]  # type: ignore[attr-defined]
        assert q.multiSelect is False and q.options[0].preview is None

    async def test_five_questions_are_refused_with_a_clear_message(self, ctx: ToolContext) -> None:
        out = await run_tool(AskUserQuestionTool(), ctx, questions=[question(f"Q{i}?") for i in range(5)])
        assert out.is_error and "questions" in text(out) and "at most 4" in text(out)

    async def test_one_option_is_refused(self, ctx: ToolContext) -> None:
        out = await run_tool(AskUserQuestionTool(), ctx, questions=[question(labels=("Only",))])
        assert out.is_error and "questions[0].options" in text(out) and "at least 2" in text(out)

    async def test_an_unexpected_parameter_is_named(self, ctx: ToolContext) -> None:
        out = await run_tool(AskUserQuestionTool(), ctx, questions=[question()], title="x")
        assert out.is_error and text(out).endswith("An unexpected parameter `title` was provided")

    async def test_the_same_question_twice_is_refused_in_claude_codes_words(self, ctx: ToolContext) -> None:
        out = await run_tool(AskUserQuestionTool(), ctx, questions=[question("Same?"), question("Same?", header="Again")])
        assert out.is_error and text(out).startswith(UNIQUE_MESSAGE) and 'the question "Same?" is asked twice' in text(out)

    async def test_the_same_label_twice_in_one_question_is_refused(self, ctx: ToolContext) -> None:
        out = await run_tool(AskUserQuestionTool(), ctx, questions=[question(labels=("Yes", "No", "Yes"))])
        assert out.is_error and text(out).startswith(UNIQUE_MESSAGE)
        assert 'the label "Yes" appears twice in the question "Which library?"' in text(out)

    async def test_the_same_label_in_two_questions_is_fine(self, ctx: ToolContext) -> None:
        out = await run_tool(AskUserQuestionTool(), ctx, questions=[question("One?"), question("Two?")], answers={"One?": "A"})
        assert not out.is_error

    async def test_a_header_longer_than_twelve_characters_is_accepted_as_claude_code_does(self, ctx: ToolContext) -> None:
        out = await run_tool(AskUserQuestionTool(), ctx, questions=[question(header="A rather long header")], answers={})
        assert not out.is_error


class TestResult:
    async def test_answers_become_claude_codes_sentence(self, ctx: ToolContext) -> None:
        out = await run_tool(
            AskUserQuestionTool(), ctx,
            questions=[question("Which library?"), question("Which features?", labels=("X", "Y", "Z"), multiSelect=True)],
            answers={"Which library?": "B", "Which features?": "X, Z"},
        )
        assert text(out) == (
            'Your questions have been answered: "Which library?"="B", "Which features?"="X, Z". '
            "You can now continue with these answers in mind."
        )
        assert out.data["answers"] == {"Which library?": "B", "Which features?": "X, Z"}
        assert [q["question"] for q in out.data["questions"]] == ["Which library?", "Which features?"]

    async def test_a_program_may_answer_a_multi_select_question_with_a_list(self, ctx: ToolContext) -> None:
        out = await run_tool(AskUserQuestionTool(), ctx, questions=[question(multiSelect=True)], answers={"Which library?": ["A", "B"]})
        assert '"Which library?"="A, B"' in text(out)

    async def test_the_chosen_preview_and_notes_are_quoted(self, ctx: ToolContext) -> None:
        out = await run_tool(
            AskUserQuestionTool(), ctx,
            questions=[question()],
            answers={"Which library?": "A"},
            annotations={"Which library?": {"preview": "[ A ]", "notes": "keep it small"}},
        )
        assert text(out) == (
            'Your questions have been answered: "Which library?"="A" selected preview:\n[ A ] notes: keep it small. '
            "You can now continue with these answers in mind."
        )

    async def test_notes_without_an_option(self, ctx: ToolContext) -> None:
        out = await run_tool(
            AskUserQuestionTool(), ctx, questions=[question()], answers={"Which library?": "(notes only)"},
            annotations={"Which library?": {"notes": "neither"}},
        )
        assert '"Which library?"=(no option selected) notes: neither' in text(out)

    async def test_no_answers_at_all(self, ctx: ToolContext) -> None:
        out = await run_tool(AskUserQuestionTool(), ctx, questions=[question()])
        assert text(out) == NOT_ANSWERED and not out.is_error


class TestFlags:
    def test_it_asks_the_person_is_read_only_and_never_runs_beside_another(self) -> None:
        tool = AskUserQuestionTool()
        parsed = tool.Input.model_validate({"questions": [question()]})
        assert tool.asks_user and tool.is_read_only(parsed) and not tool.is_concurrency_safe(parsed)

    def test_it_is_a_built_in_tool(self) -> None:
        assert "AskUserQuestion" in [t.name for t in all_tools()]

    def test_its_summary_is_the_question_or_the_headers(self) -> None:
        tool = AskUserQuestionTool()
        one = tool.Input.model_validate({"questions": [question()]})
        two = tool.Input.model_validate({"questions": [question(), question("Which db?", header="Database")]})
        assert tool.summarize(one) == "Which library?"
        assert tool.summarize(two) == "2 questions: Library, Database"
