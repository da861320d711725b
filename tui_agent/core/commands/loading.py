"""Finding custom commands and skills on disk, and naming them as Claude Code 2.1.197 does.

`.claude/commands/greet.md` is `/greet`; `.claude/commands/frontend/component.md` is
`/frontend:component` (the folders, joined by `:`: verified in the real `init` message's
`slash_commands`). Skills (`.claude/skills/<name>/SKILL.md`) are commands too: the user types `/name`.
Project files (the working folder's `.claude`) win over the user's (`~/.claude`) of the same name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..access import read_text_inside
from ..front_matter import FrontMatterError, load_fields

Scope = Literal["project", "user"]
MAX_COMMAND_BYTES = 1_048_576
"""A command or skill file larger than this is skipped with a problem (it would be sent whole)."""


@dataclass(frozen=True, slots=True)
class CustomCommand:
    name: str
    body: str
    path: Path
    scope: Scope
    kind: Literal["command", "skill"] = "command"
    description: str = ""
    argument_hint: str = ""
    allowed_tools: tuple[str, ...] = ()
    model: str | None = None
    disable_model_invocation: bool = False
    problems: tuple[str, ...] = field(default=())

    @property
    def base_dir(self) -> Path:
        """A skill's folder (its supporting files are Read from there)."""
        return self.path.parent

    @property
    def listed_description(self) -> str:
        """As Claude Code 2.1.197 lists it (initialize's `commands`, `/help`): "Greet someone (project)"."""
        return f"{self.description} ({self.scope})".strip()


def commands_info(cwd: Path, home: Path | None = None) -> list[dict[str, str]]:
    """The initialize answer's `commands`: `name`, `description`, `argumentHint` (the SDK's shape)."""
    return [{"name": c.name, "description": c.listed_description, "argumentHint": c.argument_hint}
            for c in load_commands(cwd, home).values()]


def split_front_matter(text: str) -> tuple[dict[str, Any], str, str | None]:
    """(fields, body, problem). A file without front matter is all body; broken YAML is reported, not fatal."""
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---":
        return {}, text, None
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
    if end is None:
        return {}, text, "the front matter is not closed by a '---' line"
    body = "\n".join(lines[end + 1 :]).lstrip("\n") + ("\n" if text.endswith("\n") else "")
    try:
        return load_fields("\n".join(lines[1:end])), body, None
    except FrontMatterError as exc:
        return {}, body, str(exc)


def _tools(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(t.strip() for t in value.split(",") if t.strip())
    if isinstance(value, list):
        return tuple(str(t).strip() for t in value if str(t).strip())
    return ()


def _first_line(body: str) -> str:
    return next((line.strip() for line in body.splitlines() if line.strip()), "")


def parse_command(path: Path, name: str, scope: Scope, kind: Literal["command", "skill"], inside: Path | None = None) -> CustomCommand:
    """The command in `path`. `inside`: the folder it was found in; a file that links out of it (a repository's
    skill that is really ~/.ssh/id_rsa) is never read, since its body goes to the model."""
    try:
        text = read_text_inside(path, inside if inside is not None else path.parent, MAX_COMMAND_BYTES)
    except (OSError, ValueError) as exc:
        return CustomCommand(name, "", path, scope, kind, problems=(f"{path}: cannot be read ({exc})",))
    meta, body, problem = split_front_matter(text)
    if kind == "skill" and isinstance(meta.get("name"), str) and meta["name"].strip():
        name = meta["name"].strip()
    description = meta.get("description")
    return CustomCommand(
        name=name,
        body=body,
        path=path,
        scope=scope,
        kind=kind,
        # Without a description Claude Code shows the body's first line.
        description=str(description).strip() if description else _first_line(body),
        argument_hint=str(meta.get("argument-hint") or ""),
        allowed_tools=_tools(meta.get("allowed-tools")),
        model=str(meta["model"]) if meta.get("model") else None,
        disable_model_invocation=bool(meta.get("disable-model-invocation", False)),
        problems=(
            *((f"{path}: {problem}",) if problem else ()),
            # named where it is used, not ignored silently
            *((f"/{name}: `model: {meta['model']}` is not applied yet; the session's model answers.",) if meta.get("model") else ()),
        ),
    )


def _commands_in(root: Path, scope: Scope) -> list[CustomCommand]:
    folder = root / "commands"
    try:
        files = sorted(p for p in folder.rglob("*.md") if p.is_file())
    except OSError:
        return []
    out = []
    for path in files:
        parts = path.relative_to(folder).with_suffix("").parts
        out.append(parse_command(path, ":".join(parts), scope, "command", folder))
    return out


def skills_in(root: Path, scope: Scope) -> list[CustomCommand]:
    folder = root / "skills"
    try:
        files = sorted(p for p in folder.glob("*/SKILL.md") if p.is_file())
    except OSError:
        return []
    return [parse_command(path, path.parent.name, scope, "skill", folder) for path in files]


def load_commands(cwd: Path, home: Path | None = None) -> dict[str, CustomCommand]:
    """Every command and skill by name: skills first, then commands, as Claude Code lists them; the project's
    win over the user's."""
    home = home if home is not None else Path.home()
    found: dict[str, CustomCommand] = {}
    project, user = cwd / ".claude", home / ".claude"
    roots: list[tuple[Path, Scope]] = [(project, "project")]
    if user.resolve() != project.resolve():
        roots.append((user, "user"))
    for kind in (skills_in, _commands_in):
        for root, scope in roots:
            for command in kind(root, scope):
                found.setdefault(command.name, command)
    return found
