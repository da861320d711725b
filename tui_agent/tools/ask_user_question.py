"""AskUserQuestion: the model asks the person 1–4 multiple-choice questions (Claude Code's name, schema and
tool_result texts, as in its 2.1.197 `sdk-tools.d.ts` and bundle).

The tool itself asks nothing: it is a question to the person (`asks_user`), so the core always asks, and
whoever answers (the app's dialog, ui/screens/question.py, or an SDK program's `can_use_tool`) allows the
call with `updated_input` = the questions plus `answers` (question text → the chosen label; several labels
joined with ", "; the text typed under "Other"). `call` turns those answers into Claude Code's words.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .base import Tool, ToolContext, ToolInput, ToolOutput

NAME = "AskUserQuestion"
HEADER_MAX_CHARS = 12
"""Claude Code asks for a header of at most 12 characters but does not refuse a longer one; neither do we."""
NOTES_ONLY = "(notes only)"
"""Claude Code's answer for a question the person only wrote notes on (no option chosen)."""
UNIQUE_MESSAGE = "Question texts must be unique, option labels must be unique within each question"
NOT_ANSWERED = "The user did not answer the questions."

DESCRIPTION = """Use this tool only when you are blocked on a decision that is genuinely the user's to make: one you cannot resolve from the request, the code, or sensible defaults.

Usage notes:
- Users will always be able to select "Other" to provide custom text input
- Use multiSelect: true to allow multiple answers to be selected for a question
- If you recommend a specific option, make that the first option in the list and add "(Recommended)" at the end of the label

Plan mode note: To switch into plan mode, use EnterPlanMode (not this tool). Once in plan mode, use this tool to clarify requirements or choose between approaches BEFORE finalizing your plan. Do NOT use this tool to ask "Is my plan ready?", "Should I proceed?", or otherwise reference "the plan" in questions \u2014 the user cannot see the plan until you call ExitPlanMode for approval.

Preview feature:
Use the optional `preview` field on options when presenting concrete artifacts that users need to visually compare:
- ASCII mockups of UI layouts or components
- Code snippets showing different implementations
- Diagram variations
- Configuration examples

Preview content is rendered as markdown in a monospace box. Multi-line text with newlines is supported. When any option has a preview, the UI switches to a side-by-side layout with a vertical option list on the left and preview on the right. Do not use previews for simple preference questions where labels and descriptions suffice. Note: previews are only supported for single-select questions (not multiSelect).
"""

# Claude Code's nested objects drop unknown keys (zod `object`); only the top level is strict.
_NESTED = ConfigDict(extra="ignore", strict=True)


class QuestionOption(BaseModel):
    model_config = _NESTED
    label: str = Field(
        description="The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice."
    )
    description: str = Field(
        description="Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications."
    )
    preview: str | None = Field(
        default=None,
        description="Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.",
    )


class Question(BaseModel):
    model_config = _NESTED
    question: str = Field(
        description='The complete question to ask the user. Should be clear, specific, and end with a question mark. Example: "Which library should we use for date formatting?" If multiSelect is true, phrase it accordingly, e.g. "Which features do you want to enable?"'
    )
    header: str = Field(
        description=f'Very short label displayed as a chip/tag (max {HEADER_MAX_CHARS} chars). Examples: "Auth method", "Library", "Approach".'
    )
    options: list[QuestionOption] = Field(
        min_length=2,
        max_length=4,
        description="The available choices for this question. Must have 2-4 options. Each option should be a distinct, mutually exclusive choice (unless multiSelect is enabled). There should be no 'Other' option, that will be provided automatically.",
    )
    multiSelect: bool = Field(
        default=False,
        description="Set to true to allow the user to select multiple options instead of just one. Use when choices are not mutually exclusive.",
    )


class Annotation(BaseModel):
    model_config = _NESTED
    preview: str | None = Field(default=None, description="The preview content of the selected option, if the question used previews.")
    notes: str | None = Field(default=None, description="Free-text notes the user added to their selection.")


class QuestionMetadata(BaseModel):
    model_config = _NESTED
    source: str | None = Field(
        default=None,
        description='Optional identifier for the source of this question (e.g., "remember" for /remember command). Used for analytics tracking.',
    )


class AskUserQuestionInput(ToolInput):
    questions: list[Question] = Field(min_length=1, max_length=4, description="Questions to ask the user (1-4 questions)")
    answers: dict[str, str] | None = Field(default=None, description="User answers collected by the permission component")
    annotations: dict[str, Annotation] | None = Field(
        default=None,
        description="Optional per-question annotations from the user (e.g., notes on preview selections). Keyed by question text.",
    )
    metadata: QuestionMetadata | None = Field(
        default=None, description="Optional metadata for tracking and analytics purposes. Not displayed to user."
    )

    @field_validator("answers", mode="before")
    @classmethod
    def _join_lists(cls, value: Any) -> Any:
        """A program may answer a multi-select question with a list of labels: joined as Claude Code joins them."""
        if isinstance(value, dict):
            return {k: ", ".join(v) if isinstance(v, list) and all(isinstance(s, str) for s in v) else v for k, v in value.items()}
        return value


def duplicate_problem(questions: list[Question]) -> str | None:
    """Claude Code's uniqueness rule, and which text broke it (so the model can fix its call)."""
    seen: set[str] = set()
    for q in questions:
        if q.question in seen:
            return f'{UNIQUE_MESSAGE}: the question "{q.question}" is asked twice.'
        seen.add(q.question)
        labels: set[str] = set()
        for option in q.options:
            if option.label in labels:
                return f'{UNIQUE_MESSAGE}: the label "{option.label}" appears twice in the question "{q.question}".'
            labels.add(option.label)
    return None


def result_text(questions: list[dict[str, Any]], answers: dict[str, str], annotations: dict[str, dict[str, Any]] | None) -> str:
    """Claude Code's tool_result for the answers (its `mapToolResultToToolResultBlockParam`)."""
    parts: list[str] = []
    for q in questions:
        text = q["question"]
        answer = answers.get(text)
        note = (annotations or {}).get(text) or {}
        chosen = bool(answer) and answer != NOTES_ONLY
        if not chosen and not note.get("notes"):
            continue
        pieces = [f'"{text}"="{answer}"' if chosen else f'"{text}"=(no option selected)']
        if note.get("preview"):
            pieces.append(f"selected preview:\n{note['preview']}")
        if note.get("notes"):
            pieces.append(f"notes: {note['notes']}")
        parts.append(" ".join(pieces))
    if not parts:
        return NOT_ANSWERED
    return f"Your questions have been answered: {', '.join(parts)}. You can now continue with these answers in mind."


class AskUserQuestionTool(Tool[AskUserQuestionInput]):
    name = NAME
    Input = AskUserQuestionInput
    asks_user = True
    description: ClassVar[str] = DESCRIPTION

    def is_read_only(self, input: AskUserQuestionInput) -> bool:
        return True

    def is_concurrency_safe(self, input: AskUserQuestionInput) -> bool:
        return False  # two sets of questions at once would only queue dialogs; ask one after the other

    def summarize(self, input: AskUserQuestionInput) -> str:
        if len(input.questions) == 1:
            return input.questions[0].question.splitlines()[0][:200] if input.questions[0].question else ""
        return f"{len(input.questions)} questions: " + ", ".join(q.header for q in input.questions)[:200]

    async def validate_input(self, input: AskUserQuestionInput, ctx: ToolContext) -> str | None:
        return duplicate_problem(input.questions)

    async def call(self, input: AskUserQuestionInput, ctx: ToolContext) -> ToolOutput:
        questions = [q.model_dump(exclude_none=True) for q in input.questions]
        answers = dict(input.answers or {})
        annotations = {k: a.model_dump(exclude_none=True) for k, a in (input.annotations or {}).items()}
        data: dict[str, Any] = {"type": "questions", "questions": questions, "answers": answers}
        if annotations:
            data["annotations"] = annotations
        return ToolOutput(result_text(questions, answers, annotations), data=data)
