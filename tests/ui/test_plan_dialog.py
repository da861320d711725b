"""Plan mode in the real app: ExitPlanMode's dialog (approve into acceptEdits or default, keep planning with
words the model gets, esc), EnterPlanMode's yes / no, the status line showing the mode at once, Shift+Tab
after an approval, the approved plan in its cell, and snapshots of a long plan at 120×40 and 80×24."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input

from tui_agent.core.plan_reminder import PLAN_MODE_REMINDER
from tui_agent.providers.scripted import Reply, Text, ToolUse
from tui_agent.tools.plan_mode import APPROVED, ENTERED
from tui_agent.ui.screens.plan import EnterPlanScreen, ExitPlanScreen

from tests.ui.app_support import FakeClock, build, isolate, transcript_text, trust_for_tests, until, until_idle
from tests.ui.app_support import type_keys
from tests.ui.scenes import SCENE_ROOT, fresh_project, settle

PLAN = "# Add a greeting\n\n1. Add `greet()` to `app.py`\n2. Call it from `main()`\n3. Test it\n"
LONG_PLAN = "# Rework the configuration loader\n\n" + "\n".join(
    f"{i}. **Step {i}**: change `config_{i}.py` so that the loader reads section {i} and reports errors with line numbers"
    for i in range(1, 31)
) + "\n\n```python\ndef load(path: str) -> dict:\n    return parse(path)\n```\n"


def exit_script(plan: str = PLAN) -> list[Any]:
    return [Reply([ToolUse("ExitPlanMode", {"plan": plan}, id="plan1")]), Reply([Text("on it")])]


def tool_result(body: dict[str, Any], tool_use_id: str) -> dict[str, Any]:
    for message in body["messages"]:
        if isinstance(message.get("content"), list):
            for block in message["content"]:
                if block.get("type") == "tool_result" and block.get("tool_use_id") == tool_use_id:
                    return block
    raise AssertionError(f"no tool_result for {tool_use_id}")


def result_text(block: dict[str, Any]) -> str:
    content = block.get("content")
    return content if isinstance(content, str) else "".join(b.get("text", "") for b in content or [])


def status_text(app: Any) -> str:
    app.status.refresh()
    return str(app.status.render())


async def open_dialog(pilot: Any, app: Any, kind: type) -> Any:
    await until(pilot, lambda: isinstance(app.screen, kind) and app.screen.is_mounted)
    await pilot.pause()
    return app.screen


async def prompt(pilot: Any, text: str) -> None:
    await type_keys(pilot, *["space" if c == " " else c for c in text], "enter")


class TestExitPlanMode:
    async def test_approve_with_auto_accept_switches_to_accept_edits_and_the_status_line_shows_it(self, project: Path) -> None:
        app, model = build(project, exit_script(), permission_mode="plan")
        async with app.run_test(size=(120, 40)) as pilot:
            await prompt(pilot, "plan it")
            await open_dialog(pilot, app, ExitPlanScreen)
            assert "plan" in status_text(app)
            await pilot.press("1")  # approve, edits accepted from now on
            await until(pilot, lambda: app.agent.policy.mode == "acceptEdits")
            assert "accept edits" in status_text(app).lower() or "acceptEdits" in status_text(app)
            await until_idle(pilot, app)
            result = tool_result(model.requests[1], "plan1")
            assert result_text(result) == APPROVED and not result.get("is_error")
            assert "User approved the plan" in transcript_text(app) and "Add a greeting" in transcript_text(app)

    async def test_approve_with_manual_edits_switches_to_default_with_arrows_and_enter(self, project: Path) -> None:
        app, model = build(project, exit_script(), permission_mode="plan")
        async with app.run_test(size=(120, 40)) as pilot:
            await prompt(pilot, "plan it")
            await open_dialog(pilot, app, ExitPlanScreen)
            await pilot.press("down", "enter")  # the second choice: approve, and keep asking before edits
            await until_idle(pilot, app)
            assert app.agent.policy.mode == "default"
            assert result_text(tool_result(model.requests[1], "plan1")) == APPROVED

    async def test_keep_planning_sends_the_words_to_the_model_and_stays_in_plan_mode(self, project: Path) -> None:
        app, model = build(project, exit_script(), permission_mode="plan")
        async with app.run_test(size=(120, 40)) as pilot:
            await prompt(pilot, "plan it")
            dialog = await open_dialog(pilot, app, ExitPlanScreen)
            await pilot.press("3")  # keep planning: a field for what should change
            # the field is mounted, then focused (a message later): it must come to hold the focus
            await until(pilot, lambda: bool(dialog.query("#words")) and dialog.query_one("#words", Input).has_focus)
            await pilot.press("enter")  # no words yet: the dialog says what it needs
            await until(pilot, lambda: "type what should change" in str(dialog.query_one("#notice").render()))
            await prompt(pilot, "use a class instead")  # typed into the field, then enter sends it
            await until_idle(pilot, app)
            assert app.agent.policy.mode == "plan"
            result = tool_result(model.requests[1], "plan1")
            assert result.get("is_error") and "use a class instead" in result_text(result)
            assert "doesn't want to proceed" in result_text(result)

    async def test_escape_keeps_planning_without_words(self, project: Path) -> None:
        app, model = build(project, exit_script(), permission_mode="plan")
        async with app.run_test(size=(120, 40)) as pilot:
            await prompt(pilot, "plan it")
            await open_dialog(pilot, app, ExitPlanScreen)
            await pilot.press("escape")
            await until_idle(pilot, app)
            assert app.agent.policy.mode == "plan"
            result = tool_result(model.requests[1], "plan1")
            assert result.get("is_error") and "The user said" not in result_text(result)

    async def test_escape_in_the_words_field_goes_back_to_the_choices(self, project: Path) -> None:
        app, _ = build(project, exit_script(), permission_mode="plan")
        async with app.run_test(size=(120, 40)) as pilot:
            await prompt(pilot, "plan it")
            dialog = await open_dialog(pilot, app, ExitPlanScreen)
            await pilot.press("3")
            await until(pilot, lambda: bool(dialog.query("#words")))
            await pilot.press("escape")
            await until(pilot, lambda: not dialog.query("#words"))
            assert app.screen is dialog
            await pilot.press("2")
            await until_idle(pilot, app)
            assert app.agent.policy.mode == "default"

    async def test_shift_tab_after_an_approval_cycles_on_from_the_new_mode(self, project: Path) -> None:
        app, _ = build(project, exit_script(), permission_mode="plan")
        async with app.run_test(size=(120, 40)) as pilot:
            await prompt(pilot, "plan it")
            await open_dialog(pilot, app, ExitPlanScreen)
            await pilot.press("1")
            await until_idle(pilot, app)
            assert app.agent.policy.mode == "acceptEdits"
            await pilot.press("shift+tab")  # acceptEdits → plan, as the cycle goes
            assert app.agent.policy.mode == "plan"
            assert "plan" in status_text(app).lower()
            await pilot.press("shift+tab")
            assert app.agent.policy.mode == "default"

    async def test_outside_plan_mode_the_model_is_told_and_nobody_is_asked(self, project: Path) -> None:
        app, model = build(project, exit_script())
        async with app.run_test(size=(120, 40)) as pilot:
            await prompt(pilot, "plan it")
            await until_idle(pilot, app)
            result = tool_result(model.requests[1], "plan1")
            assert result.get("is_error") and "You are not in plan mode" in result_text(result)
            assert app.agent.policy.mode == "default"

    async def test_typed_sentence_does_not_answer_the_dialog(self, project: Path, monkeypatch: Any) -> None:
        monkeypatch.setattr(ExitPlanScreen, "typing_clock", staticmethod(FakeClock()))  # every key at once: a burst
        app, _ = build(project, exit_script(), permission_mode="plan")
        async with app.run_test(size=(120, 40)) as pilot:
            await prompt(pilot, "plan it")
            dialog = await open_dialog(pilot, app, ExitPlanScreen)
            await type_keys(pilot, *"123abc")  # a burst of keys is text, not three answers
            await until(pilot, lambda: "123abc" in app.prompt.text)
            assert app.screen is dialog and app.agent.policy.mode == "plan"


class TestEnterPlanMode:
    async def test_yes_enters_plan_mode_and_the_next_prompt_carries_the_reminder(self, project: Path) -> None:
        script = [Reply([ToolUse("EnterPlanMode", {}, id="enter1")]), Reply([Text("planning")]), Reply([Text("still planning")])]
        app, model = build(project, script)
        async with app.run_test(size=(120, 40)) as pilot:
            await prompt(pilot, "add auth")
            await open_dialog(pilot, app, EnterPlanScreen)
            await pilot.press("1")
            await until(pilot, lambda: app.agent.policy.mode == "plan")
            assert "plan" in status_text(app).lower()
            await until_idle(pilot, app)
            assert result_text(tool_result(model.requests[1], "enter1")).startswith(ENTERED)
            await prompt(pilot, "go on")
            await until_idle(pilot, app)
            last = model.requests[2]["messages"][-1]["content"]
            assert any(PLAN_MODE_REMINDER in b.get("text", "") for b in last)

    async def test_no_stays_in_the_mode_and_tells_the_model(self, project: Path) -> None:
        script = [Reply([ToolUse("EnterPlanMode", {}, id="enter1")]), Reply([Text("ok, coding")])]
        app, model = build(project, script)
        async with app.run_test(size=(120, 40)) as pilot:
            await prompt(pilot, "add auth")
            await open_dialog(pilot, app, EnterPlanScreen)
            await pilot.press("down", "enter")  # "No, start implementing now"
            await until_idle(pilot, app)
            assert app.agent.policy.mode == "default"
            result = tool_result(model.requests[1], "enter1")
            assert result.get("is_error") and "doesn't want to proceed" in result_text(result)


# ----- snapshots --------------------------------------------------------------------------------------


@pytest.fixture
def scene_home(tmp_path: Path, monkeypatch: Any, scene_lock: None) -> None:
    """As tests/ui/test_snapshots.py: the scenes' fixed folder (it is drawn), one scene at a time."""
    isolate(monkeypatch, tmp_path)
    trust_for_tests(tmp_path / "home", SCENE_ROOT)


def _plan_scene() -> tuple[Any, Any]:
    script = [Reply([ToolUse("ExitPlanMode", {"plan": LONG_PLAN}, id="plan1")], input_tokens=3000, output_tokens=400)]
    app, _ = build(fresh_project(), script, clock=FakeClock(), permission_mode="plan")

    async def run_before(pilot: Any) -> None:
        app.prompt.cursor_blink = False
        await prompt(pilot, "plan the config rework")
        await open_dialog(pilot, app, ExitPlanScreen)
        await settle(pilot, app)

    return app, run_before


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_snapshot_long_plan_dialog(snap_compare: Any, scene_home: None, size: tuple[int, int]) -> None:
    """You should see "Ready to code?" over the conversation: the plan rendered as Markdown in a scrolling
    area (its heading, numbered bold steps), the three choices below it with the first highlighted, and a hint
    saying how many more lines pgdn shows; the status line says plan mode; nothing cut or overlapping."""
    app, run_before = _plan_scene()
    assert snap_compare(app, terminal_size=size, run_before=run_before)
