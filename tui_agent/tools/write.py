"""Write: create a file, or replace one the session has read and that has not changed since."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from pydantic import Field

from .base import Tool, ToolContext, ToolError, ToolInput, ToolOutput
from .text_files import UTF8, TextEncoding, decode, encode, path_problem, unified_diff, write_file


class WriteInput(ToolInput):
    file_path: str = Field(description="The absolute path to the file to write (must be absolute, not relative)")
    content: str = Field(description="The content to write to the file")


@dataclass(frozen=True, slots=True)
class _WritePlan:
    path: Path
    before: str | None  # None: the file does not exist yet
    encoding: TextEncoding

    def diff(self, content: str) -> str:
        return unified_diff(self.path, self.before or "", content)


class WriteTool(Tool[WriteInput]):
    name = "Write"
    Input = WriteInput
    description: ClassVar[str] = """Writes a file to the local filesystem.

Usage:
- This tool will overwrite the existing file if there is one at the provided path.
- If this is an existing file, you MUST use the Read tool first to read the file's contents. This tool will fail if you did not read the file first.
- ALWAYS prefer editing existing files in the codebase. NEVER write new files unless explicitly required.
- NEVER proactively create documentation files (*.md) or README files. Only create documentation files if explicitly requested by the User.
- Only use emojis if the user explicitly requests it. Avoid writing emojis to files unless asked.
- Parent directories are created as needed; an existing file keeps its encoding."""

    def input_path(self, input: WriteInput) -> str | None:
        return input.file_path

    async def validate_input(self, input: WriteInput, ctx: ToolContext) -> str | None:
        try:
            _plan(input, ctx)
        except ToolError as e:
            return str(e)
        return None

    async def describe_change(self, input: WriteInput, ctx: ToolContext) -> str | None:
        try:
            return _plan(input, ctx).diff(input.content)
        except ToolError:
            return None

    async def call(self, input: WriteInput, ctx: ToolContext) -> ToolOutput:
        plan = _plan(input, ctx)  # again: the file may have changed while the user was asked
        try:
            data = encode(input.content, plan.encoding)
        except ValueError as e:
            raise ToolError(str(e)) from None
        write_file(ctx, plan.path, data)
        created = plan.before is None
        text = (
            f"File created successfully at: {plan.path}"
            if created
            else f"The file {plan.path} has been updated successfully."
        )
        return ToolOutput(
            text, data={"type": "diff", "path": str(plan.path), "diff": plan.diff(input.content), "created": created}
        )


def _plan(input: WriteInput, ctx: ToolContext) -> _WritePlan:
    problem = path_problem(ctx, input.file_path)
    if problem:
        raise ToolError(problem)
    path = ctx.workspace.resolve(input.file_path)
    if path.is_dir():
        raise ToolError(f"{path} is a directory; Write needs a file path.")
    if not path.exists():
        return _WritePlan(path, None, UTF8)
    reason = ctx.read_state.check_unchanged(path)
    if reason:
        raise ToolError(reason)
    decoded = decode(path.read_bytes())
    if decoded is None:  # a binary file being replaced by text: nothing to keep
        return _WritePlan(path, "", UTF8)
    return _WritePlan(path, *decoded)
