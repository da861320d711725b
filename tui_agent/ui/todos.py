"""The todo list the panel shows (widgets/todo_panel.py): the main agent's latest TodoWrite, taken from the
live calls or, for a resumed session, from its saved history.

Claude Code keeps one list per agent and shows the main agent's; a subagent's calls (they have a parent)
are left out here too. Everything here is plain data, so it is tested without a screen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable

if TYPE_CHECKING:  # the app imports this module before its first frame: nothing heavy on the way
    from .widgets.tool_calls import ToolCalls

TOOL = "TodoWrite"
STATUSES = ("pending", "in_progress", "completed")
SERVICE_KEY = "todos"
"""Where TodoWrite keeps the list among the agent's services (tools/todo.py)."""


@dataclass(frozen=True, slots=True)
class Todo:
    content: str
    status: str
    active_form: str

    @property
    def done(self) -> bool:
        return self.status == "completed"


def clean_todos(value: Any) -> list[Todo] | None:
    """`value` as a todo list, None when it is not a list. Items that are not todos are skipped and an
    unknown status counts as pending: a hand-edited or older transcript still shows what it can."""
    if not isinstance(value, list):
        return None
    out: list[Todo] = []
    for item in value:
        if not isinstance(item, dict):
            continue
        content = item.get("content")
        if not isinstance(content, str) or not content.strip():
            continue
        status = item.get("status") if item.get("status") in STATUSES else "pending"
        active = item.get("activeForm")
        out.append(Todo(content, str(status), active if isinstance(active, str) and active.strip() else content))
    return out


def live_todos(calls: "ToolCalls") -> tuple[str, list[Todo]] | None:
    """The main agent's last TodoWrite of the current run that succeeded: (its call id, its list)."""
    for call in reversed(list(calls.calls.values())):
        if call.name != TOOL or call.parent is not None or call.phase != "ok":
            continue
        data = call.data if isinstance(call.data, dict) else {}
        todos = clean_todos(data.get("todos") if data.get("type") == "todos" else call.input.get("todos"))
        if todos is not None:
            return call.id, todos
    return None


def last_todos(history: Iterable[dict[str, Any]]) -> list[Todo]:
    """The list a saved conversation ended with (core/session/todos.py), cleaned; empty when there is none."""
    from ..core.session.todos import last_todo_list

    return clean_todos(last_todo_list(history)) or []


def forget_todos(app: Any) -> None:
    """/clear: a new history starts with no list, on the screen and for the next TodoWrite's `oldTodos`."""
    agent = getattr(app, "agent", None)
    if agent is not None:
        agent.context.services.pop(SERVICE_KEY, None)
    from .widgets.todo_panel import TodoPanel

    for panel in app.query(TodoPanel):
        panel.forget()
