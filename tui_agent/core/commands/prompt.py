"""The prompt run_prompt sends (core/mentions.py): where `-p`, the app and the SDK protocol meet.

A typed `/name args` naming a custom command or skill becomes Claude Code's two blocks (the
`<command-message>` header, then the expanded body, whose @-mentions are attached as typed ones are);
anything else is the text with its @-mentions. The skills listing goes once, before a conversation's
first prompt, as a system-reminder.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..mentions import prompt_with_mentions, system_reminder
from ..plan_reminder import plan_mode_blocks
from ..skills import skills_listing
from .expansion import expand_command

Prompt = str | list[dict[str, Any]]


def _blocks(prompt: Prompt) -> list[dict[str, Any]]:
    return [{"type": "text", "text": prompt}] if isinstance(prompt, str) else list(prompt)


async def command_prompt(agent: Any, text: Prompt, *, mentions: bool = True) -> tuple[Prompt, list[str]]:
    """(the prompt to run, problems to show the user). `mentions=False` (an SDK program's prompt, which the
    protocol sends as given) leaves a prompt that names no command as it is."""
    expanded = await expand_command(agent, text) if isinstance(text, str) else None
    problems: list[str] = []
    if expanded is None and (not mentions or not isinstance(text, str)):
        prompt: Prompt = text
    elif expanded is None:
        prompt, attachments = await prompt_with_mentions(text, agent.context)
        problems = list(attachments.problems)
    else:
        head, body, problems = expanded
        prompt_body, attachments = await prompt_with_mentions(body, agent.context)
        prompt = [{"type": "text", "text": head}, *_blocks(prompt_body)]
        problems += attachments.problems
    listing = None if agent.history else skills_listing(Path(agent.workspace.root))
    if listing:
        prompt = [{"type": "text", "text": system_reminder(listing)}, *_blocks(prompt)]
    if plan := plan_mode_blocks(agent):  # in plan mode every prompt says so (core/plan_reminder.py)
        prompt = [*_blocks(prompt), *plan]
    return prompt, problems


async def run_with_commands(agent: Any, text: Prompt, *, mentions: bool = True) -> Any:
    """Run a prompt (core/mentions.py run_prompt, the SDK protocol): commands expanded, problems shown as
    notices, a command's or skill's `allowed-tools` allowed until the run ends."""
    from ..events import Notice
    from .expansion import find_command
    from .grants import POLICY_KEY, grant, revoke_all

    agent.context.services[POLICY_KEY] = agent.policy
    found = find_command(agent, text) if isinstance(text, str) else None
    if found is not None:
        grant(agent.context, agent.policy, found[0].allowed_tools)
    try:
        prompt, problems = await command_prompt(agent, text, mentions=mentions)
        for problem in problems:
            agent.emit(Notice("warning", problem))
        return await agent.run(prompt)
    finally:
        revoke_all(agent.context.services, agent.policy)
