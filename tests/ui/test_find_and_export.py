"""/export, Ctrl+F find and copying a mouse selection, on the real app driven by Pilot and the scripted model."""

from __future__ import annotations

import base64
import re
from pathlib import Path

from tui_agent.providers.scripted import Reply, Text, ToolUse
from tui_agent.ui.find import FindBar

from tests.ui.app_support import build, transcript_text, until, until_idle
from tests.ui.app_support import type_keys


async def test_export_writes_the_prompts_answers_and_tool_calls_as_markdown(project: Path) -> None:
    (project / "notes.txt").write_text("the secret is 42\n")
    script = [
        Reply([Text("Let me read it."), ToolUse("Read", {"file_path": str(project / "notes.txt")})]),
        Reply([Text("The file says **42**.")]),
    ]
    app, _ = build(project, script)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.ready)
        await type_keys(pilot, *"What does notes say?", "enter")
        await until_idle(pilot, app)
        await until(pilot, lambda: "The file says" in transcript_text(app))
        await type_keys(pilot, *"/export out/chat", "enter")
        await until(pilot, lambda: "Conversation exported to:" in transcript_text(app))
        written = project / "out" / "chat.md"
        assert str(written) in transcript_text(app).replace("\n", "")
        text = written.read_text()
        assert text.startswith("# Conversation exported ")
        user = text.index("## User\n\nWhat does notes say?")
        first = text.index("## Assistant\n\nLet me read it.")
        call = text.index(f"### Tool: Read — `{project / 'notes.txt'}`")
        result = text.index("Result:\n\n```\n")
        assert "the secret is 42" in text[result:]
        answer = text.index("## Assistant\n\nThe file says **42**.")
        assert user < first < call < result < answer
        assert '"file_path":' in text[call:result]  # the whole input, as JSON

        # Without a name: a dated file named after the first prompt, in the working folder.
        await type_keys(pilot, *"/export", "enter")
        pattern = re.compile(r"\d{4}-\d\d-\d\d-\d{6}-what-does-notes-say\.md")
        await until(pilot, lambda: any(pattern.fullmatch(p.name) for p in project.iterdir()))
        # The same name again overwrites (as Claude Code: a name is an explicit choice).
        written.write_text("old")
        await type_keys(pilot, *"/export out/chat.md", "enter")
        await until(pilot, lambda: written.read_text() != "old")


async def test_ctrl_f_finds_counts_steps_highlights_and_esc_closes(project: Path) -> None:
    lines = [f"line {n} apple" if n in (2, 40, 77) else f"line {n} nothing here" for n in range(80)]
    app, _ = build(project, [Reply([Text("\n\n".join(lines))])])
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.ready)
        await type_keys(pilot, *"fruit?", "enter")
        await until_idle(pilot, app)
        await until(pilot, lambda: "line 79" in transcript_text(app))
        transcript = app.transcript
        await pilot.press("ctrl+f")
        await until(pilot, lambda: bool(app.query(FindBar)) and app.focused is app.query_one(FindBar).input)
        bar = app.query_one(FindBar)
        await type_keys(pilot, *"APPLE")
        await until(pilot, lambda: bar.count_text == "1 of 3")

        def in_view(text: str) -> bool:
            top = int(transcript.scroll_y)
            return any(text in transcript.line_text(n) for n in range(top, top + transcript.size.height))

        assert in_view("line 2 apple")
        await pilot.press("enter")
        assert bar.count_text == "2 of 3" and in_view("line 40 apple")
        await pilot.press("f3")
        assert bar.count_text == "3 of 3" and in_view("line 77 apple")
        await pilot.press("f3")
        assert bar.count_text == "1 of 3"  # wraps around
        await pilot.press("shift+enter")
        assert bar.count_text == "3 of 3"
        # The current match is drawn highlighted (the line as the pane serves it).
        line_no = bar.matches[bar.current][0]
        strip = transcript.render_line(line_no - int(transcript.scroll_y))
        marked = "".join(s.text for s in strip if s.style and s.style.bgcolor is not None and s.style.bold)
        assert marked.lower() == "apple"

        await pilot.press("backspace", *"zzz")
        assert bar.count_text == "No matches"
        await pilot.press("escape")
        await until(pilot, lambda: not app.query(FindBar))
        assert transcript.highlight is None and app.focused is app.prompt
        assert app.running is False  # Esc closed the bar, nothing else


async def test_a_mouse_selection_in_the_conversation_is_copied_through_osc_52(project: Path) -> None:
    app, _ = build(project, [Reply([Text("alpha beta gamma\n\ndelta epsilon")])])
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.ready)
        await type_keys(pilot, *"words?", "enter")
        await until_idle(pilot, app)
        await until(pilot, lambda: "delta epsilon" in transcript_text(app))
        await pilot.pause()
        transcript = app.transcript
        top = int(transcript.scroll_y)
        row = next(n for n in range(transcript.size.height) if "alpha beta" in transcript.line_text(top + n))
        column = transcript.line_text(top + row).index("beta")
        sent: list[str] = []
        write = app._driver.write  # what reaches the terminal
        app._driver.write = lambda data: (sent.append(data), write(data))[1]  # type: ignore[method-assign]

        await pilot.mouse_down(transcript, offset=(column, row))
        await pilot.hover(transcript, offset=(column + 10, row))
        await pilot.mouse_up(transcript, offset=(column + 10, row))
        await until(pilot, lambda: app.clipboard == "beta gamma")
        osc = "\x1b]52;c;" + base64.b64encode(b"beta gamma").decode() + "\a"
        assert any(osc in data for data in sent)
        # The selection is drawn in the screen's selection style.
        selected = app.screen.get_component_rich_style("screen--selection")
        strip = transcript.render_line(row)
        assert "".join(s.text for s in strip if s.style and selected.bgcolor and s.style.bgcolor == selected.bgcolor).startswith("beta gamm")
