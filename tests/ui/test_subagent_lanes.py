"""Subagents in the app: a lane group per subagent, one cell each, cancel one from its lane, its asks in the dialog."""

from __future__ import annotations

from pathlib import Path

from tui_agent.providers.scripted import Conversations, Reply, Text, ToolUse
from tui_agent.ui.screens.permission import PermissionScreen

from tests.ui.app_support import build, lanes_text, sleep_processes, transcript_text, until, until_idle, past_the_guard
from tests.ui.app_support import type_keys


def agent_call(task: str, description: str, agent_type: str = "general-purpose") -> ToolUse:
    return ToolUse("Agent", {"description": description, "prompt": f"{task}: please", "subagent_type": agent_type}, id=f"toolu_{task}")


GATED = "until [ -f go.flag ]; do sleep 0.05; done; echo cfg"
"""A shell command that runs until the test creates go.flag: both subagents' tools surely overlap."""


def two_searchers(first: str = GATED, second: str = GATED) -> Conversations:
    return Conversations({
        "MAIN": [Reply([agent_call("TASKA", "Find the config"), agent_call("TASKB", "Review the tests", "Explore")]), Reply([Text("Both reported.")])],
        "TASKA": [Reply([ToolUse("Bash", {"command": first})]), Reply([Text("Config is in app.py\nline two\nline three\nline four")])],
        "TASKB": [Reply([ToolUse("Grep", {"pattern": "main"}), ToolUse("Bash", {"command": second})]), Reply([Text("Tests look fine")])],
    })


async def test_two_subagents_run_side_by_side_in_lane_groups_then_fold(project: Path) -> None:
    app, _ = build(project, two_searchers(), permission_mode="bypassPermissions")  # type: ignore[arg-type]
    async with app.run_test(size=(120, 40)) as pilot:
        await type_keys(pilot, *"MAIN look around", "enter")
        await until(pilot, lambda: sum(c.phase == "running" and c.parent is not None and c.name == "Bash" for c in app.calls.calls.values()) == 2, timeout=30)
        text = lanes_text(app)
        lines = text.splitlines()
        header_a = next(i for i, line in enumerate(lines) if "general-purpose" in line)
        header_b = next(i for i, line in enumerate(lines) if "Explore" in line)
        assert "Find the config" in lines[header_a] and "Review the tests" in lines[header_b]
        assert "Bash" in lines[header_a + 1] and lines[header_a + 1].index("Bash") > lines[header_a].index("general-purpose") - 2
        assert "tok" in lines[header_a]
        assert any(GATED in line for line in lines[header_a + 1 : header_b])
        cells = transcript_text(app)
        assert "Agent(general-purpose: Find the config)" in cells and f"running… · Bash: {GATED}" in cells
        (project / "go.flag").write_text("")
        await until_idle(pilot, app, timeout=30)
        folded = lanes_text(app)
        assert "go.flag" not in folded, "finished groups fold to one line"
        assert "Find the config · 1 tool" in folded and "done" in folded
        text = transcript_text(app)
        assert "Config is in app.py" in text and "line four" not in text  # the report folds (enter expands)
        assert "general-purpose · 1 tool use · " in text
        assert "Both reported." in text


async def test_one_subagent_is_cancelled_from_its_lane(project: Path) -> None:
    app, _ = build(project, two_searchers(first="sleep 30.25", second="sleep 0.6"), permission_mode="bypassPermissions")  # type: ignore[arg-type]
    async with app.run_test(size=(120, 40)) as pilot:
        await type_keys(pilot, *"MAIN look around", "enter")
        await until(pilot, lambda: bool(sleep_processes("sleep 30.25")), timeout=30)
        app.lanes.focus()
        await pilot.pause()
        app.lanes.selected_id = "toolu_TASKA"  # the first subagent's header row
        await pilot.press("x")
        await until_idle(pilot, app, timeout=30)
        assert not sleep_processes("sleep 30.25")
        assert app.calls.get("toolu_TASKA").phase == "cancelled"
        assert app.calls.get("toolu_TASKB").phase == "ok"
        history = app.agent.history
        results = history[2]["content"]
        assert results[0]["is_error"] and "Cancelled by user" in str(results[0]["content"])
        assert "Both reported." in transcript_text(app)


async def test_a_subagents_ask_opens_the_main_dialog_labelled_with_it(project: Path) -> None:
    routes = Conversations({
        "MAIN": [Reply([agent_call("TASKA", "Write the notes")]), Reply([Text("Notes written.")])],
        "TASKA": [Reply([ToolUse("Write", {"file_path": str(project / "NOTES.md"), "content": "hi\n"})]), Reply([Text("Wrote NOTES.md")])],
    })
    app, _ = build(project, routes)  # type: ignore[arg-type]
    async with app.run_test(size=(120, 40)) as pilot:
        await type_keys(pilot, *"MAIN write notes", "enter")
        await until(pilot, lambda: isinstance(app.screen, PermissionScreen), timeout=30)
        dialog = app.screen
        await until(pilot, lambda: bool(dialog.query("#asker")))
        assert dialog.request.agent == "general-purpose: Write the notes"
        assert "Asked by subagent general-purpose: Write the notes" in str(dialog.query_one("#asker").render())  # type: ignore[attr-defined]
        assert any(c.phase == "waiting" and c.parent == "toolu_TASKA" for c in app.calls.calls.values())
        await past_the_guard(pilot, app)
        await pilot.press("1")
        await until_idle(pilot, app, timeout=30)
        assert (project / "NOTES.md").read_text() == "hi\n"
        assert "Notes written." in transcript_text(app)


async def test_agents_command_lists_the_types_and_broken_files(project: Path) -> None:
    folder = project / ".claude" / "agents"
    folder.mkdir(parents=True)
    (folder / "reviewer.md").write_text("---\nname: reviewer\ndescription: Reviews diffs\ntools: Read, Grep\n---\nReview.\n")
    (folder / "broken.md").write_text("---\nname: broken\n")
    app, _ = build(project, [])
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.ready)
        await type_keys(pilot, *"/agents", "enter")
        await until(pilot, lambda: "Subagent types" in transcript_text(app))
        text = transcript_text(app)
        assert "general-purpose · tools: * · model: inherit" in text
        assert "reviewer · tools: Read, Grep · model: inherit" in text
        flat = " ".join(text.split())  # long paths wrap
        assert "Not loaded:" in flat and "broken.md: the YAML front matter is not closed" in flat
