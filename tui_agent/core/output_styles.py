"""Output styles (Claude Code's format): how the agent talks, swapped into the system prompt.

Where they come from, later ones winning on the same name: the built-ins (Default, Explanatory, Learning),
`~/.claude/output-styles/*.md` (user), `<project>/.claude/output-styles/*.md` (project). A file is Markdown
with optional front matter: `name` (default: the file name), `description` (default: the body's first
line), `keep-coding-instructions` (default false: a custom style replaces the software-engineering
guidance, as in Claude Code; the built-ins keep it). The choice is the settings' `"outputStyle"` (a name;
`default` is none) or `/output-style` for the session; `system_prompt.py` places the text.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from .access import read_text_inside
from .front_matter import load_fields

__all__ = [
    "DEFAULT_STYLE", "OutputStyle", "BUILT_IN_STYLES", "load_styles", "parse_style", "find_style",
    "styles_for", "style_names", "active_style", "selected_name", "current_style_name", "select_style", "save_choice", "SERVICE_KEY",
]

DEFAULT_STYLE = "default"
"""The name Claude Code gives "no style": the plain system prompt."""
SERVICE_KEY = "output_style"
"""`agent.context.services[SERVICE_KEY]`: the name chosen with /output-style for this session."""
_MAX_FILE_BYTES = 1_048_576  # Claude Code's own limit for a style file

Source = Literal["built-in", "userSettings", "projectSettings"]


@dataclass(frozen=True, slots=True)
class OutputStyle:
    name: str
    description: str
    prompt: str
    source: Source
    keep_coding_instructions: bool
    path: Path | None = None


_INSIGHTS = """\
While you work, share short insights about this particular codebase and the choices you make: why a
pattern is used here, what a trade-off costs, how a piece fits the rest. Put each insight right before or
after the code it concerns, in a block like this:

`★ Insight ─────────────────────────────────────`
- two or three short points, specific to this code, not general programming lore
`─────────────────────────────────────────────────`

Insights belong in the conversation, never in the files you write."""

_EXPLANATORY = f"""\
You are an interactive terminal tool that helps with software engineering work, and you also teach: along
the way, explain the codebase and the reasoning behind your changes so the user understands them, not
only receives them. Clarity matters more than brevity here; a few extra sentences of explanation are
welcome when they carry real understanding.

# Explaining as you go
{_INSIGHTS}"""

_LEARNING = f"""\
You are an interactive terminal tool that helps with software engineering work, and you help the user
learn by doing: they write some of the code themselves, guided by you, and you share insights as you go.
Be encouraging and concrete; explain what you are doing and why.

# Handing the user a piece to write
When a task includes a small, meaningful piece of logic (2 to 10 lines) where a design choice matters — a
business rule, an error-handling strategy, a choice between data structures, a tricky condition — build
the surrounding code yourself, then leave that piece to the user:
1. Put a clearly marked placeholder in the file, with a `TODO(human)` comment, at exactly one place.
2. Stop and ask, in a short block headed `● Learn by Doing`, giving: the context (what exists and why this
   piece matters), the task (what the code must do, the file and the function), and guidance (the
   trade-offs worth weighing). Then wait for their implementation instead of continuing.
3. Once they have written it, review it briefly: what works, and one insight that connects it to the rest.
Do not hand over boilerplate, trivial changes or code the user has no real choice in: write that yourself.
Hand over at most one piece at a time.

# Explaining as you go
{_INSIGHTS}"""

BUILT_IN_STYLES: dict[str, OutputStyle] = {
    "Explanatory": OutputStyle("Explanatory", "Explains its implementation choices and the codebase's patterns",
                               _EXPLANATORY, "built-in", True),
    "Learning": OutputStyle("Learning", "Pauses and asks you to write small pieces of code, for hands-on practice",
                            _LEARNING, "built-in", True),
}


def _flag(value: Any) -> bool:
    # Claude Code takes `true` (YAML boolean) or the string "true"; anything else is false.
    return value is True or (isinstance(value, str) and value.strip().lower() == "true")


def _split_front_matter(text: str) -> tuple[dict[str, Any], str]:
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---":
        return {}, text
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
    if end is None:
        return {}, text
    return load_fields("\n".join(lines[1:end])), "\n".join(lines[end + 1:])


def parse_style(text: str, path: Path, source: Source) -> OutputStyle:
    """One style file. Raises ValueError with the problem (bad YAML, a non-mapping front matter)."""
    meta, body = _split_front_matter(text)  # FrontMatterError is a ValueError that names the problem
    body = body.strip()
    name = str(meta["name"]).strip() if meta.get("name") not in (None, "") else path.stem
    first = next((line.strip().lstrip("#").strip() for line in body.splitlines() if line.strip()), "")
    description = str(meta["description"]) if meta.get("description") not in (None, "") else (first[:100] or f"Custom {name} output style")
    return OutputStyle(name, description, body, source, _flag(meta.get("keep-coding-instructions")), path)


def load_styles(project_dir: Path | None, home: Path | None, problems: list[str] | None = None) -> dict[str, OutputStyle]:
    """Every style by name: built-ins, then the user's, then the project's (later wins). Files that cannot be
    read or parsed are skipped and described in `problems`."""
    styles: dict[str, OutputStyle] = dict(BUILT_IN_STYLES)
    folders: list[tuple[Path, Source]] = []
    if home is not None:
        folders.append((home / ".claude" / "output-styles", "userSettings"))
    if project_dir is not None:
        folders.append((project_dir / ".claude" / "output-styles", "projectSettings"))
    for folder, source in dict.fromkeys(folders):
        try:
            files = sorted(p for p in folder.glob("*.md") if p.is_file())
        except OSError:
            continue
        for path in files:
            try:
                style = parse_style(read_text_inside(path, folder, _MAX_FILE_BYTES), path, source)
            except (OSError, ValueError) as exc:
                if problems is not None:
                    problems.append(f"Output style {path}: {exc}; skipped.")
                continue
            styles[style.name] = style
    return styles


def find_style(styles: dict[str, OutputStyle], name: str) -> OutputStyle | None:
    """The style called `name` (exact, else case-insensitive); None for `default` or an unknown name."""
    if name.strip().lower() == DEFAULT_STYLE:
        return None
    if name in styles:
        return styles[name]
    return next((s for key, s in styles.items() if key.lower() == name.strip().lower()), None)


def styles_for(policy: Any, problems: list[str] | None = None) -> dict[str, OutputStyle]:
    """The styles visible to a session with this permission policy (its project folder and home)."""
    # A folder not trusted yet (core/trust.py) does not get to rewrite the system prompt with its own files.
    trusted = getattr(getattr(policy, "settings", None), "trusted", True)
    project = getattr(policy, "project_dir", None) if trusted else None
    return load_styles(project, getattr(policy, "home", None) or Path.home(), problems)


def style_names(policy: Any) -> list[str]:
    """`default` first, then every style's name: the SDK's `available_output_styles`."""
    return [DEFAULT_STYLE, *styles_for(policy)]


def selected_name(agent: Any) -> str:
    """The session's choice (/output-style), else the settings' `"outputStyle"`, else `default`."""
    from .user_settings import read_setting

    chosen = agent.context.services.get(SERVICE_KEY)
    if isinstance(chosen, str):
        return chosen
    value = read_setting(agent.policy, "outputStyle")
    return value.strip() if isinstance(value, str) and value.strip() else DEFAULT_STYLE


def active_style(agent: Any, problems: list[str] | None = None) -> OutputStyle | None:
    """The style in force for `agent` (None: the default). An unknown name is reported and ignored."""
    name = selected_name(agent)
    if name.lower() == DEFAULT_STYLE:
        return None
    styles = styles_for(agent.policy, problems)
    style = find_style(styles, name)
    if style is None and problems is not None:
        problems.append(f"Output style {name!r} not found (known: {', '.join([DEFAULT_STYLE, *styles])}); using the default.")
    return style


def save_choice(policy: Any, name: str) -> Path:
    """Write `"outputStyle": name` into the project's `.claude/settings.local.json`, where Claude Code saves the
    choice made in its picker, keeping the file's other keys. Raises OSError or ValueError (not a JSON object)."""
    import json
    import os

    from .permissions.settings import local_settings_path

    path = local_settings_path(Path(getattr(policy, "project_dir", None) or Path.cwd()))
    data: Any = {}
    if path.exists():
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise ValueError(f"{path} is not a settings object")
    data["outputStyle"] = name
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")  # write-then-rename: the settings watcher never reads half a file
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


def current_style_name(agent: Any) -> str:
    """The name of the style in force as Claude Code reports it (`output_style`): `default` when none."""
    style = active_style(agent)
    return style.name if style is not None else DEFAULT_STYLE


def select_style(agent: Any, name: str) -> OutputStyle | None:
    """Switch `agent` to the style `name` for this session, from the next request on. Raises KeyError for an
    unknown name. The system prompt is rebuilt (a one-time prompt-cache miss, as in Claude Code)."""
    style = None
    if name.strip().lower() != DEFAULT_STYLE:
        style = find_style(styles_for(agent.policy), name)
        if style is None:
            raise KeyError(name)
    agent.context.services[SERVICE_KEY] = style.name if style is not None else DEFAULT_STYLE
    from .system_prompt import invalidate

    invalidate(agent)
    return style
