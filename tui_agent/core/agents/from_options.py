"""Subagent types a driving program defines: claude-agent-sdk's `agents` option, sent in `initialize`.

The SDK sends `{name: {description, prompt, tools?, disallowedTools?, model?, maxTurns?, ...}}` (its
`AgentDefinition` dataclass with the unset fields left out). Each becomes an `AgentDefinition` whose
`prompt` is the system prompt; the catalog lets them win over files of the same name. A definition that
cannot be used is named with the reason and skipped; fields tui-agent does not act on are named too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from .definitions import AgentDefinition

SOURCE = "the program's agents option (claude-agent-sdk)"
USED_FIELDS = frozenset({"description", "prompt", "tools", "disallowedTools", "model", "maxTurns"})


@dataclass(slots=True)
class ProgramAgents:
    definitions: list[AgentDefinition] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    """One line per definition that was skipped, with why."""
    ignored: list[str] = field(default_factory=list)
    """`name.field` for each field given that tui-agent does not act on."""


def definitions_from_options(agents: Any) -> ProgramAgents:
    """The program's agent definitions, checked one by one (a bad one never hides the others)."""
    out = ProgramAgents()
    if agents is None:
        return out
    if not isinstance(agents, dict):
        out.problems.append(f"agents: expected an object of name → definition, got {type(agents).__name__}")
        return out
    for name, spec in agents.items():
        if not isinstance(spec, dict):
            out.problems.append(f"agents.{name}: expected an object with description and prompt, got {type(spec).__name__}")
            continue
        try:
            definition = AgentDefinition.model_validate({
                **{k: v for k, v in spec.items() if k in USED_FIELDS and k != "prompt"},
                "name": name, "system_prompt": spec.get("prompt"), "source": SOURCE,
            })
        except ValidationError as exc:
            problems = "; ".join(f"{_field(e['loc'])}: {e['msg']}" for e in exc.errors()[:4])
            out.problems.append(f"agents.{name}: {problems}")
            continue
        if not isinstance(spec.get("prompt"), str) or not spec["prompt"].strip():
            out.problems.append(f"agents.{name}: prompt: a non-empty string is required (the agent's system prompt)")
            continue
        out.definitions.append(definition)
        out.ignored += [f"{name}.{k}" for k in spec if k not in USED_FIELDS]
    return out


def _field(loc: tuple[Any, ...]) -> str:
    names = {"system_prompt": "prompt", "disallowed_tools": "disallowedTools", "max_turns": "maxTurns"}
    return ".".join(names.get(str(p), str(p)) for p in loc) or "definition"
