"""Plan mode's reminder: while the mode is plan, each prompt carries Claude Code's plan-mode system-reminder
(what the model may do, and that ExitPlanMode presents the plan), so a switch by Shift+Tab is known too."""

from __future__ import annotations

from typing import Any

from .mentions import system_reminder

PLAN_MODE_REMINDER = (
    "Plan mode is active. The user indicated that they do not want you to execute yet -- you MUST NOT make any "
    "edits, run any non-readonly tools (including changing configs or making commits), or otherwise make any "
    "changes to the system. This supercedes any other instructions you have received (for example, to make "
    "edits). Instead, you should:\n"
    "1. Answer the user's query comprehensively, using the AskUserQuestion tool if you need to ask the user "
    "clarifying questions. If you do use the AskUserQuestion, make sure to ask all clarifying questions you need "
    "to fully understand the user's intent before proceeding.\n"
    "2. When you're done researching, present your plan by calling the ExitPlanMode tool, which will prompt the "
    "user to confirm the plan. Do NOT make any file changes or run any tools that modify the system state in any "
    "way until the user has confirmed the plan."
)


def plan_mode_blocks(agent: Any) -> list[dict[str, Any]]:
    """The reminder block to send after the prompt, when the agent's policy is in plan mode."""
    if getattr(agent.policy, "mode", None) != "plan":
        return []
    return [{"type": "text", "text": system_reminder(PLAN_MODE_REMINDER)}]
