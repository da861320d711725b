"""Sessions in the app: continue and resume with the past conversation shown, the /resume picker (filter,
preview, Enter, Esc), /rename, and project memory from the prompt (`#`, /memory, /init)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.core.support import assert_history_valid
from tests.ui.app_support import type_keys
from tests.ui.app_support import build, transcript_text, until, until_idle
from tui_agent.config import AgentSettings
from tui_agent.core.session.paths import claude_projects_root, project_slug
from tui_agent.factory import build_agent
from tui_agent.providers.scripted import Reply, ScriptedModel, Text, ToolUse
from tui_agent.ui.screens.memory_target import MemoryTargetScreen
from tui_agent.ui.screens.resume_picker import ResumePicker
from tui_agent.ui.session_view import INIT_PROMPT
from tui_agent.ui.widgets.transcript_items import ToolCell, UserPrompt

FIXTURES = Path(__file__).parents[1] / "core" / "session" / "fixtures"


async def past_session(project: Path, prompt: str, answer: str, **settings) -> str:
    """A finished session made by the core, as a previous run of the app would leave it."""
    script = [Reply([ToolUse("Read", {"file_path": str(project / "README.md")})]), Reply([Text(answer)])]
    agent = build_agent(AgentSettings(cwd=project, permission_mode="bypassPermissions", **settings), scripted=ScriptedModel(script))
    await agent.run(prompt)
    await agent.close()
    return agent.session.id


def sent_texts(request: dict) -> list[str]:
    out = []
    for m in request["messages"]:
        blocks = [{"type": "text", "text": m["content"]}] if isinstance(m["content"], str) else m["content"]
        out.extend(b.get("text", "") for b in blocks if b.get("type") == "text")
    return out


class TestContinueAndResume:
    async def test_continue_shows_the_past_conversation_and_carries_on_in_the_same_file(self, project: Path) -> None:
        sid = await past_session(project, "what is in the readme?", "It says hello.")
        app, model = build(project, [Reply([Text("Still hello.")])], continue_session=True)
        async with app.run_test(size=(100, 32)) as pilot:
            await until(pilot, lambda: app.ready)
            await pilot.pause()
            text = transcript_text(app)
            assert "> what is in the readme?" in text and "It says hello." in text and "Read(" in text
            assert f"Resumed session {sid}" in text
            assert not app.calls.calls, "tool lanes start empty"
            assert sum(isinstance(i, ToolCell) for i in app.transcript.items) == 1
            await type_keys(pilot, *"and now?", "enter")
            await until_idle(pilot, app)
        assert app.agent.session.id == sid
        assert sent_texts(model.requests[0])[-3:] == ["what is in the readme?", "It says hello.", "and now?"]
        assert_history_valid(model.requests[0]["messages"])

    async def test_fork_carries_on_in_a_new_session_and_leaves_the_original_untouched(self, project: Path) -> None:
        sid = await past_session(project, "original prompt", "original answer")
        original = next(project.parent.glob("data/tui-agent/projects/*/" + sid + ".jsonl"))
        before = original.read_text()
        app, model = build(project, [Reply([Text("forked answer")])], resume=sid, fork_session=True)
        async with app.run_test(size=(100, 32)) as pilot:
            await until(pilot, lambda: app.ready)
            assert "original answer" in transcript_text(app)
            await type_keys(pilot, *"in the fork", "enter")
            await until_idle(pilot, app)
        assert app.agent.session.id != sid and original.read_text() == before
        assert sent_texts(model.requests[0])[-3:] == ["original prompt", "original answer", "in the fork"]

    async def test_a_bare_resume_opens_the_picker_filter_preview_and_enter(self, project: Path) -> None:
        first = await past_session(project, "alpha question", "alpha answer")
        await past_session(project, "beta question", "beta answer")
        app, model = build(project, [Reply([Text("ok")])], resume="")
        async with app.run_test(size=(100, 32)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, ResumePicker) and app.screen.loaded)
            picker = app.screen
            assert [s.first_prompt for s in picker.shown] == ["beta question", "alpha question"]  # newest first
            await type_keys(pilot, *"alpha")
            await until(pilot, lambda: [s.first_prompt for s in picker.shown] == ["alpha question"])
            await pilot.press("space")
            preview = str(picker.query_one("#preview").render())
            assert "You: alpha question" in preview and "Agent: alpha answer" in preview and "⏺ Read" in preview
            await pilot.press("enter")
            await until(pilot, lambda: app.ready)
            assert app.agent.session.id == first
            assert "alpha answer" in transcript_text(app)

    async def test_escape_in_the_picker_starts_a_new_session(self, project: Path) -> None:
        old = await past_session(project, "old", "old answer")
        app, _ = build(project, [Reply([Text("fresh")])], resume="")
        async with app.run_test(size=(100, 32)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, ResumePicker))
            await pilot.press("escape")
            await until(pilot, lambda: app.ready)
            assert app.agent.session.id != old and app.agent.history == []

    async def test_picker_lists_claude_code_sessions_marked_and_resumes_them_into_a_new_session(self, project: Path) -> None:
        text = (FIXTURES / "claude_code_tool_turn.jsonl").read_text().replace("/home/user/project", str(project))
        folder = claude_projects_root() / project_slug(project.resolve())
        folder.mkdir(parents=True)
        (folder / "123fad4e-2c16-4b4f-b0ce-1f3acb31d650.jsonl").write_text(text)
        app, model = build(project, [Reply([Text("continuing")])], resume="")
        async with app.run_test(size=(120, 32)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, ResumePicker) and app.screen.loaded)
            rows = str(app.screen.query_one("#sessions").get_option_at_index(0).prompt)
            assert "read the file" in rows and "[Claude Code]" in rows
            await pilot.press("enter")
            await until(pilot, lambda: app.ready)
            assert app.agent.session.id != "123fad4e-2c16-4b4f-b0ce-1f3acb31d650"
            assert "Continuing Claude Code session" in transcript_text(app)
            await type_keys(pilot, *"go on", "enter")
            await until_idle(pilot, app)
        assert_history_valid(model.requests[0]["messages"])

    async def test_slash_resume_with_an_id_switches_sessions(self, project: Path) -> None:
        other = await past_session(project, "the other one", "other answer")
        app, _ = build(project, [Reply([Text("x")])])
        async with app.run_test(size=(100, 32)) as pilot:
            await until(pilot, lambda: app.ready)
            before = app.agent.session.id
            await type_keys(pilot, *f"/resume {other}", "enter")
            await until(pilot, lambda: app.ready and app.agent.session.id == other)
            assert before != other
            assert "other answer" in transcript_text(app)

    async def test_rename_names_the_session_for_resume(self, project: Path) -> None:
        app, _ = build(project, [Reply([Text("hi")])])
        async with app.run_test(size=(100, 32)) as pilot:
            await type_keys(pilot, *"hello", "enter")
            await until_idle(pilot, app)
            await type_keys(pilot, *"/rename release prep", "enter")
            await until(pilot, lambda: "Session renamed" in transcript_text(app))
        lines = [json.loads(l) for l in app.agent.session.transcript_path.read_text().splitlines()]
        assert {"type": "custom-title", "customTitle": "release prep", "sessionId": app.agent.session.id} in lines
        app2, _ = build(project, [Reply([Text("x")])], resume="release prep")
        async with app2.run_test(size=(100, 32)) as pilot:
            await until(pilot, lambda: app2.ready)
            assert app2.agent.session.id == app.agent.session.id


class TestMemoryFromThePrompt:
    async def test_a_hash_line_goes_to_the_chosen_claude_md(self, project: Path) -> None:
        (project / "CLAUDE.md").write_text("# Rules\n- be brief")
        app, model = build(project, [Reply([Text("x")])])
        async with app.run_test(size=(100, 32)) as pilot:
            await until(pilot, lambda: app.ready)
            await type_keys(pilot, *"# always run tests with uv", "enter")
            await until(pilot, lambda: isinstance(app.screen, MemoryTargetScreen))
            await pilot.press("enter")  # the first choice: project memory
            await until(pilot, lambda: "Remembered in" in transcript_text(app))
        assert (project / "CLAUDE.md").read_text() == "# Rules\n- be brief\n- always run tests with uv\n"
        assert model.requests == [], "a # line is not sent to the model"

    async def test_memory_lists_the_files_read_with_their_size(self, project: Path) -> None:
        (project / "CLAUDE.md").write_text("x" * 400)
        (project / "AGENTS.md").write_text("agents rules")
        app, _ = build(project, [Reply([Text("x")])])
        async with app.run_test(size=(180, 32)) as pilot:
            await until(pilot, lambda: app.ready)
            await type_keys(pilot, *"/memory", "enter")
            await until(pilot, lambda: "Memory files read" in transcript_text(app))
            text = transcript_text(app)
        assert f"1. {project / 'CLAUDE.md'} · project · ~100 tokens" in text
        assert f"2. {project / 'AGENTS.md'}" in text

    async def test_memory_opens_a_file_in_the_editor_and_reads_memory_again(self, project: Path, monkeypatch) -> None:
        editor = project / "editor.sh"
        editor.write_text('#!/bin/sh\necho "- added in the editor" >> "$1"\n')
        editor.chmod(0o755)
        monkeypatch.setenv("EDITOR", str(editor))
        monkeypatch.delenv("VISUAL", raising=False)
        app, model = build(project, [Reply([Text("x")])])
        async with app.run_test(size=(100, 32)) as pilot:
            await until(pilot, lambda: app.ready)
            await type_keys(pilot, *"/memory project", "enter")
            await until(pilot, lambda: "Edited" in transcript_text(app))
            await type_keys(pilot, *"hi", "enter")
            await until_idle(pilot, app)
        assert "- added in the editor" in (project / "CLAUDE.md").read_text()
        assert "added in the editor" in model.requests[0]["messages"][0]["content"][0]["text"]

    async def test_init_asks_the_model_to_write_claude_md(self, project: Path) -> None:
        app, model = build(project, [Reply([Text("I will write it.")])])
        async with app.run_test(size=(100, 32)) as pilot:
            await until(pilot, lambda: app.ready)
            await type_keys(pilot, *"/init", "enter")
            await until(pilot, lambda: len(model.requests) == 1)
            await until_idle(pilot, app)
        assert sent_texts(model.requests[0])[-1] == INIT_PROMPT
        assert any(isinstance(i, UserPrompt) for i in app.transcript.items)
