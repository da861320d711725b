"""Plan mode over the SDK protocol, with the real claude-agent-sdk: ExitPlanMode's ask reaches `can_use_tool`;
the program's allow with a `setMode` update switches the mode (edits then run unasked in acceptEdits), its deny
keeps planning with its words; EnterPlanMode allowed puts the session in plan mode."""

from __future__ import annotations

from typing import Any

from claude_agent_sdk import PermissionResultAllow, PermissionResultDeny, ResultMessage, ToolPermissionContext, query
from claude_agent_sdk.types import PermissionUpdate

from tests.e2e.sdk_support import result_text
from tui_agent.core.permissions import PLAN_MODE_MESSAGE
from tui_agent.core.plan_reminder import PLAN_MODE_REMINDER
from tui_agent.providers.scripted import Reply, Text, ToolUse
from tui_agent.tools.plan_mode import APPROVED, EDITED_PLAN_HEADER, ENTERED

PLAN = "# Make notes\n1. Write notes.txt\n"


async def collect(prompt: str, options: Any) -> list[Any]:
    return [m async for m in query(prompt=prompt, options=options)]


def set_mode(mode: str) -> PermissionUpdate:
    return PermissionUpdate(type="setMode", mode=mode, destination="session")  # type: ignore[arg-type]


async def test_allow_with_set_mode_accept_edits_leaves_plan_mode_and_edits_run_unasked(make_run) -> None:
    run = make_run([])
    notes = run.work / "notes.txt"
    run.model._script = [
        Reply([ToolUse("Write", {"file_path": str(notes), "content": "early\n"}, id="w0")]),  # plan mode: refused
        Reply([ToolUse("ExitPlanMode", {"plan": PLAN}, id="plan")]),
        Reply([ToolUse("Write", {"file_path": str(notes), "content": "notes\n"}, id="w1")]),
        Reply([Text("done")]),
    ]
    asked: list[tuple[str, dict[str, Any]]] = []

    async def can_use_tool(name: str, tool_input: dict[str, Any], ctx: ToolPermissionContext):
        asked.append((name, tool_input))
        return PermissionResultAllow(updated_permissions=[set_mode("acceptEdits")])

    messages = await collect("make notes", run.options(permission_mode="plan", can_use_tool=can_use_tool))

    assert asked == [("ExitPlanMode", {"plan": PLAN})]  # the Write after approval needed no one (acceptEdits)
    assert result_text(run.tool_results(1)["w0"]) == PLAN_MODE_MESSAGE
    assert result_text(run.tool_results(2)["plan"]) == APPROVED
    assert notes.read_text() == "notes\n"
    assert any(PLAN_MODE_REMINDER in b.get("text", "") for b in run.requests[0]["messages"][0]["content"])
    assert isinstance(messages[-1], ResultMessage) and messages[-1].subtype == "success"


async def test_deny_keeps_planning_and_the_model_gets_the_programs_words(make_run) -> None:
    run = make_run([])
    notes = run.work / "notes.txt"
    run.model._script = [
        Reply([ToolUse("ExitPlanMode", {"plan": PLAN}, id="plan")]),
        Reply([ToolUse("Write", {"file_path": str(notes), "content": "x\n"}, id="w1")]),
        Reply([Text("planning on")]),
    ]

    async def can_use_tool(name: str, tool_input: dict[str, Any], ctx: ToolPermissionContext):
        return PermissionResultDeny(message="Also cover the README.")

    await collect("make notes", run.options(permission_mode="plan", can_use_tool=can_use_tool))

    denied = run.tool_results(1)["plan"]
    assert denied["is_error"] and "Also cover the README." in result_text(denied)
    assert result_text(run.tool_results(2)["w1"]) == PLAN_MODE_MESSAGE  # still in plan mode
    assert not notes.exists()


async def test_a_plan_the_program_edits_is_approved_as_edited(make_run) -> None:
    run = make_run([Reply([ToolUse("ExitPlanMode", {"plan": PLAN}, id="plan")]), Reply([Text("ok")])])

    async def can_use_tool(name: str, tool_input: dict[str, Any], ctx: ToolPermissionContext):
        return PermissionResultAllow(updated_input={"plan": "# Their plan"}, updated_permissions=[set_mode("default")])

    await collect("make notes", run.options(permission_mode="plan", can_use_tool=can_use_tool))

    approved = run.tool_results(1)["plan"]
    assert not approved.get("is_error")
    assert result_text(approved) == f"{APPROVED}\n\n{EDITED_PLAN_HEADER}\n# Their plan"


async def test_enter_plan_mode_allowed_makes_later_edits_refused(make_run) -> None:
    run = make_run([])
    notes = run.work / "notes.txt"
    run.model._script = [
        Reply([ToolUse("EnterPlanMode", {}, id="enter")]),
        Reply([ToolUse("Write", {"file_path": str(notes), "content": "x\n"}, id="w1")]),
        Reply([Text("planning")]),
    ]
    asked: list[str] = []

    async def can_use_tool(name: str, tool_input: dict[str, Any], ctx: ToolPermissionContext):
        asked.append(name)
        return PermissionResultAllow()  # no setMode: the tool itself switches to plan

    await collect("add auth", run.options(permission_mode="acceptEdits", can_use_tool=can_use_tool))

    assert asked == ["EnterPlanMode"]
    assert result_text(run.tool_results(1)["enter"]).startswith(ENTERED)
    assert result_text(run.tool_results(2)["w1"]) == PLAN_MODE_MESSAGE
    assert not notes.exists()
