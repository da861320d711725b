"""The /resume picker with a session file that cannot be read: every other session is listed and can be
resumed; the bad file is a row of its own at the end, with its path and the reason, that cannot be chosen."""

from __future__ import annotations

from pathlib import Path

from tests.ui.app_support import build, transcript_text, until
from tui_agent.config import AgentSettings
from tui_agent.core.session.paths import project_slug, sessions_root
from tui_agent.factory import build_agent
from tui_agent.providers.scripted import Reply, ScriptedModel, Text
from tui_agent.ui.screens.resume_picker import ResumePicker

BAD = "22222222-2222-4222-8222-222222222222"


async def past_session(project: Path, prompt: str, answer: str) -> str:
    agent = build_agent(AgentSettings(cwd=project), scripted=ScriptedModel([Reply([Text(answer)])]))
    await agent.run(prompt)
    await agent.close()
    return agent.session.id


def option_texts(picker: ResumePicker) -> list[str]:
    options = picker.query_one("#sessions")
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


class TestASkippedFileInThePicker:
    async def test_the_unreadable_file_is_a_last_row_with_its_path_and_reason_and_the_others_resume(self, project: Path) -> None:
        good = await past_session(project, "the good question", "the good answer")
        bad = sessions_root() / project_slug(project.resolve()) / f"{BAD}.jsonl"
        bad.write_text('{"type": "user", "message": 5}\nnot json\n')
        app, _ = build(project, [Reply([Text("ok")])], resume="")
        async with app.run_test(size=(120, 32)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, ResumePicker) and app.screen.loaded)
            picker = app.screen
            rows = option_texts(picker)
            assert len(rows) == 2 and "the good question" in rows[0]
            assert f"⚠ skipped: {bad}" in rows[1] and "no conversation could be read (2 unreadable lines)" in rows[1]
            await pilot.press("down")  # the skipped row is never chosen
            assert picker.query_one("#sessions").highlighted == 0
            await pilot.press("enter")
            await until(pilot, lambda: app.ready)
            assert app.agent.session.id == good
            assert "the good answer" in transcript_text(app)
