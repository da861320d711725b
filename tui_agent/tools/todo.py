"""TodoWrite: the model's task list for the session, replaced whole on each call and shown by the UI."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field

from .base import Tool, ToolContext, ToolInput, ToolOutput

SERVICE_KEY = "todos"


def kept_list(todos: list[Any]) -> list[dict[str, Any]]:
    """What the agent keeps after a TodoWrite: the list, or nothing once every item is done (Claude Code's
    rule: the next list starts fresh)."""
    items = [t for t in todos if isinstance(t, dict)]
    return [] if items and all(t.get("status") == "completed" for t in items) else items


class Todo(ToolInput):
    content: str = Field(min_length=1, description="The task, in imperative form (e.g. \"Run the tests\")")
    status: Literal["pending", "in_progress", "completed"] = Field(description="The task's state")
    activeForm: str = Field(
        min_length=1, description='The task in present continuous form, shown while it runs (e.g. "Running the tests")'
    )


class TodoWriteInput(ToolInput):
    todos: list[Todo] = Field(description="The updated todo list")


class TodoWriteTool(Tool[TodoWriteInput]):
    name = "TodoWrite"
    Input = TodoWriteInput
    bookkeeping = True
    description: ClassVar[str] = """Use this tool to create and manage a structured task list for your current coding session. This helps you track progress, organize complex tasks, and demonstrate thoroughness to the user.
It also helps the user understand the progress of the task and overall progress of their requests.

## When to Use This Tool
Use this tool proactively in these scenarios:

1. Complex multi-step tasks - When a task requires 3 or more distinct steps or actions
2. Non-trivial and complex tasks - Tasks that require careful planning or multiple operations
3. User explicitly requests todo list - When the user directly asks you to use the todo list
4. User provides multiple tasks - When users provide a list of things to be done (numbered or comma-separated)
5. After receiving new instructions - Immediately capture user requirements as todos
6. When you start working on a task - Mark it as in_progress BEFORE beginning work. Ideally you should only have one todo as in_progress at a time
7. After completing a task - Mark it as completed and add any new follow-up tasks discovered during implementation

## When NOT to Use This Tool

Skip using this tool when:
1. There is only a single, straightforward task
2. The task is trivial and tracking it provides no organizational benefit
3. The task can be completed in less than 3 trivial steps
4. The task is purely conversational or informational

## Task States and Management

1. **Task States**: Use these states to track progress:
   - pending: Task not yet started
   - in_progress: Currently working on (limit to ONE task at a time)
   - completed: Task finished successfully

   Each task has two forms: `content`, the imperative form describing what needs to be done (e.g. "Run tests"), and `activeForm`, the present continuous form shown during execution (e.g. "Running tests").

2. **Task Management**:
   - Update task status in real-time as you work
   - Mark tasks complete IMMEDIATELY after finishing (don't batch completions)
   - Exactly ONE task must be in_progress at any time (not less, not more)
   - Complete current tasks before starting new ones
   - Remove tasks that are no longer relevant from the list entirely

3. **Task Completion Requirements**:
   - ONLY mark a task as completed when you have FULLY accomplished it
   - If you encounter errors, blockers, or cannot finish, keep the task as in_progress
   - Never mark a task as completed if tests are failing, implementation is partial, or errors are unresolved

When in doubt, use this tool. Being proactive with task management demonstrates attentiveness and ensures you complete all requirements successfully."""

    def summarize(self, input: TodoWriteInput) -> str:
        done = sum(t.status == "completed" for t in input.todos)
        return f"{done}/{len(input.todos)} todos completed"

    async def call(self, input: TodoWriteInput, ctx: ToolContext) -> ToolOutput:
        todos: list[dict[str, Any]] = [t.model_dump() for t in input.todos]
        old = ctx.services.get(SERVICE_KEY, [])
        ctx.services[SERVICE_KEY] = kept_list(todos)
        return ToolOutput(
            "Todos have been modified successfully. Ensure that you continue to use the todo list to track your "
            "progress. Please proceed with the current tasks if applicable",
            data={"type": "todos", "todos": todos, "old_todos": old},
        )
