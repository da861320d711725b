"""Small seams around one tool call that front ends and hooks plug into, kept out of the executor.

- `revalidate_input`: an input that replaces the model's (a program's `can_use_tool` answer, a
  PreToolUse hook's `updatedInput`) goes through the same checks as the model's: the tool's pydantic
  model, then its own business check.
- `after_tool_call`: PostToolUse (a success) or PostToolUseFailure (an error) hooks see the call, the input
  that ran and the output, and may add words for the model (`additionalContext`, or a block reason); the
  tool's effect stays.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from ..tools.base import Tool, ToolContext, ToolOutput
from ..tools.validation import format_validation_error


@dataclass(frozen=True, slots=True)
class FinishedCall:
    """What a PostToolUse hook is shown: the call (with the input that ran) and the tool's own output."""

    tool_name: str
    tool_input: dict[str, Any]
    tool_use_id: str
    output: ToolOutput

    @property
    def tool_response(self) -> Any:
        """The tool's structured result where it has one (Claude Code's `tool_response`), else its text."""
        data = self.output.data
        if isinstance(data, dict):
            return {**data, "content": self.output.content}
        return self.output.content

    @property
    def error(self) -> str:
        """A failed call's error as PostToolUseFailure shows it: the text, without the model's error tags."""
        content = self.output.content
        text = content if isinstance(content, str) else "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
        return text.removeprefix("<tool_use_error>").removesuffix("</tool_use_error>")


async def after_tool_call(ctx: ToolContext, tool_name: str, tool_input: dict[str, Any], tool_use_id: str, output: ToolOutput,
                          duration_ms: int | None = None) -> ToolOutput:
    """PostToolUse (a success) or PostToolUseFailure (an error) through the session's hook dispatcher
    (core/hook_events.py); what the hooks say for the model is appended to the result. `tool_input` is
    the input that ran (a program's or a PreToolUse hook's replacement, not the model's)."""
    from .hook_events import agent_fields, dispatcher_of, fire

    dispatcher = dispatcher_of(ctx.services)
    event = "PostToolUseFailure" if output.is_error else "PostToolUse"
    if dispatcher is None or not dispatcher.has(event, tool_name):
        return output
    call = FinishedCall(tool_name, tool_input, tool_use_id, output)
    fields: dict[str, Any] = {"tool_name": tool_name, "tool_input": tool_input, **agent_fields(ctx.services)}
    if output.is_error:
        fields.update(error=call.error, is_interrupt=False)
    else:
        fields["tool_response"] = call.tool_response
    if duration_ms is not None:
        fields["duration_ms"] = duration_ms
    result = await fire(ctx.services, event, tool_use_id=tool_use_id, **fields)
    dispatcher.note_stop(result)
    note = result.feedback()
    if not note:
        return output
    extra = "\n\n" + note
    content = output.content
    if isinstance(content, str):
        content = content + extra
    else:
        content = [*content, {"type": "text", "text": extra.strip()}]
    return ToolOutput(content, output.is_error, output.data, full_output_path=output.full_output_path)


async def revalidate_input(tool: Tool[Any], raw: dict[str, Any], ctx: ToolContext) -> tuple[Any, str | None]:
    """(the validated input, None) or (None, the problem as the model would be told it)."""
    try:
        parsed = tool.Input.model_validate(raw)
    except ValidationError as exc:
        return None, "The input given in place of the model's is invalid: " + format_validation_error(tool.name, exc)
    problem = await tool.validate_input(parsed, ctx)
    return (None, problem) if problem else (parsed, None)
