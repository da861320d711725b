"""A resumed session is drawn exactly as the live one was (one renderer: the transcript is replayed as the
live events, core/session/replay.py), and a `!` command's output is whole: its cell folds to the last
lines and expands to all of them. The real app on the scripted model, driven by Pilot."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from tests.ui.app_support import build, transcript_text, until, until_idle, past_the_guard
from tests.ui.app_support import type_keys
from tui_agent.core.shell_mode import MAX_SHOWN_LINES
from tui_agent.providers.scripted import Reply, Text, Thinking, ToolUse
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.widgets.transcript_items import ToolCell

SIZE = (160, 40)  # wide enough that no tmp path (longer under pytest-xdist) wraps a line
RESUMED_NOTE = re.compile(r"^ℹ Resumed session \S+ \(\d+ messages\)\.$")
DURATION = re.compile(r"(?:ok|error|denied|cancelled) · (\d+\.\d)s")


class TickingClock:
    """Time that moves a little each time it is read: every call gets a duration of its own, none 0.0s."""

    def __init__(self, step: float = 0.0371) -> None:
        self.now, self.step = 1000.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


async def answer_dialog(pilot: Pilot[Any], app: TuiAgentApp, *keys: str) -> None:
    """Wait for the permission dialog, let its guard (keys ignored at first) pass, then answer."""
    await past_the_guard(pilot, app)
    screen = app.screen
    for key in keys:
        if key == "<words>":
            await until(pilot, lambda: bool(screen.query("#words")))
            continue
        await pilot.press(key)
    await until(pilot, lambda: app.screen is not screen)


def without_resume_note(text: str) -> list[str]:
    """The resumed transcript less the one item the live one cannot have (which session was resumed): its
    line and the blank line that sets it apart."""
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if RESUMED_NOTE.match(line))
    assert lines[at - 1] == ""
    return lines[: at - 1] + lines[at + 1:]


def numbers(text: str) -> list[str]:
    """The rows of a transcript that are a number alone (a `seq`'s output), the result's └ aside."""
    rows = (row.replace("└", "").strip() for row in text.splitlines())
    return [row for row in rows if row.isdigit()]


def cell(app: TuiAgentApp, start: str) -> int:
    return next(i for i, item in enumerate(app.transcript.items) if isinstance(item, ToolCell) and item.call.subject.startswith(start))


async def expand(pilot: Pilot[Any], app: TuiAgentApp, position: int) -> None:
    """Select the cell with the keys (up from the end) and press enter, as a person does."""
    app.transcript.focus()
    await pilot.pause()
    while app.transcript.selected != position:
        await pilot.press("up")
    await pilot.press("enter")
    await until(pilot, lambda: app.transcript.items[position].expanded)


class TestResumedIsLive:
    async def test_a_resumed_session_is_drawn_line_for_line_as_it_was_live(self, project: Path) -> None:
        script = [
            Reply([Thinking("what is here " * 8), Text("Let me look around."),
                   ToolUse("Read", {"file_path": str(project / "app.py")}), ToolUse("Glob", {"pattern": "*.md"}),
                   ToolUse("Write", {"file_path": str(project / "notes.txt"), "content": "x\n"}), Text("Reading first.")]),
            Reply([ToolUse("Edit", {"file_path": str(project / "app.py"), "old_string": "return 1", "new_string": "return 2"})]),
            Reply([Text("Changed **main** to return 2.\n\n- one\n- two\n")]),
            Reply([Text("Those are the numbers 1 to 25.")]),
        ]
        app, model = build(project, script, clock=TickingClock())
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.ready)
            await type_keys(pilot, *"tidy up app.py", "enter")
            await answer_dialog(pilot, app, "5", "<words>", *"not now", "enter")  # Write: no, with words
            await answer_dialog(pilot, app, "1")  # Edit: yes, once
            await until_idle(pilot, app)
            await pilot.press("!", *"seq 1 25; echo '<b>&' >&2", "enter")  # a `!` command the model answers
            await until_idle(pilot, app)
            live = transcript_text(app)
            sid = app.agent.session.id
        assert len(model.requests) == 4
        # What the live screen shows (so the comparison below compares something).
        assert "⊘ Write(" in live and "Denied: “not now”" in live
        assert "+    return 2" in live and "-    return 1" in live
        assert "> !seq 1 25; echo '<b>&' >&2" in live and "Bash(! seq 1 25; echo '<b>&' >&2)  ok · " in live
        assert "… +16 lines (enter to expand)" in live and "<b>&" in live
        durations = DURATION.findall(live)
        assert len(durations) == 4 and any(d != "0.0" for d in durations), durations

        resumed_app, _ = build(project, [], resume=sid, clock=TickingClock())
        async with resumed_app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: resumed_app.ready)
            await pilot.pause()
            resumed = transcript_text(resumed_app)
            assert not resumed_app.calls.calls, "tool lanes start empty"
        assert "<bash-" not in resumed
        assert without_resume_note(resumed) == live.splitlines(), "\n".join(
            f"{a!r}\n{b!r}" for a, b in zip(without_resume_note(resumed), live.splitlines()) if a != b)
        assert DURATION.findall(resumed) == durations, "the recorded durations, not 0.0s"

    async def test_an_interrupted_bang_command_resumes_as_it_was_left(self, project: Path) -> None:
        app, model = build(project, [], clock=TickingClock())
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.ready)
            await pilot.press("!", *"seq 1 12; sleep 30", "enter")
            await until(pilot, lambda: any(c.last_line == "12" for c in app.calls.calls.values()))
            await pilot.press("escape")
            await until_idle(pilot, app)
            await until(pilot, lambda: "■ Bash(! seq 1 12; sleep 30)  cancelled · " in transcript_text(app)
                        and "\n     12\n" in transcript_text(app))  # the core's result, its partial output
            live = transcript_text(app)
            sid = app.agent.session.id
        assert model.requests == []
        assert "└ Interrupted · tell the agent what to do instead" in live and "… +2 lines (enter to expand)" in live
        resumed_app, _ = build(project, [], resume=sid, clock=TickingClock())
        async with resumed_app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: resumed_app.ready)
            resumed = transcript_text(resumed_app)
        assert without_resume_note(resumed) == live.splitlines()


class TestBangOutputWhole:
    async def test_the_cell_shows_the_last_lines_and_expands_to_all_of_them(self, project: Path) -> None:
        app, model = build(project, [Reply([Text("ok")])])
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.ready)
            await pilot.press("!", *"seq 1 300", "enter")
            await until_idle(pilot, app)
            collapsed = transcript_text(app)
            await expand(pilot, app, cell(app, "! seq"))
            expanded = transcript_text(app)
        rows = collapsed.splitlines()
        at = rows.index("  └  … +290 lines (enter to expand)")
        assert [r.strip() for r in rows[at + 1: at + 11]] == [str(n) for n in range(291, 301)], "the last ten, after the count"
        assert numbers(expanded) == [str(n) for n in range(1, 301)], "expanded: every line, in order"
        assert "… +" not in expanded.split("Bash(! seq 1 300)")[1]

    async def test_past_what_a_cell_draws_it_names_the_file_holding_all_of_it(self, project: Path) -> None:
        count = MAX_SHOWN_LINES + 500
        app, model = build(project, [Reply([Text("ok")])])
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.ready)
            await pilot.press("!", *f"seq 1 {count}", "enter")
            await until_idle(pilot, app)
            at = cell(app, "! seq")
            await expand(pilot, app, at)
            expanded = transcript_text(app)
            path = Path(app.transcript.items[at].call.data["outputPath"])
        assert path.read_text().split() == [str(n) for n in range(1, count + 1)], "the file holds every line"
        def unwrapped(text: str) -> str:  # the long path folds over rows
            return re.sub(r"\s", "", text)

        assert unwrapped(f"… +500 earlier lines · the whole output is in {path}") in unwrapped(expanded)
        assert numbers(expanded) == [str(n) for n in range(501, count + 1)], "the last lines a cell draws"
