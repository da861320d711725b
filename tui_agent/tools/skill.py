"""The Skill tool (Claude Code's input schema: `skill`, `args`): the model loads a listed skill's body.

The result is what a typed `/name args` sends: "Base directory for this skill: <folder>" (so supporting
files can be Read) and the body with its arguments put in. Offered only where skills or commands exist.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from ..core.commands.expansion import substitute
from ..core.commands.grants import POLICY_KEY, grant
from ..core.skills import invocable
from .base import Tool, ToolContext, ToolError, ToolInput, ToolOutput

DESCRIPTION = """Execute a skill within the main conversation

When users ask you to perform tasks, check if any of the available skills match. Skills provide specialized capabilities and domain knowledge.

When users reference a "slash command" or "/<something>", they are referring to a skill. Use this tool to invoke it.

How to invoke:
- Set `skill` to the exact name of an available skill (no leading slash).
- Set `args` to pass optional arguments.

Important:
- Available skills are listed in system-reminder messages in the conversation
- Only invoke a skill that appears in that list, or one the user explicitly typed as `/<name>` in their message. Never guess or invent a skill name from training data; otherwise do not call this tool
- When a skill matches the user's request, this is a BLOCKING REQUIREMENT: invoke the relevant Skill tool BEFORE generating any other response about the task
- NEVER mention a skill without actually calling this tool
- Do not invoke a skill that is already running
- Do not use this tool for built-in CLI commands (like /help, /clear, etc.)
- If you see a <command-name> tag in the current conversation turn, the skill has ALREADY been loaded - follow the instructions directly instead of calling this tool again
"""


class SkillInput(ToolInput):
    skill: str = Field(description="The name of a skill from the available-skills list. Do not guess names.")
    args: str | None = Field(None, description="Optional arguments for the skill")


class SkillTool(Tool[SkillInput]):
    name = "Skill"
    description = DESCRIPTION
    Input = SkillInput

    def is_enabled(self) -> bool:
        return bool(invocable(Path.cwd()))

    def is_read_only(self, input: SkillInput) -> bool:
        return True

    def is_concurrency_safe(self, input: SkillInput) -> bool:
        return True

    async def call(self, input: SkillInput, ctx: ToolContext) -> ToolOutput:
        name = input.skill.strip().lstrip("/")
        found = {c.name: c for c in invocable(ctx.workspace.root)}
        command = found.get(name)
        if command is None:
            raise ToolError(f"Unknown skill: {name}")
        policy = ctx.services.get(POLICY_KEY)
        if policy is not None:
            grant(ctx, policy, command.allowed_tools)  # until the run ends (core/commands/grants.py)
        body = substitute(command.body, input.args or "")
        if command.kind == "skill":
            body = f"Base directory for this skill: {command.base_dir}\n\n{body}"
        return ToolOutput(body)
