"""Skills (`.claude/skills/<name>/SKILL.md`, `~/.claude/skills/<name>/SKILL.md`): what the model is told.

Claude Code 2.1.197 lists them once, with their descriptions only, as "The following skills are available
for use with the Skill tool:" and `- name: description` lines (commands are listed too unless
`disable-model-invocation`); the body comes only when the Skill tool is called. `skills_reminder` is that
text, for whoever builds the prompt (core/mentions.py run_prompt sends it with a conversation's first prompt).
"""

from __future__ import annotations

from pathlib import Path

from ..commands.loading import CustomCommand, load_commands

LISTING_HEAD = "The following skills are available for use with the Skill tool:"


def invocable(cwd: Path, home: Path | None = None) -> list[CustomCommand]:
    """What the model may invoke with the Skill tool: skills and commands not marked model-disabled."""
    return [c for c in load_commands(cwd, home).values() if not c.disable_model_invocation]


def skill_names(cwd: Path, home: Path | None = None) -> list[str]:
    return [c.name for c in load_commands(cwd, home).values() if c.kind == "skill"]


def skills_listing(cwd: Path, home: Path | None = None) -> str | None:
    """The listing text, None when there is nothing to list."""
    found = invocable(cwd, home)
    if not found:
        return None
    return LISTING_HEAD + "\n\n" + "\n".join(f"- {c.name}: {c.description}" for c in found)


def preloaded_skills(names: list[str], cwd: Path, home: Path | None = None) -> str:
    """What a subagent definition's `skills:` adds to its system prompt: each named skill's folder and body
    (a name that is no skill is skipped: the definition still loads)."""
    found = load_commands(Path(cwd), home)
    parts = []
    for name in names:
        skill = found.get(name)
        if skill is not None:
            parts.append(f'<skill name="{name}">\nBase directory for this skill: {skill.base_dir}\n\n{skill.body.rstrip()}\n</skill>')
    return "\n\n" + "\n\n".join(parts) if parts else ""
