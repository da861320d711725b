"""Small seams around one tool call that front ends and hooks plug into, kept out of the executor.

- `revalidate_input`: an input that replaces the model's (a program's `can_use_tool` answer, a
  PreToolUse hook's `updatedInput`) goes through the same checks as the model's: the tool's pydantic
  model, then its own business check.
- PostToolUse hooks: after a tool succeeds, each registered hook sees the call and its output and may
  add words for the model (`additionalContext`, or a block reason); the tool's effect stays.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Awaitable, Callable

from pydantic import ValidationError

from ..tools.base import Tool, ToolContext, ToolOutput
from ..tools.validation import format_validation_error

_POST_TOOL_USE = "post_tool_use_hooks"


@dataclass(frozen=True, slots=True)
class FinishedCall:
    """What a PostToolUse hook is shown: the call and the tool's own output."""

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


PostToolUseHook = Callable[[FinishedCall], Awaitable[str | None]]
"""Returns words to add to the result the model sees, or None."""


def add_post_tool_use_hook(ctx: ToolContext, hook: PostToolUseHook) -> None:
    ctx.services.setdefault(_POST_TOOL_USE, []).append(hook)


async def after_tool_call(ctx: ToolContext, tool_name: str, tool_input: dict[str, Any], tool_use_id: str, output: ToolOutput) -> ToolOutput:
    """Run the PostToolUse hooks of a successful call; their words are appended to its result."""
    hooks: list[PostToolUseHook] = ctx.services.get(_POST_TOOL_USE) or []
    if not hooks or output.is_error:
        return output
    call = FinishedCall(tool_name, tool_input, tool_use_id, output)
    notes = [note for hook in hooks if (note := await hook(call))]
    if not notes:
        return output
    extra = "\n\n" + "\n".join(notes)
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
