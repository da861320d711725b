"""EnterPlanMode / ExitPlanMode: Claude Code's schemas and results, the mode they switch, the refusal outside
plan mode, and that `-p` (no one to ask) does not offer them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tui_agent.core.permissions import PermissionEngine
from tui_agent.tools.base import ToolContext
from tui_agent.tools.plan_mode import (
    APPROVED,
    APPROVED_EMPTY,
    EDITED_PLAN_HEADER,
    ENTERED_RESULT,
    NOT_IN_PLAN_MODE,
    POLICY_SERVICE,
    EnterPlanModeTool,
    ExitPlanModeTool,
)

from tests.tools.support import run_tool, text


def engine(tmp_path: Path, mode: str) -> PermissionEngine:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return PermissionEngine(tmp_path, mode=mode, home=home, config_dir=home / ".config")  # type: ignore[arg-type]


def with_policy(ctx: ToolContext, policy: Any) -> ToolContext:
    ctx.services[POLICY_SERVICE] = policy
    return ctx


class TestSchemas:
    def test_exit_takes_claude_codes_plan_and_accepts_allowed_prompts(self) -> None:
        schema = ExitPlanModeTool().input_schema()
        assert schema["required"] == ["plan"]
        assert set(schema["properties"]) == {"plan", "allowedPrompts"}
        assert schema["additionalProperties"] is False
        parsed = ExitPlanModeTool.Input.model_validate({"plan": "x", "allowedPrompts": [{"tool": "Bash", "prompt": "run tests"}]})
        assert parsed.allowedPrompts[0].prompt == "run tests"  # type: ignore[attr-defined]

    def test_enter_takes_nothing(self) -> None:
        schema = EnterPlanModeTool().input_schema()
        assert schema.get("properties", {}) == {} and schema["additionalProperties"] is False

    def test_both_always_ask_the_person(self) -> None:
        assert ExitPlanModeTool.asks_user and EnterPlanModeTool.asks_user


class TestExitPlanMode:
    async def test_outside_plan_mode_the_model_is_told_how_to_enter_it(self, ctx: ToolContext, tmp_path: Path) -> None:
        out = await run_tool(ExitPlanModeTool(), with_policy(ctx, engine(tmp_path, "default")), plan="# Plan")
        assert out.is_error and text(out) == NOT_IN_PLAN_MODE

    async def test_approved_plan_gets_claude_codes_text_and_leaves_plan_mode(self, ctx: ToolContext, tmp_path: Path) -> None:
        policy = engine(tmp_path, "plan")
        out = await run_tool(ExitPlanModeTool(), with_policy(ctx, policy), plan="# Plan\n1. do it")
        assert text(out) == APPROVED and not out.is_error
        assert policy.mode == "default"  # nobody chose a mode: back to asking before edits
        assert out.data == {"type": "plan", "plan": "# Plan\n1. do it", "edited": False, "mode": "default"}

    async def test_a_mode_chosen_before_the_call_is_kept(self, ctx: ToolContext, tmp_path: Path) -> None:
        policy = engine(tmp_path, "plan")
        tool = ExitPlanModeTool()
        parsed = tool.Input.model_validate({"plan": "p"})
        assert await tool.validate_input(parsed, with_policy(ctx, policy)) is None
        policy.mode = "acceptEdits"  # the dialog (or a program's setMode) switched it
        out = await tool.call(parsed, ctx)
        assert policy.mode == "acceptEdits" and text(out) == APPROVED

    async def test_a_plan_edited_in_the_answer_is_checked_again_after_the_switch_and_echoed(self, ctx: ToolContext, tmp_path: Path) -> None:
        policy = engine(tmp_path, "plan")
        tool = ExitPlanModeTool()
        assert await tool.validate_input(tool.Input.model_validate({"plan": "mine"}), with_policy(ctx, policy)) is None
        policy.mode = "acceptEdits"  # a program's setMode, with an updatedInput: validated again
        edited = tool.Input.model_validate({"plan": "theirs"})
        assert await tool.validate_input(edited, ctx) is None
        out = await tool.call(edited, ctx)
        assert text(out) == f"{APPROVED}\n\n{EDITED_PLAN_HEADER}\ntheirs"
        # Once ran, it is refused outside plan mode again.
        assert await tool.validate_input(edited, ctx) == NOT_IN_PLAN_MODE

    async def test_an_empty_plan_is_approval_to_proceed(self, ctx: ToolContext, tmp_path: Path) -> None:
        out = await run_tool(ExitPlanModeTool(), with_policy(ctx, engine(tmp_path, "plan")), plan="  ")
        assert text(out) == APPROVED_EMPTY

    async def test_a_subagent_cannot_use_it(self, ctx: ToolContext, tmp_path: Path) -> None:
        ctx.services["hook_agent"] = {"agent_id": "a1", "agent_type": "general-purpose"}
        out = await run_tool(ExitPlanModeTool(), with_policy(ctx, engine(tmp_path, "plan")), plan="p")
        assert out.is_error and "cannot be used in agent contexts" in text(out)

    async def test_malformed_input_is_a_clear_error(self, ctx: ToolContext) -> None:
        out = await run_tool(ExitPlanModeTool(), ctx, plan=["not", "text"])
        assert out.is_error and "plan" in text(out)

    def test_summary_is_the_plans_title(self) -> None:
        assert ExitPlanModeTool().summarize(ExitPlanModeTool.Input.model_validate({"plan": "\n## Add auth\n1. x"})) == "Add auth"


class TestEnterPlanMode:
    async def test_entering_switches_to_plan_with_claude_codes_text(self, ctx: ToolContext, tmp_path: Path) -> None:
        policy = engine(tmp_path, "acceptEdits")
        out = await run_tool(EnterPlanModeTool(), with_policy(ctx, policy))
        assert text(out) == ENTERED_RESULT and policy.mode == "plan"
        assert "DO NOT write or edit any files yet" in text(out)

    async def test_a_subagent_cannot_use_it(self, ctx: ToolContext, tmp_path: Path) -> None:
        ctx.services["hook_agent"] = {"agent_id": "a1", "agent_type": "general-purpose"}
        policy = engine(tmp_path, "default")
        out = await run_tool(EnterPlanModeTool(), with_policy(ctx, policy))
        assert out.is_error and text(out) == "EnterPlanMode tool cannot be used in agent contexts"
        assert policy.mode == "default"


class TestWhereOffered:
    def test_not_offered_in_print_mode(self, tmp_path: Path, monkeypatch: Any) -> None:
        """`-p` has no one to ask: the factory leaves out both (and the app, which asks, offers both)."""
        from tui_agent.config import AgentSettings
        from tui_agent.factory import build_agent
        from tui_agent.providers.scripted import ScriptedModel

        from tests.ui.app_support import isolate

        isolate(monkeypatch, tmp_path)
        work = tmp_path / "work"
        work.mkdir()

        async def answer(request: Any) -> Any:
            raise AssertionError("not asked")

        headless = build_agent(AgentSettings(cwd=work), ask=None, scripted=ScriptedModel([]))
        asked = build_agent(AgentSettings(cwd=work), ask=answer, scripted=ScriptedModel([]))
        assert not {"ExitPlanMode", "EnterPlanMode"} & set(headless.registry.names)
        assert {"ExitPlanMode", "EnterPlanMode"} <= set(asked.registry.names)
