"""Subagent definitions: the built-in types and Markdown files with YAML front matter.

Claude Code's format, unchanged, so users' files work here: `.claude/agents/*.md` (searched from the
working folder up to the git root) and `~/.claude/agents/*.md`, e.g.

    ---
    name: reviewer
    description: Reviews a diff for bugs
    tools: Read, Grep, Glob
    model: haiku
    ---
    You are a careful code reviewer...

The body is the subagent's system prompt. A nearer file wins over a farther one with the same name
(project over user over built-in). The catalog re-reads the folders when a file changes (a stat per
file per lookup, no watcher), and a broken file is reported by name, never silently dropped.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..front_matter import FrontMatterError, load_fields

GENERAL_PURPOSE = "general-purpose"

MODEL_ALIASES = {
    "sonnet": "claude-sonnet-4-6",
    "opus": "claude-opus-4-6",
    "haiku": "claude-haiku-4-5",
}


def resolve_model(name: str | None, parent_model: str) -> str:
    """A model alias (`sonnet`, `opus`, `haiku`), a full model id, or `inherit`/None (the parent's)."""
    if not name or name == "inherit":
        return parent_model
    return MODEL_ALIASES.get(name, name)


def _names(value: Any) -> list[str] | None:
    """A tool list as Claude Code accepts it: a comma-separated string or a YAML list."""
    if value is None:
        return None
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return [v.strip() for v in value if v.strip()]
    raise ValueError("must be a comma-separated list of tool names")


class AgentDefinition(BaseModel):
    """One subagent type."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True, frozen=True)

    name: str = Field(min_length=1)
    """The `subagent_type` the model passes to the Agent tool."""
    description: str = Field(min_length=1)
    """When to use it: shown to the model in the Agent tool's description."""
    tools: list[str] | None = None
    """The tools it may use; all of the parent's when absent."""
    disallowed_tools: list[str] = Field(default_factory=list, alias="disallowedTools")
    """Tools removed from what `tools` allows."""
    model: str = "inherit"
    """`sonnet`, `opus`, `haiku`, a full model id, or `inherit` (the parent's model)."""
    max_turns: int | None = Field(None, alias="maxTurns", ge=1)
    """The most turns the subagent may take (the parent's limit when absent)."""
    system_prompt: str = ""
    """The Markdown body: the subagent's whole system prompt."""
    source: str = "built-in"
    """Where it was defined: `built-in` or the file's path."""
    read_only: bool = False
    """Explore and Plan: only read-only tools, MCP ones included (a server's `readOnlyHint`)."""
    skills: list[str] = Field(default_factory=list)
    """Skills preloaded into its context at start (core/skills `preloaded_skills`)."""

    @field_validator("tools", mode="before")
    @classmethod
    def _tools(cls, value: Any) -> list[str] | None:
        return _names(value)

    @field_validator("skills", mode="before")
    @classmethod
    def _skills(cls, value: Any) -> list[str]:
        return _names(value) or []

    @field_validator("disallowed_tools", mode="before")
    @classmethod
    def _disallowed(cls, value: Any) -> list[str]:
        return _names(value) or []

    @field_validator("model", mode="before")
    @classmethod
    def _model(cls, value: Any) -> str:
        return str(value).strip() if value else "inherit"

    def tools_label(self) -> str:
        """The tool list as Claude Code shows it after a type's description: `*`, `Read, Edit`, or
        `All tools except Agent, Write`."""
        if self.tools is not None:
            allowed = [t for t in self.tools if t not in self.disallowed_tools]
            return ", ".join(allowed) if allowed != ["*"] else "*"
        if self.disallowed_tools:
            return "All tools except " + ", ".join(self.disallowed_tools)
        return "*"

    def listing_line(self) -> str:
        return f"- {self.name}: {self.description} (Tools: {self.tools_label()})"


_ENV_NOTE = (
    "\n\nNotes:\n"
    "- Agent threads always have their cwd reset between bash calls, as a result please only use absolute file paths.\n"
    "- In your final response, share file paths (always absolute, never relative) that are relevant to the task. "
    "Include code snippets only when the exact text is load-bearing.\n"
    "- Do NOT write report/summary/findings .md files. Return findings directly as your final assistant message: "
    "the parent agent reads your text output, not files you create."
)

GENERAL_PURPOSE_PROMPT = (
    "You are an agent for tui-agent, a coding agent in the user's terminal. Given the user's message, you should "
    "use the tools available to complete the task. Complete the task fully (don't gold-plate, but don't leave it "
    "half-done). When you complete the task, respond with a concise report covering what was done and any key "
    "findings: the caller will relay this to the user, so it only needs the essentials.\n\n"
    "Your strengths:\n"
    "- Searching for code, configurations, and patterns across large codebases\n"
    "- Analyzing multiple files to understand system architecture\n"
    "- Investigating complex questions that require exploring many files\n"
    "- Performing multi-step research tasks\n\n"
    "Guidelines:\n"
    "- For file searches: search broadly when you don't know where something lives. Use Read when you know the "
    "specific file path.\n"
    "- For analysis: Start broad and narrow down. Use multiple search strategies if the first doesn't yield results.\n"
    "- NEVER create files unless they're absolutely necessary for achieving your goal. ALWAYS prefer editing an "
    "existing file to creating a new one." + _ENV_NOTE
)

EXPLORE_PROMPT = (
    "You are a file search specialist for tui-agent. You excel at thoroughly navigating and exploring codebases.\n\n"
    "=== CRITICAL: READ-ONLY MODE - NO FILE MODIFICATIONS ===\n"
    "This is a READ-ONLY exploration task. You must not create, modify, delete, move or copy files, and you must "
    "not run commands that change the system state (no redirects into files, no installs, no git commits). Use "
    "Bash only for read-only commands (ls, git status, git log, git diff, find, cat, head, tail).\n\n"
    "Your strengths: rapidly finding files with glob patterns, searching code with regex patterns, reading and "
    "analysing file contents. Make efficient use of the tools: spawn multiple parallel tool calls for grepping and "
    "reading files wherever possible. Adapt your search approach to the thoroughness level the caller specifies."
    + _ENV_NOTE
)

PLAN_PROMPT = (
    "You are a software architect and planning specialist for tui-agent. Explore the codebase and design an "
    "implementation plan for the task you are given.\n\n"
    "=== CRITICAL: READ-ONLY MODE - NO FILE MODIFICATIONS ===\n"
    "You must not create, modify, delete, move or copy files, and you must not run commands that change the "
    "system state. Use Bash only for read-only commands (ls, git status, git log, git diff, find, cat, head, tail).\n\n"
    "End with a step-by-step plan: the files to change and why, the order of the changes, the trade-offs you "
    "weighed, and how to verify the result." + _ENV_NOTE
)

# What Claude Code's read-only built-ins (Explore, Plan) never get; MCP tools are limited by `read_only`.
READ_ONLY_EXCLUDED = ["Agent", "ExitPlanMode", "Edit", "Write", "NotebookEdit", "TodoWrite"]

BUILT_IN: tuple[AgentDefinition, ...] = (
    AgentDefinition(
        name=GENERAL_PURPOSE,
        description=(
            "General-purpose agent for researching complex questions, searching for code, and executing multi-step "
            "tasks. When you are searching for a keyword or file and are not confident that you will find the right "
            "match in the first few tries use this agent to perform the search for you."
        ),
        system_prompt=GENERAL_PURPOSE_PROMPT,
    ),
    AgentDefinition(
        name="Explore",
        description=(
            "Read-only search agent for broad fan-out searches: when answering means sweeping many files, directories, "
            "or naming conventions and you only need the conclusion, not the file dumps. It locates code; it doesn't "
            'review or audit it. Specify search breadth: "medium" for moderate exploration, "very thorough" for '
            "multiple locations and naming conventions."
        ),
        disallowedTools=READ_ONLY_EXCLUDED,
        system_prompt=EXPLORE_PROMPT,
        read_only=True,
    ),
    AgentDefinition(
        name="Plan",
        description=(
            "Software architect agent for designing implementation plans. Use this when you need to plan the "
            "implementation strategy for a task. Returns step-by-step plans, identifies critical files, and "
            "considers architectural trade-offs."
        ),
        disallowedTools=READ_ONLY_EXCLUDED,
        system_prompt=PLAN_PROMPT,
        read_only=True,
    ),
)


class DefinitionError(ValueError):
    """A definition file that cannot be used; the message names the file and the problem."""


def parse_definition(text: str, source: str) -> AgentDefinition:
    """One Markdown file with YAML front matter between `---` lines."""
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---":
        raise DefinitionError(f"{source}: no YAML front matter (the file must start with a '---' line)")
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        raise DefinitionError(f"{source}: the YAML front matter is not closed by a '---' line") from None
    try:
        meta = load_fields("\n".join(lines[1:end]))
    except FrontMatterError as exc:
        raise DefinitionError(f"{source}: {exc}") from None
    body = "\n".join(lines[end + 1 :]).strip()
    try:
        return AgentDefinition.model_validate({**meta, "system_prompt": body, "source": source})
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'file'}: {e['msg']}" for e in exc.errors())
        raise DefinitionError(f"{source}: {problems}") from None


def search_dirs(cwd: Path, home: Path | None = None) -> list[Path]:
    """Definition folders, farthest first: ~/.claude/agents, then .claude/agents from the git root
    down to the working folder (so nearer ones override)."""
    home = home if home is not None else Path.home()
    cwd = cwd.resolve()
    chain = [cwd]
    for parent in cwd.parents:
        if (chain[-1] / ".git").exists():
            break
        chain.append(parent)
    if not (chain[-1] / ".git").exists():
        chain = [cwd]  # not in a git repository: only the working folder
    dirs = [home / ".claude" / "agents"]
    dirs += [d / ".claude" / "agents" for d in reversed(chain)]
    return list(dict.fromkeys(dirs))


@dataclass(frozen=True, slots=True)
class CatalogState:
    definitions: dict[str, AgentDefinition]
    problems: tuple[str, ...]


class AgentCatalog:
    """The subagent types available in a working folder, re-read when a definition file changes."""

    def __init__(self, cwd: Path, home: Path | None = None) -> None:
        self._cwd = cwd
        self._home = home
        # (signature of the files, what they define) as one value: lookups come from the app's thread and
        # the agent's, and a lookup during another's first load must not see the new signature with the
        # old definitions (the built-in ones only)
        self._cache: tuple[tuple[tuple[str, int, int], ...], CatalogState] | None = None
        self._program: dict[str, AgentDefinition] = {}

    def add_program_agents(self, definitions: list[AgentDefinition]) -> None:
        """Agents the driving program defined for this session (the SDK's `agents`). They win over built-in
        types and definition files of the same name, as Claude Code documents it and does for its
        `--agents` flag."""
        self._program.update({d.name: d for d in definitions})
        self._cache = None  # rebuilt at the next lookup

    def _files(self) -> list[Path]:
        files: list[Path] = []
        for folder in search_dirs(self._cwd, self._home):
            try:
                files += sorted(p for p in folder.glob("*.md") if p.is_file())
            except OSError:
                continue
        return files

    def state(self) -> CatalogState:
        files = self._files()
        signature = []
        for path in files:
            try:
                st = path.stat()
            except OSError:
                continue
            signature.append((str(path), st.st_mtime_ns, st.st_size))
        key = tuple(signature)
        cached = self._cache
        if cached is not None and cached[0] == key:
            return cached[1]
        state = self._load(files)
        self._cache = (key, state)
        return state

    def _load(self, files: list[Path]) -> CatalogState:
        found: dict[str, AgentDefinition] = {d.name: d for d in BUILT_IN}
        problems: list[str] = []
        for path in files:
            try:
                definition = parse_definition(path.read_text(encoding="utf-8"), str(path))
            except (OSError, UnicodeDecodeError) as exc:
                problems.append(f"{path}: cannot be read ({exc})")
                continue
            except DefinitionError as exc:
                problems.append(str(exc))
                continue
            found[definition.name] = definition  # later (nearer) folders override
        found.update(self._program)
        return CatalogState(found, tuple(problems))

    def definitions(self) -> list[AgentDefinition]:
        return list(self.state().definitions.values())

    def find(self, name: str) -> AgentDefinition | None:
        return self.state().definitions.get(name)

    @property
    def problems(self) -> tuple[str, ...]:
        return self.state().problems

    def listing(self) -> str:
        """The types as Claude Code lists them for the model."""
        lines = [d.listing_line() for d in self.definitions()]
        return "Available agent types for the Agent tool:\n" + "\n".join(lines)


def describe_catalog(catalog: AgentCatalog) -> str:
    """The `/agents` listing: each type with its tools, model and source; then files that failed."""
    lines = ["Subagent types (the Agent tool's subagent_type):"]
    for d in catalog.definitions():
        lines.append(f"  {d.name} · tools: {d.tools_label()} · model: {d.model}")
        lines.append(f"      {d.description}")
        if d.source != "built-in":
            lines.append(f"      from {d.source}")
    lines.append("Defined in .claude/agents/*.md (project, up to the git root) and ~/.claude/agents/*.md; re-read on change.")
    if catalog.problems:
        lines.append("Not loaded:")
        lines += [f"  {problem}" for problem in catalog.problems]
    return "\n".join(lines)
