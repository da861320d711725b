"""The demo model's scenes on the real app, as a newcomer without a key tries them: "ask" opens the question
dialog and the answer reaches the model; "plan" enters plan mode and approves a plan that then writes a
file; "write" writes a file that Esc Esc rewinds away, putting the prompt back in the input box."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.ui.app_support import past_the_guard, transcript_text, until, until_idle
from tests.ui.app_support import type_keys
from tui_agent.config import AgentSettings
from tui_agent.providers.demo import demo_model
from tui_agent.ui.app import make_app
from tui_agent.ui.screens.permission import PermissionScreen
from tui_agent.ui.screens.plan import EnterPlanScreen, ExitPlanScreen
from tui_agent.ui.screens.question import QuestionScreen
from tui_agent.ui.screens.rewind import RewindOptions, RewindPicker


def demo_app(project: Path) -> Any:
    return make_app(AgentSettings(cwd=project), scripted=demo_model(project, pace=0.0))


async def send(pilot: Any, app: Any, text: str) -> None:
    await until(pilot, lambda: app.ready)
    await type_keys(pilot, *["space" if c == " " else c for c in text], "enter")


async def dialog(pilot: Any, app: Any, kind: type) -> Any:
    """The dialog of `kind` once it takes keys (each ignores keys for a moment after it opens)."""
    await until(pilot, lambda: isinstance(app.screen, kind) and app.screen.is_mounted)
    screen = app.screen
    if kind is PermissionScreen:
        await past_the_guard(pilot, app)
    else:
        await until(pilot, lambda: not getattr(screen, "guarded", lambda: False)())
    await pilot.pause()
    return screen


async def test_ask_opens_the_question_dialog_and_the_answer_reaches_the_model(project: Path) -> None:
    app = demo_app(project)
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, app, "ask me something")
        await dialog(pilot, app, QuestionScreen)
        await pilot.press("2")
        await until_idle(pilot, app)
        results = [b for m in app.agent.history if m["role"] == "user" and isinstance(m["content"], list)
                   for b in m["content"] if b.get("type") == "tool_result"]
        assert '"Which part of this folder should the demo look at first?"="The tests"' in str(results[-1]["content"])
        assert "Your answer reached me as" in transcript_text(app)


async def test_plan_enters_plan_mode_and_an_approved_plan_writes_its_file(project: Path) -> None:
    app = demo_app(project)
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, app, "make a plan")
        await dialog(pilot, app, EnterPlanScreen)
        await pilot.press("1")
        await dialog(pilot, app, ExitPlanScreen)
        assert app.agent.policy.mode == "plan"
        await pilot.press("1")  # approve, and accept edits from now on
        await until_idle(pilot, app)
        assert app.agent.policy.mode == "acceptEdits"
        assert (project / "DEMO-PLAN-1.md").read_text().startswith("# Demo plan")


async def test_write_then_esc_esc_rewinds_the_file_away_and_puts_the_prompt_back(project: Path) -> None:
    app = demo_app(project)
    async with app.run_test(size=(80, 24)) as pilot:
        await send(pilot, app, "write a note")
        await dialog(pilot, app, PermissionScreen)
        await pilot.press("1")
        await until_idle(pilot, app)
        note = project / "demo-note-1.md"
        assert note.is_file()
        await pilot.press("escape", "escape")
        await until(pilot, lambda: isinstance(app.screen, RewindPicker))
        await pilot.press("enter")  # the newest prompt
        await until(pilot, lambda: isinstance(app.screen, RewindOptions))
        await pilot.press("enter")  # restore code and conversation
        await until(pilot, lambda: not note.exists() and app.prompt.text == "write a note")
        assert not any(m["role"] == "assistant" for m in app.agent.history)
