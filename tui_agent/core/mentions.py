"""@-mentions in a prompt: each mentioned file or folder is attached before the prompt, as Claude Code
attaches it on the plain API.

A file becomes two `<system-reminder>` text blocks: "Called the Read tool with the following input:
{"file_path": ...}" and "Result of calling the Read tool:" with what Read returns (numbered lines, a big
file cut to its first lines as Read cuts it). A folder becomes the same pair for a Bash `ls` and its
listing. The file counts as read (Edit may follow at once). A mention that names nothing is left as text.
`@server:uri` attaches an MCP resource instead (core/mcp/resource_mentions.py).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..tools.base import ToolContext, ToolError
from ..tools.os_names import for_model, for_model_deep
from .access import gate_of

# `@path` (up to whitespace) or `@"path with spaces"`, at the start or after whitespace.
MENTION_RE = re.compile(r'(?:^|(?<=\s))@(?:"(?P<quoted>[^"\n]+)"|(?P<bare>[^\s"]+))')
_TRAILING_PUNCTUATION = ".,;:!?)]}'"


def system_reminder(text: str) -> str:
    return f"<system-reminder>\n{text}\n</system-reminder>"


def _called(tool: str, tool_input: dict[str, Any]) -> str:
    # A name that is not UTF-8 as `\xNN` (os_names) before it is JSON: the model reads the escape, not `\udcXX`.
    return f"Called the {tool} tool with the following input: {json.dumps(for_model_deep(tool_input), ensure_ascii=False, separators=(',', ':'))}"


def _result(tool: str, text: str) -> str:
    return f"Result of calling the {tool} tool:\n{text}"


@dataclass(slots=True)
class Attachments:
    """What the mentions of one prompt became: API blocks to put before it, and problems to tell the user."""

    blocks: list[dict[str, Any]] = field(default_factory=list)
    paths: list[Path] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def mentioned_paths(text: str) -> list[str]:
    """The raw paths mentioned in `text`, in order, each once."""
    found = [m["quoted"] or m["bare"] for m in MENTION_RE.finditer(text)]
    return list(dict.fromkeys(found))


def _existing(raw: str, ctx: ToolContext) -> Path | None:
    """The mentioned path resolved in the workspace; sentence punctuation after it is tolerated."""
    candidate = raw
    while candidate:
        path = ctx.workspace.resolve(candidate)
        if path.exists():
            return path
        if candidate[-1] not in _TRAILING_PUNCTUATION:
            return None
        candidate = candidate[:-1]
    return None


async def attach_mentions(text: str, ctx: ToolContext) -> Attachments:
    """Read every file and list every folder that `text` mentions that the gate (core/access.py) lets the
    model see: inside the working folders or named by a Read allow rule, and no deny or ask rule on it."""
    from ..tools.read import ReadTool

    out = Attachments()
    read = ReadTool()
    gate = gate_of(ctx.services, ctx.workspace)
    for raw in mentioned_paths(text):
        path = _existing(raw, ctx)
        if path is None or path in out.paths:
            continue
        # As a Read of it would be: deny rules (on the name typed too), Read rules, the working folders.
        access = gate.check(raw if ctx.workspace.resolve(raw) == path else path)
        if not access.allowed:
            outside = access.reason.endswith("is outside the workspace.")
            out.problems.append(f"@{raw} is outside the workspace; it was not attached." if outside else f"@{raw} was not attached: {access.reason}")
            continue
        out.paths.append(path)
        if path.is_dir():
            command = {"command": f"ls {path}", "description": f"Lists files in {path}"}
            out.blocks.append({"type": "text", "text": system_reminder(_called("Bash", command))})
            out.blocks.append({"type": "text", "text": system_reminder(_result("Bash", _listing(path)))})
            continue
        tool_input: dict[str, Any] = {"file_path": str(path)}
        result = await _read_what_fits(read, path, ctx)
        if isinstance(result, ToolError):
            out.paths.pop()
            out.problems.append(f"@{raw} was not attached: {result}")
            continue
        if not isinstance(result.content, str):  # an image: Claude Code attaches it as an image block
            out.blocks.append({"type": "text", "text": system_reminder(_called("Read", tool_input))})
            out.blocks.extend(result.content)
            continue
        out.blocks.append({"type": "text", "text": system_reminder(_called("Read", tool_input))})
        out.blocks.append({"type": "text", "text": system_reminder(_result("Read", result.content))})
    if "mcp" in ctx.services and ":" in text:  # `@server:uri`: an MCP resource (core/mcp/resource_mentions.py)
        from .mcp.resource_mentions import attach_resource_mentions

        await attach_resource_mentions(text, ctx.services["mcp"], out.blocks, out.problems)
    return out


async def _read_what_fits(read: Any, path: Path, ctx: ToolContext) -> Any:
    """Read's result for the whole file, else for its first lines (as many as Read will return)."""
    from ..tools.read import DEFAULT_LIMIT, ReadInput

    try:
        return await read.call(ReadInput(file_path=str(path)), ctx)
    except ToolError as exc:
        error = exc
    limit = DEFAULT_LIMIT
    while limit >= 1:
        try:
            return await read.call(ReadInput(file_path=str(path), offset=1, limit=limit), ctx)
        except ToolError as exc:
            error = exc
            if "exceeds maximum allowed size" not in str(exc):
                break
            limit //= 2
    return error


def _listing(path: Path) -> str:
    try:
        names = sorted(for_model(n) for n in os.listdir(path) if not n.startswith("."))
    except OSError as exc:
        return f"Cannot list {for_model(str(path))}: {exc.strerror}"
    return "\n".join(names)


async def prompt_with_mentions(text: str, ctx: ToolContext) -> tuple[str | list[dict[str, Any]], Attachments]:
    """The prompt to send: the text alone, or the attachments followed by the text."""
    attachments = await attach_mentions(text, ctx)
    if not attachments.blocks:
        return text, attachments
    return [*attachments.blocks, {"type": "text", "text": text}], attachments


async def run_prompt(agent: Any, text: str) -> Any:
    """Run `agent` on a typed prompt: a custom command expanded, its @-mentions attached first, problems
    shown as notices (core/commands/prompt.py)."""
    from .commands.prompt import run_with_commands

    return await run_with_commands(agent, text)  # a custom command or skill typed as /name args, expanded
