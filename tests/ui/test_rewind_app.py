"""Rewind in the real app (Esc Esc, /rewind): three prompts whose Write/Edit calls create and change files,
driven by the scripted model; then restoring the code, the conversation, or both, to before one of them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from textual.widgets import OptionList

from tests.core.support import assert_history_valid
from tests.ui.app_support import type_keys
from tests.ui.app_support import build, transcript_text, until, until_idle
from tui_agent.providers.scripted import Reply, Text, ToolUse
from tui_agent.ui.rewind import BUSY, HINT
from tui_agent.ui.screens.rewind import ConfirmOverwrite, RewindOptions, RewindPicker

PROMPTS = ("make notes", "more please", "third step")


def script(project: Path, *, hang_last: bool = False) -> list[Any]:
    """Prompt 1 creates notes.md and changes app.py; prompt 2 changes notes.md and creates new.txt; prompt 3
    changes app.py again. Then one answer for whatever comes next."""
    app_py, notes, new = (str(project / n) for n in ("app.py", "notes.md", "new.txt"))
    last = Reply([Text("later done")], hang_after=2) if hang_last else Reply([Text("later done")])
    return [
        Reply([ToolUse("Read", {"file_path": app_py}, id="r1")]),
        Reply([ToolUse("Write", {"file_path": notes, "content": "# Notes\none\n"}, id="w1"),
               ToolUse("Edit", {"file_path": app_py, "old_string": "return 1", "new_string": "return 2"}, id="e1")]),
        Reply([Text("one done")]),
        Reply([ToolUse("Edit", {"file_path": notes, "old_string": "one\n", "new_string": "one\ntwo\nthree\n"}, id="e2"),
               ToolUse("Write", {"file_path": new, "content": "brand new\n"}, id="w2")]),
        Reply([Text("two done")]),
        Reply([ToolUse("Edit", {"file_path": app_py, "old_string": "return 2", "new_string": "return 3"}, id="e3")]),
        Reply([Text("three done")]),
        last,
    ]


async def three_prompts(pilot: Any, app: Any) -> None:
    await until(pilot, lambda: app.ready)
    for prompt in PROMPTS:
        await type_keys(pilot, *prompt, "enter")
        await until_idle(pilot, app)


async def open_picker(pilot: Any, app: Any) -> RewindPicker:
    await pilot.press("escape", "escape")  # Claude Code's double Esc
    await until(pilot, lambda: isinstance(app.screen, RewindPicker))
    return app.screen


async def choose(pilot: Any, app: Any, prompt: str, action: str) -> None:
    """In the picker: the row of `prompt`, then the option labelled `action`."""
    picker = app.screen
    index = next(i for i, e in enumerate(picker.entries) if e.point.text == prompt)
    await type_keys(pilot, *["down"] * index, "enter")
    await until(pilot, lambda: isinstance(app.screen, RewindOptions))
    options = app.screen
    labels = [str(options.query_one(OptionList).get_option_at_index(i).prompt) for i in range(len(options.actions))]
    await type_keys(pilot, *["down"] * labels.index(action), "enter")


def option_labels(screen: RewindOptions) -> list[str]:
    options = screen.query_one(OptionList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


def sent_texts(request: dict[str, Any]) -> list[str]:
    out = []
    for m in request["messages"]:
        blocks = [{"type": "text", "text": m["content"]}] if isinstance(m["content"], str) else m["content"]
        out.extend(b.get("text", "") for b in blocks if b.get("type") == "text" and not b.get("text", "").startswith("<system-reminder>"))
    return out


def completion_items(app: Any) -> list[str]:
    """The `/` list under the prompt, as shown."""
    lst = app.prompt.completions
    return [str(lst.get_option_at_index(i).prompt) for i in range(lst.option_count)] if lst.display else []


def files(project: Path) -> dict[str, str | None]:
    return {n: (project / n).read_text() if (project / n).exists() else None for n in ("app.py", "notes.md", "new.txt")}


class TestOpening:
    async def test_esc_esc_on_an_empty_prompt_lists_the_prompts_newest_first_with_their_files(self, project: Path) -> None:
        app, _model = build(project, script(project), permission_mode="acceptEdits")
        async with app.run_test(size=(120, 40)) as pilot:
            await three_prompts(pilot, app)
            picker = await open_picker(pilot, app)
            assert [e.point.text for e in picker.entries] == list(reversed(PROMPTS))
            rows = [str(picker.query_one(OptionList).get_option_at_index(i).prompt) for i in range(3)]
            assert "app.py +1 −1" in rows[0] and "just now" in rows[0]
            assert "notes.md +2 −0" in rows[1] and "new.txt +1 −0" in rows[1]
            assert "notes.md +2 −0" in rows[2] and "app.py +1 −1" in rows[2]
            await pilot.press("escape")
            await until(pilot, lambda: not isinstance(app.screen, RewindPicker))
            assert app.focused is app.prompt

    async def test_a_single_esc_or_text_in_the_prompt_does_not_open_it(self, project: Path) -> None:
        app, _model = build(project, [Reply([Text("ok")])])
        async with app.run_test(size=(100, 30)) as pilot:
            await until(pilot, lambda: app.ready)
            drawn: list[str] = []  # the hint leaves after DOUBLE_ESC_S: a loaded machine's pause outlasts it
            refresh = app.status.refresh

            def recording_refresh(*args: Any, **kwargs: Any) -> Any:
                drawn.append(str(app.status.render()))
                return refresh(*args, **kwargs)

            app.status.refresh = recording_refresh  # type: ignore[method-assign]
            await pilot.press("escape")
            await pilot.pause()
            assert not isinstance(app.screen, RewindPicker) and any(HINT in line for line in drawn)
            await type_keys(pilot, *"draft", "escape", "escape")
            await pilot.pause()
            assert not isinstance(app.screen, RewindPicker) and app.prompt.text == "draft"

    async def test_esc_esc_during_a_run_interrupts_it_and_never_opens_the_picker(self, project: Path) -> None:
        app, _model = build(project, [Reply([Text("thinking about it for a long while")], hang_after=3)])
        async with app.run_test(size=(100, 30)) as pilot:
            await until(pilot, lambda: app.ready)
            await type_keys(pilot, *"slow one", "enter")
            await until(pilot, lambda: app.agent.running)
            await pilot.press("escape", "escape")
            await until_idle(pilot, app)
            await pilot.pause()
            assert not isinstance(app.screen, RewindPicker)
            assert "Interrupted" in transcript_text(app)

    async def test_slash_rewind_opens_it_and_says_why_not_during_a_run(self, project: Path) -> None:
        app, _model = build(project, script(project, hang_last=True), permission_mode="acceptEdits")
        async with app.run_test(size=(120, 40)) as pilot:
            await three_prompts(pilot, app)
            await type_keys(pilot, *"/rewind", "enter")
            await until(pilot, lambda: isinstance(app.screen, RewindPicker))
            await pilot.press("escape")
            await until(pilot, lambda: not isinstance(app.screen, RewindPicker))
            await type_keys(pilot, *"slow", "enter")
            await until(pilot, lambda: app.agent.running)
            await type_keys(pilot, *"/rewind", "enter")
            await until(pilot, lambda: any(n.message == BUSY for n in app._notifications))
            assert not isinstance(app.screen, RewindPicker)
            await pilot.press("escape")
            await until_idle(pilot, app)

    async def test_rewind_is_in_help_and_the_slash_list(self, project: Path) -> None:
        from tui_agent.ui.commands import COMMANDS

        assert any(c.name == "rewind" and c.help for c in COMMANDS)
        app, _model = build(project, [])
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: app.ready)
            await type_keys(pilot, *"/help", "enter")
            await until(pilot, lambda: "/rewind" in transcript_text(app))
            await type_keys(pilot, *"/rew")
            await until(pilot, lambda: any("/rewind" in item for item in completion_items(app)))


class TestRestore:
    async def test_restore_code_only_puts_the_files_back_and_keeps_the_conversation(self, project: Path) -> None:
        app, model = build(project, script(project), permission_mode="acceptEdits")
        async with app.run_test(size=(120, 40)) as pilot:
            await three_prompts(pilot, app)
            await open_picker(pilot, app)
            await choose(pilot, app, "more please", "Restore code")
            await until(pilot, lambda: "Restored the code" in transcript_text(app))
            assert files(project) == {"app.py": "def main():\n    return 2\n", "notes.md": "# Notes\none\n", "new.txt": None}
            text = transcript_text(app)
            assert "app.py  restored" in text and "notes.md  restored" in text and "new.txt  removed (created since)" in text
            assert "three done" in text and app.prompt.text == ""
            await type_keys(pilot, *"next", "enter")
            await until_idle(pilot, app)
        assert "third step" in sent_texts(model.requests[-1]), "the conversation is unchanged"

    async def test_restore_conversation_only_forks_it_and_puts_the_prompt_back(self, project: Path) -> None:
        app, model = build(project, script(project), permission_mode="acceptEdits")
        async with app.run_test(size=(120, 40)) as pilot:
            await three_prompts(pilot, app)
            before = files(project)
            await open_picker(pilot, app)
            await choose(pilot, app, "more please", "Restore conversation")
            await until(pilot, lambda: app.prompt.text == "more please")
            assert files(project) == before, "the code is unchanged"
            text = transcript_text(app)
            assert "one done" in text and "two done" not in text and "third step" not in text
            assert "Rewound the conversation" in text
            await pilot.press("enter")  # sent again as it was put back
            await until_idle(pilot, app)
        sent = sent_texts(model.requests[-1])
        assert sent[0] == "make notes" and "one done" in sent and sent[-1] == "more please"
        assert "two done" not in sent and "third step" not in sent
        assert_history_valid(model.requests[-1]["messages"])

    async def test_restore_both_to_the_first_prompt_removes_created_files_and_empties_the_history(self, project: Path) -> None:
        app, model = build(project, script(project), permission_mode="acceptEdits")
        async with app.run_test(size=(120, 40)) as pilot:
            await three_prompts(pilot, app)
            await open_picker(pilot, app)
            used = app.status.state.context_used
            await choose(pilot, app, "make notes", "Restore code and conversation")
            await until(pilot, lambda: app.prompt.text == "make notes" and "Restored the code" in transcript_text(app))
            await until(pilot, lambda: app.status.state.context_used < used)  # the meter follows the shorter history
            assert files(project) == {"app.py": "def main():\n    return 1\n", "notes.md": None, "new.txt": None}
            assert app.agent.history == []
            assert "one done" not in transcript_text(app)
            await type_keys(pilot, *" again", "enter")
            await until_idle(pilot, app)
        assert [m["role"] for m in model.requests[-1]["messages"]] == ["user"]
        assert sent_texts(model.requests[-1])[-1] == "make notes again"

    async def test_never_mind_and_esc_change_nothing(self, project: Path) -> None:
        app, _model = build(project, script(project), permission_mode="acceptEdits")
        async with app.run_test(size=(120, 40)) as pilot:
            await three_prompts(pilot, app)
            before, history = files(project), json.dumps(app.agent.history)
            await open_picker(pilot, app)
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, RewindOptions))
            await pilot.press("escape")  # back to the list
            await until(pilot, lambda: isinstance(app.screen, RewindPicker))
            await choose(pilot, app, "third step", "Never mind")
            await until(pilot, lambda: not isinstance(app.screen, (RewindPicker, RewindOptions)))
            assert files(project) == before and json.dumps(app.agent.history) == history


class TestHandEdits:
    async def _hand_edited(self, project: Path, answer: str) -> dict[str, str | None]:
        app, _model = build(project, script(project), permission_mode="acceptEdits")
        async with app.run_test(size=(120, 40)) as pilot:
            await three_prompts(pilot, app)
            (project / "app.py").write_text("def main():\n    return 42  # mine\n")
            await open_picker(pilot, app)
            await choose(pilot, app, "more please", "Restore code")
            await until(pilot, lambda: isinstance(app.screen, ConfirmOverwrite))
            assert [p.name for p in app.screen.paths] == ["app.py"]
            await type_keys(pilot, *(["down"] if answer == "overwrite" else []), "enter")
            await until(pilot, lambda: "Restored the code" in transcript_text(app))
            if answer == "keep":
                assert "app.py  kept: changed by hand since" in transcript_text(app)
        return files(project)

    async def test_a_file_edited_by_hand_is_kept_when_the_confirmation_says_keep(self, project: Path) -> None:
        after = await self._hand_edited(project, "keep")
        assert after == {"app.py": "def main():\n    return 42  # mine\n", "notes.md": "# Notes\none\n", "new.txt": None}

    async def test_a_file_edited_by_hand_is_overwritten_only_after_the_confirmation(self, project: Path) -> None:
        after = await self._hand_edited(project, "overwrite")
        assert after == {"app.py": "def main():\n    return 2\n", "notes.md": "# Notes\none\n", "new.txt": None}


class TestCompaction:
    async def test_prompts_summarised_by_a_compaction_offer_their_code_only_and_say_why(self, project: Path) -> None:
        from tests.core.context.scripts import conversation
        from tui_agent.ui.screens.rewind import COMPACTED

        handler, _seen = conversation(script(project)[:5])
        app, _model = build(project, handler, permission_mode="acceptEdits")
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: app.ready)
            for prompt in PROMPTS[:2]:
                await type_keys(pilot, *prompt, "enter")
                await until_idle(pilot, app)
            await type_keys(pilot, *"/compact", "enter")
            await until(pilot, lambda: "Conversation compacted" in transcript_text(app))
            await until_idle(pilot, app)
            picker = await open_picker(pilot, app)
            assert [(e.point.text, e.point.in_conversation) for e in picker.entries] == [("more please", False), ("make notes", False)]
            assert "code only" in str(picker.query_one(OptionList).get_option_at_index(0).prompt)
            await pilot.press("down", "enter")
            await until(pilot, lambda: isinstance(app.screen, RewindOptions))
            assert option_labels(app.screen) == ["Restore code", "Never mind"]
            assert COMPACTED in " ".join(str(s.render()) for s in app.screen.query(".para"))
            history = json.dumps(app.agent.history)
            await pilot.press("enter")
            await until(pilot, lambda: "Restored the code" in transcript_text(app))
            assert files(project) == {"app.py": "def main():\n    return 1\n", "notes.md": None, "new.txt": None}
            assert json.dumps(app.agent.history) == history, "the compacted conversation stays"


class TestResumeAndSettings:
    async def test_resume_after_a_rewind_shows_the_rewound_conversation(self, project: Path) -> None:
        app, _model = build(project, script(project), permission_mode="acceptEdits")
        async with app.run_test(size=(120, 40)) as pilot:
            await three_prompts(pilot, app)
            await open_picker(pilot, app)
            await choose(pilot, app, "third step", "Restore conversation")
            await until(pilot, lambda: app.prompt.text == "third step")
            sid = app.agent.session.id
            await pilot.press("ctrl+q")
        again, model = build(project, [Reply([Text("resumed answer")])], resume=sid)
        async with again.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: again.ready)
            await pilot.pause()
            text = transcript_text(again)
            assert "two done" in text and "three done" not in text
            assert [e.point.text for e in (await open_picker(pilot, again)).entries] == ["more please", "make notes"]
            await pilot.press("escape")
            await type_keys(pilot, *"go on", "enter")
            await until_idle(pilot, again)
        sent = sent_texts(model.requests[-1])
        assert "two done" in sent and "third step" not in sent and sent[-1] == "go on"

    async def test_without_checkpoints_only_the_conversation_is_offered_and_the_dialog_says_why(self, project: Path) -> None:
        (project / ".claude").mkdir()
        (project / ".claude" / "settings.json").write_text(json.dumps({"fileCheckpointingEnabled": False}))
        app, _model = build(project, script(project), permission_mode="acceptEdits")
        async with app.run_test(size=(120, 40)) as pilot:
            await three_prompts(pilot, app)
            await open_picker(pilot, app)
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, RewindOptions))
            assert option_labels(app.screen) == ["Restore conversation", "Never mind"]
            notes = " ".join(str(s.render()) for s in app.screen.query(".para"))
            assert "fileCheckpointingEnabled" in notes
            await pilot.press("escape", "escape")


# ----- snapshots -------------------------------------------------------------------------------------------
NOW = 1_765_000_000.0
DEMO = Path("/work/demo")


def demo_entries() -> list[Any]:
    from tui_agent.core.checkpoints import FileChange
    from tui_agent.core.session.rewind import PromptPoint
    from tui_agent.ui.screens.rewind import RewindEntry

    def change(name: str, added: int, removed: int, created: bool = False) -> FileChange:
        return FileChange(DEMO / name, added, removed, created=created, deleted=False)

    return [
        RewindEntry(PromptPoint("p4", "Now rename the helper and update every caller, then run the whole test suite "
                                "again and fix whatever breaks along the way", NOW - 40, "a3"),
                    (change("src/helpers.py", 4, 4), change("src/app.py", 2, 2), change("tests/test_app.py", 6, 1)), "p4"),
        RewindEntry(PromptPoint("p3", "what does main() return?", NOW - 400, "a2"), (), "p4"),
        RewindEntry(PromptPoint("p2", "Add a notes file\nwith two lines", NOW - 3_900, "a1"),
                    (change("notes.md", 2, 0, created=True),), "p2"),
        RewindEntry(PromptPoint("p1", "make main return 2", NOW - 90_000, None), (change("src/app.py", 1, 1),), "p1"),
    ]


def host(make_screen: Any) -> Any:
    from textual.app import App

    class DialogHost(App[None]):
        def on_mount(self) -> None:
            self.push_screen(make_screen())

    return DialogHost()


def picker_host() -> Any:
    return host(lambda: RewindPicker(demo_entries(), now=NOW, cwd=DEMO, checkpointing=True))


def options_host() -> Any:
    from tui_agent.core.checkpoints import FileChange

    entry = demo_entries()[2]
    since = [FileChange(DEMO / "notes.md", 4, 0, created=True, deleted=False), FileChange(DEMO / "src/helpers.py", 4, 4, created=False, deleted=False),
             FileChange(DEMO / "new.txt", 1, 0, created=True, deleted=False)]
    return host(lambda: RewindOptions(entry, since, now=NOW, cwd=DEMO, checkpointing=True))


def test_snapshot_rewind_picker_at_120x40(snap_compare: Any) -> None:
    """You should see the "Rewind" box with four prompts newest first, each with how long ago on the right
    (40s, 6m, 1h, 1d ago) and under it its files with +N −M (the second: "No code changes"); the long
    first prompt is cut with "…"; the hint "↑/↓ choose · enter continue · esc cancel"."""
    assert snap_compare(picker_host(), terminal_size=(120, 40))


def test_snapshot_rewind_picker_at_80x24(snap_compare: Any) -> None:
    """You should see the same picker narrowed to 80 columns: rows and file lists cut with "…", nothing
    wrapped or overlapping."""
    assert snap_compare(picker_host(), terminal_size=(80, 24))


def test_snapshot_rewind_options_at_120x40(snap_compare: Any) -> None:
    """You should see "Confirm you want to restore…", the quoted prompt on two lines with "(1h ago)", the
    four choices (Restore code and conversation highlighted, Restore conversation, Restore code, Never mind),
    what the highlighted one does ("…restored +9 −4 in notes.md and 2 other files."), and the warning that
    files changed by shell commands are not tracked."""
    assert snap_compare(options_host(), terminal_size=(120, 40))


def test_snapshot_rewind_options_at_80x24(snap_compare: Any) -> None:
    """You should see the same options dialog at 80×24, every line whole (wrapped, not cut)."""
    assert snap_compare(options_host(), terminal_size=(80, 24))
