"""Edit: replace an exact string in a file the session has read, keeping its encoding and line endings."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from pydantic import Field

from .base import Tool, ToolContext, ToolError, ToolInput, ToolOutput
from .text_files import (
    UTF8,
    TextEncoding,
    decode,
    encode,
    missing_file_message,
    numbered,
    path_problem,
    split_lines,
    unified_diff,
    uses_crlf,
    write_file,
)

SNIPPET_CONTEXT_LINES = 4
MAX_LISTED_MATCHES = 10

# Models often type straight quotes where the file has typographic ones (or the reverse).
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})


class EditInput(ToolInput):
    file_path: str = Field(description="The absolute path to the file to modify")
    old_string: str = Field(description="The text to replace")
    new_string: str = Field(description="The text to replace it with (must be different from old_string)")
    replace_all: bool = Field(False, description="Replace all occurrences of old_string (default false)")


@dataclass(frozen=True, slots=True)
class _EditPlan:
    path: Path
    before: str  # LF-normalised when the file uses CRLF
    after: str
    encoding: TextEncoding
    crlf: bool
    created: bool
    first_line: int  # 0-based line where the first replacement starts
    new_line_count: int

    def diff(self) -> str:
        return unified_diff(self.path, self.before, self.after)

    def data(self) -> bytes:
        return encode(self.after.replace("\n", "\r\n") if self.crlf else self.after, self.encoding)


class EditTool(Tool[EditInput]):
    name = "Edit"
    Input = EditInput
    description: ClassVar[str] = """Performs exact string replacements in files.

Usage:
- You must use your `Read` tool at least once in the conversation before editing. This tool will error if you attempt an edit without reading the file.
- When editing text from Read tool output, ensure you preserve the exact indentation (tabs/spaces) as it appears AFTER the line number prefix. The line number prefix format is: spaces + line number + tab. Everything after that tab is the actual file content to match. Never include any part of the line number prefix in the old_string or new_string.
- ALWAYS prefer editing existing files in the codebase. NEVER write new files unless explicitly required.
- Only use emojis if the user explicitly requests it. Avoid adding emojis to files unless asked.
- The edit will FAIL if `old_string` is not unique in the file. Either provide a larger string with more surrounding context to make it unique or use `replace_all` to change every instance of `old_string`.
- Use `replace_all` for replacing and renaming strings across the file. This parameter is useful if you want to rename a variable for instance.
- To create a new file, use an empty `old_string` and the file's content as `new_string`.
- The file's encoding and line endings (LF or CRLF) are preserved."""

    def input_path(self, input: EditInput) -> str | None:
        return input.file_path

    async def validate_input(self, input: EditInput, ctx: ToolContext) -> str | None:
        try:
            _plan(input, ctx)
        except ToolError as e:
            return str(e)
        return None

    async def describe_change(self, input: EditInput, ctx: ToolContext) -> str | None:
        try:
            return _plan(input, ctx).diff()
        except ToolError:
            return None

    async def call(self, input: EditInput, ctx: ToolContext) -> ToolOutput:
        plan = _plan(input, ctx)  # again: the file may have changed while the user was asked
        try:
            data = plan.data()
        except ValueError as e:
            raise ToolError(str(e)) from None
        write_file(ctx, plan.path, data)
        if plan.created:
            text = f"File created successfully at: {plan.path}"
        elif input.replace_all:
            text = (
                f"The file {plan.path} has been updated. All occurrences of '{input.old_string}' "
                f"were successfully replaced with '{input.new_string}'."
            )
        else:
            text = (
                f"The file {plan.path} has been updated. Here's the result of running `cat -n` "
                f"on a snippet of the edited file:\n{_snippet(plan)}"
            )
        return ToolOutput(text, data={"type": "diff", "path": str(plan.path), "diff": plan.diff()})


def _plan(input: EditInput, ctx: ToolContext) -> _EditPlan:
    problem = path_problem(ctx, input.file_path)
    if problem:
        raise ToolError(problem)
    if input.old_string == input.new_string:
        raise ToolError("No changes to make: old_string and new_string are exactly the same.")
    path = ctx.workspace.resolve(input.file_path)
    if not path.exists():
        if input.old_string == "":
            return _EditPlan(path, "", input.new_string, UTF8, False, True, 0, _line_span(input.new_string))
        raise ToolError(missing_file_message(path))
    if path.is_dir():
        raise ToolError(f"{path} is a directory; Edit needs a file path.")
    reason = ctx.read_state.check_unchanged(path)
    if reason:
        raise ToolError(reason)
    decoded = decode(path.read_bytes())
    if decoded is None:
        raise ToolError(f"{path} is a binary file; Edit only changes text files.")
    text, encoding = decoded
    crlf = uses_crlf(text)
    # A CRLF file is edited in LF form (what Read showed the model) and written back as CRLF.
    before = text.replace("\r\n", "\n") if crlf else text
    old = input.old_string.replace("\r\n", "\n") if crlf else input.old_string
    new = input.new_string.replace("\r\n", "\n") if crlf else input.new_string

    if old == "":
        if before.strip():
            raise ToolError("Cannot create new file - file already exists.")
        return _EditPlan(path, before, new, encoding, crlf, False, 0, _line_span(new))

    old = _actual_old_string(before, old)
    count = before.count(old)
    if count == 0:
        raise ToolError(f"String to replace not found in file.\nString: {input.old_string}")
    if count > 1 and not input.replace_all:
        raise ToolError(_ambiguous_message(before, old, count, input.old_string))
    start = before.index(old)
    after = before.replace(old, new) if input.replace_all else before.replace(old, new, 1)
    return _EditPlan(path, before, after, encoding, crlf, False, before.count("\n", 0, start), _line_span(new))


def _line_span(new: str) -> int:
    """How many lines the replacement text covers (a final newline ends a line, not starts one)."""
    return max(new.count("\n") + (0 if new.endswith("\n") else 1), 1)


def _actual_old_string(text: str, old: str) -> str:
    """`old` as it appears in `text`, forgiving straight-vs-curly quote differences."""
    if old in text:
        return old
    at = text.translate(_QUOTES).find(old.translate(_QUOTES))
    return text[at : at + len(old)] if at >= 0 else old


def _ambiguous_message(text: str, old: str, count: int, shown: str) -> str:
    starts: list[int] = []
    at = text.find(old)
    while at >= 0 and len(starts) < MAX_LISTED_MATCHES:
        starts.append(at)
        at = text.find(old, at + len(old))
    lines = text.split("\n")
    listed = []
    for start in starts:
        n = text.count("\n", 0, start)
        listed.append(f"  line {n + 1}: {lines[n].strip()[:200]}")
    more = f"\n  ... and {count - len(starts)} more" if count > len(starts) else ""
    return (
        f"Found {count} matches of the string to replace, but replace_all is false. To replace all occurrences, "
        "set replace_all to true. To replace only one occurrence, please provide more context to uniquely "
        f"identify the instance.\nString: {shown}\nMatches:\n" + "\n".join(listed) + more
    )


def _snippet(plan: _EditPlan) -> str:
    lines = split_lines(plan.after)
    first = max(plan.first_line - SNIPPET_CONTEXT_LINES, 0)
    last = min(plan.first_line + plan.new_line_count + SNIPPET_CONTEXT_LINES, len(lines))
    return numbered(lines[first:last], first + 1)
