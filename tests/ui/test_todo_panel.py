"""The todo panel: the main agent's TodoWrite list above the prompt, live, folded by Ctrl+O, back on resume.
The real app on the scripted model, driven by Pilot; the list-picking functions on plain data."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.ui.app_support import FakeClock, build, isolate, transcript_text, trust_for_tests, until, until_idle
from tests.ui.app_support import type_keys
from tests.ui.scenes import SCENE_ROOT, fresh_project, settle
from tui_agent.providers.scripted import Conversations, Reply, Text, ToolUse
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.todos import Todo, clean_todos, last_todos
from tui_agent.ui.widgets.todo_panel import TodoPanel, shown_rows


def todo(content: str, status: str, active: str = "") -> dict[str, str]:
    return {"content": content, "status": status, "activeForm": active or content + "ing"}


FIRST = [todo("Read the code", "in_progress", "Reading the code"), todo("Write the panel", "pending", "Writing the panel"),
         todo("Run the tests", "pending", "Running the tests")]
SECOND = [todo("Read the code", "completed", "Reading the code"), todo("Write the panel", "in_progress", "Writing the panel"),
          todo("Run the tests", "pending", "Running the tests")]
ALL_DONE = [{**t, "status": "completed"} for t in SECOND]


def write(todos: list[dict[str, str]], id: str) -> Reply:
    return Reply([ToolUse("TodoWrite", {"todos": todos}, id=id)])


def panel(app: TuiAgentApp) -> TodoPanel:
    return app.query_one(TodoPanel)


def shown(app: TuiAgentApp) -> str:
    """What the panel draws now ("" while it is hidden)."""
    p = panel(app)
    return p.render().plain if p.display else ""


async def ask(pilot: Pilot[Any], app: TuiAgentApp, prompt: str) -> None:
    await type_keys(pilot, *prompt, "enter")
    await until_idle(pilot, app)
    app.transcript.flush()  # the panel reads the list when the transcript draws
    await pilot.pause()


class TestLive:
    async def test_the_panel_appears_with_the_first_list_and_follows_the_next(self, project: Path) -> None:
        script = [write(FIRST, "t1"), Reply([Text("Started.")]), write(SECOND, "t2"), Reply([Text("Next one.")])]
        app, _ = build(project, script, permission_mode="acceptEdits")
        async with app.run_test(size=(100, 30)) as pilot:
            await until(pilot, lambda: app.ready)
            assert not panel(app).display, "no list yet: no panel"
            await ask(pilot, app, "plan it")
            assert shown(app).splitlines() == ["Todos 0/3", "  ◼ Reading the code…", "  ☐ Write the panel", "  ☐ Run the tests"]
            assert panel(app).region.height == 4 and panel(app).region.y < app.prompt.region.y
            await ask(pilot, app, "go on")
            assert shown(app).splitlines() == ["Todos 1/3", "  ☒ Read the code", "  ◼ Writing the panel…", "  ☐ Run the tests"]
            await app.action_quit()

    async def test_a_finished_list_hides_the_panel(self, project: Path) -> None:
        app, _ = build(project, [write(FIRST, "t1"), Reply([Text("a")]), write(ALL_DONE, "t2"), Reply([Text("b")])])
        async with app.run_test(size=(100, 30)) as pilot:
            await until(pilot, lambda: app.ready)
            await ask(pilot, app, "plan it")
            assert panel(app).display
            await ask(pilot, app, "finish")
            assert not panel(app).display and panel(app).region.height == 0
            await app.action_quit()

    async def test_ctrl_o_folds_the_list_to_one_line_and_back(self, project: Path) -> None:
        app, _ = build(project, [write(SECOND, "t1"), Reply([Text("ok")])])
        async with app.run_test(size=(100, 30)) as pilot:
            await until(pilot, lambda: app.ready)
            await ask(pilot, app, "plan it")
            await pilot.press("ctrl+o")  # fold
            await until(pilot, lambda: panel(app).region.height == 1)
            assert shown(app) == "Todos 1/3 · ◼ Writing the panel… · ctrl+o to show the list"
            assert app.focused is app.prompt, "the key does not take the focus away from the prompt"
            await pilot.press("ctrl+o")  # unfold
            await until(pilot, lambda: panel(app).region.height == 4)
            assert "☐ Run the tests" in shown(app)
            await app.action_quit()

    async def test_a_long_item_keeps_to_one_row_and_escapes_stay_visible_text(self, project: Path) -> None:
        long = [todo("Refactor " + "the module " * 30, "in_progress", "Refactoring " + "the module " * 30),
                todo("Print \x1b[31mred\x1b[0m", "pending", "Printing")]
        app, _ = build(project, [write(long, "t1"), Reply([Text("ok")])])
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: app.ready)
            await ask(pilot, app, "plan it")
            assert panel(app).region.height == 3, "a row per item: the long one is cut, not wrapped"
            assert "\x1b" not in shown(app) and "red" in shown(app)
            await app.action_quit()

    async def test_a_refused_list_leaves_the_shown_one(self, project: Path) -> None:
        """A malformed TodoWrite (no activeForm) is an error for the model; the panel keeps the last good list."""
        bad = Reply([ToolUse("TodoWrite", {"todos": [{"content": "x", "status": "pending"}]}, id="bad")])
        app, _ = build(project, [write(FIRST, "t1"), Reply([Text("a")]), bad, Reply([Text("b")])])
        async with app.run_test(size=(100, 30)) as pilot:
            await until(pilot, lambda: app.ready)
            await ask(pilot, app, "plan it")
            before = shown(app)
            await ask(pilot, app, "again")
            assert shown(app) == before and "activeForm" in transcript_text(app)
            await app.action_quit()

    async def test_clear_forgets_the_list(self, project: Path) -> None:
        app, _ = build(project, [write(FIRST, "t1"), Reply([Text("a")])])
        async with app.run_test(size=(100, 30)) as pilot:
            await until(pilot, lambda: app.ready)
            await ask(pilot, app, "plan it")
            assert panel(app).display
            await type_keys(pilot, *"/clear", "enter")
            await until(pilot, lambda: not panel(app).display)
            assert "todos" not in app.agent.context.services, "the next TodoWrite starts from no list"
            await app.action_quit()

    async def test_the_cell_in_the_conversation_lists_the_items(self, project: Path) -> None:
        app, _ = build(project, [write(SECOND, "t1"), Reply([Text("ok")])])
        async with app.run_test(size=(100, 30)) as pilot:
            await until(pilot, lambda: app.ready)
            await ask(pilot, app, "plan it")
            text = transcript_text(app)
            assert "☒ Read the code" in text and "◼ Writing the panel…" in text and "☐ Run the tests" in text
            await app.action_quit()


class TestSubagents:
    async def test_a_subagents_list_is_not_the_main_agents(self, project: Path) -> None:
        """Claude Code keeps a list per agent and shows the main agent's: a subagent's TodoWrite leaves the panel alone."""
        sub = [todo("Subagent step", "in_progress", "Doing the subagent step")]
        script = Conversations({
            "MAIN": [write(FIRST, "t1"),
                     Reply([ToolUse("Agent", {"description": "Look", "prompt": "TASK: look", "subagent_type": "general-purpose"}, id="a1")]),
                     Reply([Text("Reported.")])],
            "TASK": [Reply([ToolUse("TodoWrite", {"todos": sub}, id="s1")]), Reply([Text("looked")])],
        })
        app, _ = build(project, script, permission_mode="bypassPermissions")  # type: ignore[arg-type]
        async with app.run_test(size=(100, 30)) as pilot:
            await until(pilot, lambda: app.ready)
            await ask(pilot, app, "MAIN plan it")
            assert any(c.name == "TodoWrite" and c.parent == "a1" and c.phase == "ok" for c in app.calls.calls.values())
            assert "Reading the code" in shown(app) and "subagent" not in shown(app)
            await app.action_quit()


class TestResume:
    async def test_a_resumed_session_shows_its_last_list(self, project: Path) -> None:
        app, _ = build(project, [write(FIRST, "t1"), write(SECOND, "t2"), Reply([Text("Halfway.")])])
        async with app.run_test(size=(100, 30)) as pilot:
            await until(pilot, lambda: app.ready)
            await ask(pilot, app, "plan it")
            live = shown(app)
            sid = app.agent.session.id
            await app.action_quit()
        resumed, model = build(project, [], resume=sid)
        async with resumed.run_test(size=(100, 30)) as pilot:
            await until(pilot, lambda: resumed.ready and panel(resumed).display)
            assert shown(resumed) == live and "Writing the panel" in live
            assert model.requests == []
            await resumed.action_quit()


class TestPickingTheList:
    def test_items_that_are_not_todos_are_skipped_and_an_unknown_status_is_pending(self) -> None:
        assert clean_todos("nope") is None
        got = clean_todos([{"content": "A", "status": "weird"}, "x", {"status": "pending"}, {"content": "B", "status": "completed", "activeForm": "Bing"}])
        assert got == [Todo("A", "pending", "A"), Todo("B", "completed", "Bing")]

    def test_the_last_list_that_succeeded_is_the_one_a_history_ended_with(self) -> None:
        def use(id: str, todos: Any) -> dict[str, Any]:
            return {"role": "assistant", "content": [{"type": "tool_use", "id": id, "name": "TodoWrite", "input": {"todos": todos}}]}

        def result(id: str, error: bool = False) -> dict[str, Any]:
            return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": "x", "is_error": error}]}

        history = [{"role": "user", "content": "hi"}, use("a", FIRST), result("a"), use("b", SECOND), result("b", error=True), use("c", ALL_DONE)]
        assert [t.content for t in last_todos(history)] == [t["content"] for t in FIRST]  # b failed, c has no result
        assert last_todos([{"role": "user", "content": "hi"}]) == []

    @pytest.mark.parametrize(("statuses", "limit", "rows"), [
        ("cccccp", 6, (0, 6)),            # it fits
        ("ccccipppp", 5, (3, 6)),         # … 3 above, done, doing, pending, … 3 more
        ("ipppppp", 4, (0, 3)),           # the first rows, … 4 more
        ("ccccccci", 4, (5, 8)),          # … 5 above, the last three
    ])
    def test_the_item_in_progress_stays_in_view(self, statuses: str, limit: int, rows: tuple[int, int]) -> None:
        names = {"c": "completed", "i": "in_progress", "p": "pending"}
        todos = [Todo(str(i), names[s], str(i)) for i, s in enumerate(statuses)]
        assert shown_rows(todos, limit) == rows
        start, end = rows
        assert (end - start) + (start > 0) + (end < len(todos)) <= limit


# ----- snapshots ------------------------------------------------------------------------------------
FIVE = [todo("Read the code", "completed", "Reading the code"), todo("Find the entry point", "completed", "Finding the entry point"),
        todo("Change main to return 2", "in_progress", "Changing main to return 2"),
        todo("Run the tests", "pending", "Running the tests"), todo("Update the README", "pending", "Updating the README")]


@pytest.fixture
def scene_home(tmp_path: Path, monkeypatch: Any, scene_lock: None) -> Path:
    isolate(monkeypatch, tmp_path)
    trust_for_tests(tmp_path / "home", SCENE_ROOT)  # the scenes' fixed folder (drawn in the pictures)
    return fresh_project()


def todo_scene(project: Path) -> tuple[TuiAgentApp, Any]:
    script = [Reply([Text("I'll track this in a list.\n\n"), ToolUse("TodoWrite", {"todos": FIVE}, id="todos")], input_tokens=2400, output_tokens=120),
              Reply([Text("Working on `main` now.")], input_tokens=2600, output_tokens=12)]
    app, _ = build(project, script, clock=FakeClock(), permission_mode="acceptEdits")

    async def run_before(pilot: Pilot[Any]) -> None:
        app.prompt.cursor_blink = False
        await until(pilot, lambda: app.ready)
        await type_keys(pilot, *"make main return 2", "enter")
        await until_idle(pilot, app)
        await settle(pilot, app)
        await until(pilot, lambda: panel(app).display)
        await pilot.pause()

    return app, run_before


def test_snapshot_todo_panel_at_120x40(snap_compare: Any, scene_home: Path) -> None:
    """You should see, above the prompt, "Todos 2/5" in bold, two struck-through dimmed ☒ rows, the row
    "◼ Changing main to return 2…" highlighted, and two ☐ rows; the TodoWrite cell in the conversation
    lists the same five items."""
    app, run_before = todo_scene(scene_home)
    assert snap_compare(app, terminal_size=(120, 40), run_before=run_before)


def test_snapshot_todo_panel_at_80x24(snap_compare: Any, scene_home: Path) -> None:
    """You should see the same panel at 80×24, every row whole, above the prompt; the conversation keeps
    the rest of the height and scrolls to its end."""
    app, run_before = todo_scene(scene_home)
    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
