"""TodoWrite: replaces the session's list and hands it to the UI."""

from __future__ import annotations

from tests.tools.support import run_tool, text
from tui_agent.tools.base import ToolContext
from tui_agent.tools.todo import TodoWriteTool

TODOS = [
    {"content": "Write tests", "status": "completed", "activeForm": "Writing tests"},
    {"content": "Fix the bug", "status": "in_progress", "activeForm": "Fixing the bug"},
]


async def test_list_is_stored_and_returned_for_the_ui(ctx: ToolContext) -> None:
    out = await run_tool(TodoWriteTool(), ctx, todos=TODOS)
    assert not out.is_error and text(out).startswith("Todos have been modified successfully.")
    assert out.data == {"type": "todos", "todos": TODOS, "old_todos": []}
    second = await run_tool(TodoWriteTool(), ctx, todos=TODOS[1:])
    assert second.data["old_todos"] == TODOS and ctx.services["todos"] == TODOS[1:]


async def test_a_list_with_every_item_done_is_shown_but_not_kept(ctx: ToolContext) -> None:
    await run_tool(TodoWriteTool(), ctx, todos=TODOS)
    done = await run_tool(TodoWriteTool(), ctx, todos=TODOS[:1])
    assert done.data["todos"] == TODOS[:1] and done.data["old_todos"] == TODOS
    assert ctx.services["todos"] == [], "Claude Code keeps no list once all is done: the next one starts fresh"


async def test_unknown_status_and_missing_active_form_are_validation_errors(ctx: ToolContext) -> None:
    out = await run_tool(TodoWriteTool(), ctx, todos=[{"content": "x", "status": "done", "activeForm": "x"}])
    assert out.is_error and "todos[0].status" in text(out)
    out = await run_tool(TodoWriteTool(), ctx, todos=[{"content": "x", "status": "pending"}])
    assert out.is_error and "The required parameter `todos[0].activeForm` is missing" in text(out)


def test_todo_write_is_not_concurrency_safe_and_summarises_progress() -> None:
    tool = TodoWriteTool()
    parsed = tool.Input.model_validate({"todos": TODOS})
    assert not tool.is_read_only(parsed) and not tool.is_concurrency_safe(parsed)
    assert tool.summarize(parsed) == "1/2 todos completed"
