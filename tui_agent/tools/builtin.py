"""The built-in tools, in the order the model sees them (Claude Code's order)."""

from __future__ import annotations

from typing import Any

from .agent import AgentTool
from .background import BashOutputTool, KillShellTool
from .base import Tool
from .bash import BashTool
from .edit import EditTool
from .glob import GlobTool
from .grep import GrepTool
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
        ReadTool(),
        EditTool(),
        WriteTool(),
        TodoWriteTool(),
        BashOutputTool(),
        KillShellTool(),
        WebFetchTool(),
        SkillTool(),  # offered only where skills or commands exist (tools/skill.py)
    ]
