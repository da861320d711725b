"""A resumed session goes on from the todo list it ended with, and a finished list is not kept (Claude Code)."""

from __future__ import annotations

from tui_agent.core.session.todos import last_todo_list
from tui_agent.providers.scripted import Reply, Text, ToolUse
from tui_agent.tools.todo import TodoWriteTool, kept_list

FIRST = [{"content": "Read the code", "status": "completed", "activeForm": "Reading the code"},
         {"content": "Run the tests", "status": "in_progress", "activeForm": "Running the tests"}]
SECOND = [{**FIRST[0]}, {**FIRST[1], "status": "completed"}]


async def test_the_next_todowrite_after_a_resume_gets_the_resumed_list_as_its_old_todos(make_harness) -> None:
    h1 = make_harness([Reply([ToolUse("TodoWrite", {"todos": FIRST})]), Reply([Text("started")])], tools=[TodoWriteTool()])
    await h1.agent.run("plan it")
    await h1.agent.close()
    h2 = make_harness([Reply([ToolUse("TodoWrite", {"todos": SECOND})]), Reply([Text("done")])], tools=[TodoWriteTool()],
                      continue_session=True)
    assert h2.agent.context.services["todos"] == FIRST
    await h2.agent.run("go on")
    from tui_agent.core.events import ToolFinished

    finished = [e for e in h2.events if isinstance(e, ToolFinished) and e.name == "TodoWrite"]
    assert finished[-1].data["old_todos"] == FIRST and finished[-1].data["todos"] == SECOND
    assert h2.agent.context.services["todos"] == [], "every item done: the agent keeps no list"


def test_a_denied_or_failed_todowrite_does_not_count_and_junk_is_left_out() -> None:
    history = [
        {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "TodoWrite", "input": {"todos": FIRST}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a", "content": "ok"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "b", "name": "TodoWrite", "input": {"todos": SECOND}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "b", "content": "denied", "is_error": True}]},
    ]
    assert last_todo_list(history) == FIRST
    assert last_todo_list(history[:1]) is None, "a call without a result changed nothing"
    assert kept_list([*FIRST, "junk"]) == FIRST
    assert kept_list(SECOND) == []
