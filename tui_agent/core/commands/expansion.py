"""A typed `/name args` becomes what Claude Code sends for it: a `<command-message>` block naming it, then
the file's body with its arguments put in and its `!`-lines' output in place.

Arguments as Claude Code 2.1.197 puts them (checked against it): `$ARGUMENTS` is everything typed after the
name, `$ARGUMENTS[N]` and `$N` the N-th word counted from 0 (`/greet world wide`: `$1` is `wide`). A body
that uses no placeholder gets `ARGUMENTS: ...` appended. A skill's body starts with
"Base directory for this skill: <folder>".

A `!`-line runs through the Bash tool only when the command's `allowed-tools` name it (`Bash`,
`Bash(git status:*)`) or the permission rules allow it, or the user allows it when asked (the app); headless
no one is asked, so it is not run and the line says so. The app builds the agent only after the folder-trust question, so nothing a
repository's command says runs in a folder the user did not trust.
"""

from __future__ import annotations

import re
import shlex
import uuid
from pathlib import Path
from typing import Any

from ..permission_types import PermissionCheck, PermissionRequest
from ..permissions.rules import compile_bash_pattern
from .loading import CustomCommand, load_commands

_BANG_RE = re.compile(r"(?:^|(?<=\s))!`([^`\n]+)`")
_ARG_RE = re.compile(r"\$ARGUMENTS\[(\d+)\]|\$ARGUMENTS|\$(\d+)")


def split_arguments(args: str) -> list[str]:
    try:
        return shlex.split(args)
    except ValueError:  # an unclosed quote: words as typed
        return args.split()


def substitute(body: str, args: str) -> str:
    words = split_arguments(args)
    used = False

    def put(match: re.Match[str]) -> str:
        nonlocal used
        used = True
        index = match.group(1) or match.group(2)
        if index is None:
            return args
        i = int(index)
        return words[i] if i < len(words) else ""

    out = _ARG_RE.sub(put, body)
    if not used and args.strip():
        out = out.rstrip("\n") + f"\n\nARGUMENTS: {args}"
    return out


def parse_slash(text: str) -> tuple[str, str] | None:
    """(`name`, `args`) of a prompt that starts with `/name`."""
    match = re.match(r"/([\w.:-]+)(?:\s+(.*))?\Z", text.strip(), re.DOTALL)
    return (match.group(1), (match.group(2) or "").strip()) if match else None


def find_command(agent: Any, text: str) -> tuple[CustomCommand, str] | None:
    parsed = parse_slash(text)
    if parsed is None:
        return None
    command = load_commands(Path(agent.workspace.root)).get(parsed[0])
    return (command, parsed[1]) if command is not None else None


def _named_by(allowed_tools: tuple[str, ...], command: str) -> bool:
    for entry in allowed_tools:
        if entry == "Bash":
            return True
        match = re.fullmatch(r"Bash\((.*)\)", entry, re.DOTALL)
        if match and compile_bash_pattern(match.group(1)).fullmatch(command):
            return True
    return False


async def _may_run(agent: Any, command: CustomCommand, line: str) -> bool:
    if _named_by(command.allowed_tools, line):
        return True
    bash = agent.registry.find("Bash")
    if bash is None:
        return False
    from ...tools.bash import BashInput

    check = PermissionCheck(bash, BashInput(command=line), {"command": line}, "", agent.context.workspace, False)
    decision = await agent.policy.decide(check)
    if decision.behavior != "ask" or agent.ask is None:  # headless: no one to ask, so not run
        return decision.behavior == "allow"
    request = PermissionRequest(
        id=uuid.uuid4().hex[:12], tool_use_id="", tool_name="Bash", input={"command": line}, summary=line,
        read_only=False, reason=f"/{command.name} runs this before its prompt is sent",
        suggestions=decision.suggestions, grants=decision.grants,
    )
    answer = await agent.ask(request)
    remember = getattr(agent.policy, "remember", None)
    if remember is not None and answer.allowed:
        remember(request, answer)  # "allow for the session" / "always" as for a tool call
    return answer.allowed


async def run_bang_lines(agent: Any, command: CustomCommand, body: str) -> tuple[str, list[str]]:
    """The body with each allowed `!`-line replaced by its output; the problems to tell the user."""
    from ...tools.base import ToolError
    from ...tools.bash import BashInput

    problems: list[str] = []
    out: list[str] = []
    last = 0
    for match in _BANG_RE.finditer(body):
        out.append(body[last : match.start()])
        last = match.end()
        line = match.group(1).strip()
        if not await _may_run(agent, command, line):
            problems.append(f"/{command.name}: `{line}` was not run: its allowed-tools or the permission rules do not allow it.")
            out.append(f"[not run: {line}]")
            continue
        bash = agent.registry.find("Bash")
        try:
            result = await bash.call(BashInput(command=line), agent.context.for_call("command-bang", lambda _: None))
            text = result.content if isinstance(result.content, str) else str(result.content)
        except ToolError as exc:
            text = str(exc)
        out.append(text.rstrip("\n"))
    out.append(body[last:])
    return "".join(out), problems


def header(name: str, args: str) -> str:
    return f"<command-message>{name}</command-message>\n<command-name>/{name}</command-name>\n<command-args>{args}</command-args>\n"


async def expand_command(agent: Any, text: str) -> tuple[str, str, list[str]] | None:
    """(header block text, body text, problems) for a prompt naming a custom command or skill, else None."""
    found = find_command(agent, text)
    if found is None:
        return None
    command, args = found
    body = substitute(command.body, args)
    if command.kind == "skill":
        body = f"Base directory for this skill: {command.base_dir}\n\n{body}"
    body, problems = await run_bang_lines(agent, command, body)
    return header(command.name, args), body, [*command.problems, *problems]
