"""Running a tool as the executor does: parse the raw input, business check, then call."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from tui_agent.tools.base import Tool, ToolContext, ToolError, ToolOutput
from tui_agent.tools.validation import format_validation_error


async def run_tool(tool: Tool[Any], ctx: ToolContext, **raw: Any) -> ToolOutput:
    """The tool's answer to `raw` (JSON-like input, aliases as the model sends them); failures become
    is_error outputs with the message the model would get."""
    try:
        parsed = tool.Input.model_validate(raw)
    except ValidationError as e:
        return ToolOutput(format_validation_error(tool.name, e), is_error=True)
    problem = await tool.validate_input(parsed, ctx)
    if problem:
        return ToolOutput(problem, is_error=True)
    try:
        return await tool.call(parsed, ctx)
    except ToolError as e:
        return ToolOutput(str(e), is_error=True)


def text(output: ToolOutput) -> str:
    assert isinstance(output.content, str), output.content
    return output.content
