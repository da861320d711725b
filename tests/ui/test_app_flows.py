"""The app driven like a user would, on the scripted model: submit, stream, tools in lanes, ESC, queue."""

from __future__ import annotations

import asyncio
import os
import re
import threading
from pathlib import Path
from typing import Any

from textual.command import CommandList, CommandPalette

from tui_agent.core.events import LoopEnded, TextDelta
from tui_agent.providers.scripted import Reply, Text, Thinking, ToolUse
from tui_agent.ui.messages import AgentEvents
from tui_agent.ui.widgets.transcript_items import AssistantText, NoticeLine, ThinkingText, ToolCell, UserPrompt

from tests.ui.app_support import build, lanes_text, transcript_text, until, until_idle, past_the_guard
from tests.ui.app_support import type_keys


async def test_prompt_streams_answer_and_tool_cells(project: Path) -> None:
    script = [
        Reply([Thinking("let me see " * 20), Text("Looking at **the project**.\n\n"),
               ToolUse("Read", {"file_path": str(project / "README.md")}), ToolUse("Grep", {"pattern": "main"})], chunk=7),
        Reply([Text("The README says *hello*.\n\n```python\nprint('hi')\n```\n")], chunk=5),
    ]
    app, model = build(project, script)
    batches: list[AgentEvents] = []
    async with app.run_test(size=(100, 32), message_hook=lambda m: batches.append(m) if isinstance(m, AgentEvents) else None) as pilot:
        await type_keys(pilot, *"what is this?", "enter")
        await until_idle(pilot, app)
        kinds = [type(item) for item in app.transcript.items]
        assert kinds[1:] == [UserPrompt, ThinkingText, AssistantText, ToolCell, ToolCell, AssistantText]
        text = transcript_text(app)
        assert "> what is this?" in text
        assert "∴ Thinking… (220 chars)" in text
        assert "Read(" in text and "Grep(main)" in text and "ok · " in text
        assert "print('hi')" in text
        assert "✓ Read" in lanes_text(app) or "Read" in lanes_text(app)
        assert not app.lanes.ticking, "the lane timer stops when nothing runs"
        assert app.prompt.text == ""
    events = [e for b in batches for e in b.events]
    answer = "Looking at **the project**.\n\n" + "The README says *hello*.\n\n```python\nprint('hi')\n```\n"
    sent_deltas = -(-29 // 7) + -(-len(answer[29:]) // 5)  # the model streamed the text in 7- and 5-character deltas
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == answer, "the text arrives whole and in order"
    assert len(batches) < sent_deltas, "events arrive in batches (deltas joined), not one message each"
    assert isinstance(events[-1], LoopEnded) and events[-1].reason == "completed"
    assert len(model.requests) == 2


async def test_parallel_tools_get_their_own_lanes(project: Path) -> None:
    # Each command runs until the test says so: `cat` of a named pipe waits for a writer (a read-only line, so
    # the three may run together; a polling loop is outside the read-only grammar since issue 23).
    pipes = [project / f"hold-{n}" for n in range(3)]
    for pipe in pipes:
        os.mkfifo(pipe)
    script = [
        Reply([ToolUse("Bash", {"command": f"echo {word}; cat {pipe.name}"}) for word, pipe in zip(("one", "two", "three"), pipes)]),
        Reply([Text("done")]),
    ]
    app, _ = build(project, script, permission_mode="bypassPermissions")
    async with app.run_test(size=(120, 36)) as pilot:
        await type_keys(pilot, *"go", "enter")
        await until(pilot, lambda: sum(c.phase == "running" for c in app.calls.calls.values()) == 3)
        assert sorted(c.lane for c in app.calls.calls.values()) == [0, 1, 2]
        assert app.lanes.ticking
        await until(pilot, lambda: "timeout in" in lanes_text(app) and "one" in lanes_text(app))
        for pipe in pipes:  # opening for writing waits for its reader, then closing ends the reader's cat
            await asyncio.to_thread(lambda p=pipe: open(p, "w").close())
        await until_idle(pilot, app)
        calls = list(app.calls.calls.values())
        assert all(c.phase == "ok" for c in calls)
        assert max(c.t_start for c in calls) < min(c.t_end for c in calls), "they overlapped"
        assert len(re.findall(r" ok \d+\.\ds", lanes_text(app))) == 3
        assert not app.lanes.ticking


async def test_escape_while_streaming_interrupts_and_conversation_goes_on(project: Path) -> None:
    script = [Reply([Text("word " * 2000)], chunk=5, delay=0.002), Reply([Text("continuing")])]
    app, model = build(project, script)
    async with app.run_test(size=(100, 30)) as pilot:
        await type_keys(pilot, *"write a lot", "enter")
        await until(pilot, lambda: any(isinstance(i, AssistantText) for i in app.transcript.items))
        await pilot.pause(0.1)
        await pilot.press("escape")
        assert "Interrupted" in transcript_text(app), "shown at once, before the run has wound down"
        await until_idle(pilot, app)
        assert app.prompt.has_focus
        assert transcript_text(app).count("Interrupted") == 1
        await type_keys(pilot, *"and now?", "enter")
        await until_idle(pilot, app)
        assert "continuing" in transcript_text(app)
    sent = model.requests[1]["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]
    assert "[Request interrupted by user]" in str(sent[-1]["content"])


async def test_prompt_typed_during_a_run_is_queued_then_sent(project: Path) -> None:
    # The first answer waits until "two" is queued: a streamed answer can start and end inside one
    # Pilot pause on a loaded machine, and then `app.running` is never seen.
    release = threading.Event()

    def script(body: dict[str, Any], index: int) -> Reply:
        if index == 0:
            release.wait(120)
            return Reply([Text("first answer " * 100)], chunk=4)
        return Reply([Text("second answer")])

    app, model = build(project, script)
    async with app.run_test(size=(100, 30)) as pilot:
        await type_keys(pilot, *"one", "enter")
        await until(pilot, lambda: app.running)
        app.submit("two")  # sent while the first run is going
        assert app.queued_prompts == ["two"]
        assert app.queued_view.display and "queued: two" in str(app.queued_view.render())
        release.set()
        await until(pilot, lambda: len(model.requests) == 2 and not app.running)
        assert not app.queued_view.display
        prompts = [i.text for i in app.transcript.items if isinstance(i, UserPrompt)]
        assert prompts == ["one", "two"]
        assert "second answer" in transcript_text(app)


async def test_one_lane_can_be_cancelled_alone(project: Path) -> None:
    script = [
        Reply([ToolUse("Bash", {"command": "sleep 0.8; echo slow-done"}), ToolUse("Bash", {"command": "sleep 25"})]),
        Reply([Text("ok")]),
    ]
    app, _ = build(project, script, permission_mode="bypassPermissions")
    async with app.run_test(size=(120, 36)) as pilot:
        await type_keys(pilot, *"go", "enter")
        await until(pilot, lambda: sum(c.phase == "running" for c in app.calls.calls.values()) == 2)
        await pilot.press("tab")  # prompt -> ... the lanes panel is reachable by focus
        app.lanes.focus()
        await pilot.pause()
        await pilot.press("down")
        long = next(c for c in app.calls.calls.values() if "25" in c.summary)
        assert app.lanes.selected_id == long.id
        await pilot.press("x")
        await until_idle(pilot, app)
        phases = {c.summary: c.phase for c in app.calls.calls.values()}
        assert phases == {"sleep 0.8; echo slow-done": "ok", "sleep 25": "cancelled"}


async def test_tool_cell_expands_and_escape_closes_it(project: Path) -> None:
    lines = "\n".join(f"line {i}" for i in range(30))
    (project / "long.txt").write_text(lines + "\n")
    script = [Reply([ToolUse("Bash", {"command": "cat long.txt"})]), Reply([Text("read it")])]
    app, _ = build(project, script, permission_mode="bypassPermissions")
    async with app.run_test(size=(100, 40)) as pilot:
        await type_keys(pilot, *"cat", "enter")
        await until_idle(pilot, app)
        assert "+27 lines (enter to expand)" in transcript_text(app)
        app.transcript.focus()
        await pilot.pause()
        cell = app.transcript.items[app.transcript.selected]
        assert isinstance(cell, ToolCell)
        await pilot.press("enter")
        assert cell.expanded and "line 29" in transcript_text(app)
        await pilot.press("escape")
        assert not cell.expanded and "line 29" not in transcript_text(app)


async def test_edit_shows_its_diff(project: Path) -> None:
    target = project / "app.py"
    script = [
        Reply([ToolUse("Read", {"file_path": str(target)})]),
        Reply([ToolUse("Edit", {"file_path": str(target), "old_string": "return 1", "new_string": "return 2"})]),
        Reply([Text("changed")]),
    ]
    app, _ = build(project, script, permission_mode="acceptEdits")
    async with app.run_test(size=(100, 40)) as pilot:
        await type_keys(pilot, *"edit", "enter")
        await until_idle(pilot, app)
        text = transcript_text(app)
        assert "+1 -1" in text and "-    return 1" in text and "+    return 2" in text
        assert target.read_text().endswith("return 2\n")


async def test_permission_dialog_escape_denies_without_aborting(project: Path) -> None:
    script = [Reply([ToolUse("Bash", {"command": "touch made.txt"})]), Reply([Text("you said no")])]
    app, _ = build(project, script)
    async with app.run_test(size=(100, 36)) as pilot:
        await type_keys(pilot, *"make a file", "enter")
        await until(pilot, lambda: any(c.phase == "waiting" for c in app.calls.calls.values()) and app.screen is not app.screen_stack[0])
        assert "waiting for you" in lanes_text(app)
        await past_the_guard(pilot, app)  # the dialog ignores keys for a moment after it opens
        await pilot.press("escape")
        await until_idle(pilot, app)
        call = next(iter(app.calls.calls.values()))
        assert call.phase == "denied"
        assert "you said no" in transcript_text(app)
        assert "Interrupted" not in transcript_text(app)
        assert not (project / "made.txt").exists()


async def test_slash_commands_and_ctrl_c_twice_quits(project: Path) -> None:
    app, _ = build(project, [])
    async with app.run_test(size=(100, 30)) as pilot:
        await type_keys(pilot, *"/help", "enter")
        await until(pilot, lambda: "/clear" in transcript_text(app))
        await pilot.press("ctrl+c")
        assert "press Ctrl+C again to quit" in str(app.status.render())
        await pilot.press("ctrl+c")
        await pilot.pause(0.2)
    assert app.return_code == 0


async def test_demo_without_a_key_is_labelled(project: Path, monkeypatch) -> None:
    from tui_agent.config import AgentSettings
    from tui_agent.providers.demo import HOW_TO_USE_CLAUDE
    from tui_agent.ui.app import make_app

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    app = make_app(AgentSettings.from_env(cwd=project))
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.ready)  # the agent is built on the core's thread
        assert app.agent.demo
        assert str(app.status.render()).startswith("demo model")
        assert HOW_TO_USE_CLAUDE in transcript_text(app).replace("\n", " ") or "ANTHROPIC_API_KEY" in transcript_text(app)


async def test_widget_count_and_drawn_lines_stay_bounded_however_long_the_session(project: Path, monkeypatch) -> None:
    from tui_agent.ui.widgets import transcript as transcript_module

    monkeypatch.setattr(transcript_module, "LINE_BUDGET", 300)
    answer = "\n\n".join(f"Paragraph {i} with `code` and **bold**.\n\n```python\nx = {i}\n```" for i in range(150))
    script = [Reply([Text(answer)], chunk=200), Reply([Text(answer)], chunk=200)]
    app, _ = build(project, script)
    async with app.run_test(size=(100, 30)) as pilot:
        widgets_before = len(list(app.screen.walk_children()))
        for prompt in ("one", "two"):
            await type_keys(pilot, *prompt, "enter")
            await until_idle(pilot, app)
        assert len(list(app.screen.walk_children())) == widgets_before
        assert app.transcript.virtual_size.height > 1000
        assert app.transcript.scroll_y == app.transcript.max_scroll_y, "the view followed the stream"
        first_answer = next(i for i, item in enumerate(app.transcript.items) if isinstance(item, AssistantText))
        assert app.transcript._drawings[first_answer].evicted, "items out of view beyond the budget keep only their height"
        app.transcript.scroll_to(y=10, animate=False, immediate=True)
        await pilot.pause()
        app.conversation.notice("info", "something new", now=True)
        assert app.transcript.scroll_y == 10, "never jumps under a user who scrolled up"
        app.transcript.scroll_to(y=0, animate=False, immediate=True)
        top = "\n".join(app.transcript.render_line(y).text for y in range(12))
        assert "> one" in top and "Paragraph 0" in top, "evicted items are drawn again when shown"


async def test_lanes_panel_hides_and_shows(project: Path) -> None:
    script = [Reply([ToolUse("Read", {"file_path": str(project / "README.md")})]), Reply([Text("ok")])]
    app, _ = build(project, script)
    async with app.run_test(size=(80, 24)) as pilot:
        assert not app.lanes.display, "no tools yet: no panel"
        await type_keys(pilot, *"read", "enter")
        await until_idle(pilot, app)
        assert app.lanes.display
        await pilot.press("ctrl+t")
        assert not app.lanes.display
        await pilot.press("ctrl+t")
        assert app.lanes.display
        finished = [c for c in app.calls.calls.values()]
        assert [c.phase for c in finished] == ["ok"]
        assert isinstance(app.transcript.items[-1], AssistantText)
        assert not any(isinstance(i, NoticeLine) and i.kind == "error" for i in app.transcript.items)


async def test_an_app_closed_without_quit_leaves_no_file_watcher_polling(project: Path) -> None:
    """A Read starts the session's file watcher (a thread of its own, polling); the app closing without /quit
    (the window closed, a test's end, an embedding program) stops it as /quit does."""
    script = [Reply([ToolUse("Read", {"file_path": str(project / "README.md")})]), Reply([Text("ok")])]
    app, _ = build(project, script)
    async with app.run_test(size=(80, 24)) as pilot:
        await type_keys(pilot, *"read", "enter")
        await until_idle(pilot, app)
        watcher = app.runner.agent.context.services["file_watch"]
        thread = watcher._thread
        assert thread is not None and thread.is_alive()
    thread.join(timeout=30)  # it ends within one watchfiles step of being told
    assert not thread.is_alive()


async def test_the_command_palette_runs_slash_commands(project: Path) -> None:
    app, _ = build(project, [Reply([Text("hi")])])
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.ready)
        await pilot.press("ctrl+p")  # the palette
        await until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await type_keys(pilot, *"/cost")
        await until(pilot, lambda: _first_command(app).startswith("/cost"))
        await pilot.press("enter")
        await until(pilot, lambda: "Total cost:" in transcript_text(app))
        assert "Tokens: 0 in" in transcript_text(app)


def _first_command(app: Any) -> str:
    """The palette's highlighted (first) match so far, or "" while it is still searching."""
    found = app.screen.query(CommandList)
    if not found or not found.first().option_count:
        return ""
    return str(found.first().get_option_at_index(0).prompt)


async def test_a_prompt_starting_with_a_path_is_sent_to_the_model(project: Path) -> None:
    """`/usr/bin/python crashes` is a question about a path, not an unknown slash command."""
    app, model = build(project, [Reply([Text("Let me look.")])])
    async with app.run_test(size=(100, 30)) as pilot:
        await type_keys(pilot, *"/usr/bin/python crashes", "enter")
        await until(pilot, lambda: len(model.requests) == 1 and not app.running, timeout=10)
        assert model.requests[0]["messages"][0]["content"][0]["text"] == "/usr/bin/python crashes"
        assert "Unknown command" not in transcript_text(app)
        assert [n.message for n in app._notifications] == []
