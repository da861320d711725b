"""Grep: search file contents with ripgrep; list files (newest first), matching lines, or counts."""

from __future__ import annotations

import asyncio
import os
from typing import ClassVar, Literal

from pydantic import Field

from .base import Tool, ToolContext, ToolError, ToolInput, ToolOutput
from .os_names import rg_glob
from .ripgrep import NO_MATCH, run_rg

_VCS_DIRS = (".git", ".svn", ".hg", ".bzr", ".jj")
MAX_COLUMNS = 500

OutputMode = Literal["content", "files_with_matches", "count"]


class GrepInput(ToolInput):
    pattern: str = Field(description="The regular expression pattern to search for in file contents")
    path: str | None = Field(
        None, description="File or directory to search in (rg PATTERN -- PATH). Defaults to current working directory."
    )
    glob: str | None = Field(
        None, description='Glob pattern to filter files (e.g. "*.js", "*.{ts,tsx}") - maps to rg --glob'
    )
    file_type: str | None = Field(
        None,
        alias="type",
        description=(
            "File type to search (rg --type). Common types: js, py, rust, go, java, etc. "
            "More efficient than include for standard file types."
        ),
    )
    output_mode: OutputMode = Field(
        "files_with_matches",
        description=(
            'Output mode: "content" shows matching lines (supports -A/-B/-C context, -n line numbers, '
            'head_limit), "files_with_matches" shows file paths (supports head_limit), "count" shows match '
            'counts (supports head_limit). Defaults to "files_with_matches".'
        ),
    )
    case_insensitive: bool = Field(False, alias="-i", description="Case insensitive search (rg -i)")
    line_numbers: bool = Field(
        True, alias="-n", description='Show line numbers in output (rg -n). Requires output_mode: "content", ignored otherwise.'
    )
    after: int | None = Field(
        None,
        ge=0,
        alias="-A",
        description='Number of lines to show after each match (rg -A). Requires output_mode: "content", ignored otherwise.',
    )
    before: int | None = Field(
        None,
        ge=0,
        alias="-B",
        description='Number of lines to show before each match (rg -B). Requires output_mode: "content", ignored otherwise.',
    )
    context: int | None = Field(
        None,
        ge=0,
        alias="-C",
        description=(
            'Number of lines to show before and after each match (rg -C). Requires output_mode: "content", '
            "ignored otherwise."
        ),
    )
    multiline: bool = Field(
        False,
        description="Enable multiline mode where . matches newlines and patterns can span lines (rg -U --multiline-dotall). Default: false.",
    )
    head_limit: int | None = Field(
        None,
        ge=1,
        description=(
            'Limit output to first N lines/entries, equivalent to "| head -N". Works across all output modes: '
            "content (limits output lines), files_with_matches (limits file paths), count (limits count entries). "
            "When unspecified, shows all results from ripgrep."
        ),
    )


class GrepTool(Tool[GrepInput]):
    name = "Grep"
    Input = GrepInput
    max_result_size_chars = 20_000
    description: ClassVar[str] = """A powerful search tool built on ripgrep

  Usage:
  - ALWAYS use Grep for search tasks. NEVER invoke `grep` or `rg` as a Bash command. The Grep tool has been optimized for correct permissions and access.
  - Supports full regex syntax (e.g., "log.*Error", "function\\s+\\w+")
  - Filter files with glob parameter (e.g., "*.js", "**/*.tsx") or type parameter (e.g., "js", "py", "rust")
  - Output modes: "content" shows matching lines, "files_with_matches" shows only file paths (default, newest first), "count" shows match counts
  - Pattern syntax: Uses ripgrep (not grep) - literal braces need escaping (use `interface\\{\\}` to find `interface{}` in Go code)
  - Multiline matching: By default patterns match within single lines only. For cross-line patterns like `struct \\{[\\s\\S]*?field`, use `multiline: true`
  - Paths in results are absolute. Hidden files are searched; .gitignore is respected."""

    def is_read_only(self, input: GrepInput) -> bool:
        return True

    def input_path(self, input: GrepInput) -> str | None:
        return input.path

    async def validate_input(self, input: GrepInput, ctx: ToolContext) -> str | None:
        if input.path is None:
            return None
        if not ctx.workspace.resolve(input.path).exists():
            return f"Path does not exist: {input.path}"
        return None

    async def call(self, input: GrepInput, ctx: ToolContext) -> ToolOutput:
        target = ctx.workspace.resolve(input.path) if input.path else ctx.workspace.root
        mode = input.output_mode
        # In content mode head_limit lets us stop rg early; the other modes need every file first.
        max_lines = input.head_limit if mode == "content" else None
        result = await run_rg(_rg_args(input, str(target)), cwd=ctx.workspace.root, max_lines=max_lines)
        if result.returncode not in (0, NO_MATCH) and not result.lines:
            raise ToolError(f"Grep failed: {result.stderr.strip() or f'rg exited with {result.returncode}'}")
        lines = result.lines
        if mode == "files_with_matches":
            if not lines:
                return ToolOutput("No files found")
            files = await _newest_first(lines)
            shown = files[: input.head_limit] if input.head_limit else files
            header = f"Found {len(files)} file{'s' if len(files) != 1 else ''}"
            if len(shown) < len(files):
                header += f" (showing the first {len(shown)})"
            return ToolOutput(header + "\n" + "\n".join(shown))
        if not lines:
            return ToolOutput("No matches found")
        if mode == "count":
            total = sum(_counts(lines))
            shown = lines[: input.head_limit] if input.head_limit else lines
            summary = (
                f"Found {total} total occurrence{'s' if total != 1 else ''} "
                f"across {len(lines)} file{'s' if len(lines) != 1 else ''}."
            )
            return ToolOutput("\n".join(shown) + "\n\n" + summary)
        text = "\n".join(lines)
        if result.truncated:
            text += f"\n\n(Output limited to the first {input.head_limit} lines by head_limit.)"
        return ToolOutput(text)


def _rg_args(input: GrepInput, target: str) -> list[str]:
    args = ["--hidden", "--max-columns", str(MAX_COLUMNS), "--max-columns-preview"]
    for folder in _VCS_DIRS:
        args += ["--glob", f"!{folder}"]
    if input.case_insensitive:
        args.append("-i")
    if input.multiline:
        args += ["-U", "--multiline-dotall"]
    if input.file_type:
        args += ["--type", input.file_type]
    for pattern in _split_globs(input.glob or ""):
        args += ["--glob", rg_glob(pattern)]  # `\xNN`: a byte of a name, as the tools show it (os_names)
    if input.output_mode == "files_with_matches":
        args.append("--files-with-matches")
    elif input.output_mode == "count":
        args += ["--count-matches", "--with-filename"]
    else:
        if input.line_numbers:
            args.append("--line-number")
        if input.context is not None:
            args += ["-C", str(input.context)]
        if input.before is not None:
            args += ["-B", str(input.before)]
        if input.after is not None:
            args += ["-A", str(input.after)]
    # -e: a pattern starting with "-" is still a pattern; "--": so is a path.
    return [*args, "-e", input.pattern, "--", target]


def _split_globs(spec: str) -> list[str]:
    """'*.js, *.{ts,tsx} src/**' -> ['*.js', '*.{ts,tsx}', 'src/**']: split on spaces and commas outside braces."""
    globs: list[str] = []
    current = ""
    depth = 0
    for ch in spec:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(depth - 1, 0)
        if depth == 0 and (ch.isspace() or ch == ","):
            if current:
                globs.append(current)
            current = ""
        else:
            current += ch
    if current:
        globs.append(current)
    return globs


def _counts(lines: list[str]) -> list[int]:
    """The counts of `path:count` lines (a path may itself hold colons: split at the last)."""
    counts = [line.rpartition(":")[2] for line in lines]
    return [int(c) if c.isdigit() else 0 for c in counts]


# Past this many paths, stat them in a worker thread rather than on the event loop.
_STAT_IN_THREAD_ABOVE = 2000


async def _newest_first(paths: list[str]) -> list[str]:
    """`paths` by modification time, newest first (ties by name), as files_with_matches lists them."""
    if len(paths) > _STAT_IN_THREAD_ABOVE:
        return await asyncio.to_thread(_sort_by_mtime, paths)
    return _sort_by_mtime(paths)


def _sort_by_mtime(paths: list[str]) -> list[str]:
    stat = os.stat

    def newest(path: str) -> int:
        try:
            return -stat(path).st_mtime_ns
        except OSError:
            return 0

    ordered = sorted(paths)  # ties keep name order: the sort below is stable
    ordered.sort(key=newest)
    return ordered
