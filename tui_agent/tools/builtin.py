"""The built-in tools, in the order the model sees them (Claude Code's order)."""

from __future__ import annotations

from typing import Any

from .agent import AgentTool
from .ask_user_question import AskUserQuestionTool
from .background import BashOutputTool, KillShellTool
from .base import Tool
from .bash import BashTool
from .edit import EditTool
from .glob import GlobTool
from .grep import GrepTool
from .notebook_edit import NotebookEditTool
from .plan_mode import EnterPlanModeTool, ExitPlanModeTool
from .read import ReadTool
from .skill import SkillTool
from .todo import TodoWriteTool
from .web_fetch import WebFetchTool
from .write import WriteTool


def all_tools() -> list[Tool[Any]]:
    return [
        AgentTool(),
        BashTool(),
        GlobTool(),
        GrepTool(),
        ExitPlanModeTool(),  # asks the person: not offered in -p (factory.py)
        ReadTool(),
        EditTool(),
        WriteTool(),
        NotebookEditTool(),
        TodoWriteTool(),
        BashOutputTool(),
        KillShellTool(),
        AskUserQuestionTool(),  # asks the person: not offered in -p (factory.py)
        WebFetchTool(),
        SkillTool(),  # offered only where skills or commands exist (tools/skill.py)
        EnterPlanModeTool(),
    ]
