"""Resume, continue and fork through the factory (what -p, the app and the SDK protocol all call)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.core.support import assert_history_valid, sample_tools
from tui_agent.core.events import Notice
from tui_agent.core.session import NoConversationFound, load, open_session
from tui_agent.core.session.index import list_sessions
from tui_agent.core.session.paths import claude_projects_root, project_slug
from tui_agent.core.session.reader import CRASHED_TOOL
from tui_agent.providers.scripted import Reply, Text, ToolUse

FIXTURES = Path(__file__).parent / "fixtures"


async def first_session(make_harness, **settings):
    h = make_harness([Reply([ToolUse("SleepRead", {"text": "a"})]), Reply([Text("one")])], tools=sample_tools(), **settings)
    await h.agent.run("first")
    await h.agent.close()
    return h


class TestContinueAndResume:
    async def test_continue_carries_on_in_the_same_file_with_the_whole_history_sent(self, make_harness):
        h1 = await first_session(make_harness)
        h2 = make_harness([Reply([Text("two")])], tools=sample_tools(), continue_session=True)
        assert h2.agent.session.id == h1.agent.session.id
        await h2.agent.run("second")
        await h2.agent.close()
        sent = h2.requests[0]["messages"]
        assert [m["role"] for m in sent] == ["user", "assistant", "user", "assistant", "user"]
        assert sent[-1]["content"][-1]["text"] == "second"
        conv = load(h1.agent.session.transcript_path)
        assert conv.history == h2.agent.history and len(conv.history) == 6
        assert_history_valid(conv.history)

    async def test_resume_by_id_works_from_another_directory(self, make_harness, tmp_path):
        h1 = await first_session(make_harness)
        other = tmp_path / "elsewhere"
        other.mkdir()
        h2 = make_harness([Reply([Text("two")])], tools=sample_tools(), resume=h1.agent.session.id, cwd=other)
        assert h2.agent.session.transcript_path == h1.agent.session.transcript_path
        assert len(h2.agent.history) == 4

    async def test_a_name_from_another_folder_is_told_apart_from_an_id_with_the_id_that_resumes_it(self, make_harness, tmp_path):
        h1 = await first_session(make_harness, session_name="release prep")
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir()
        with pytest.raises(NoConversationFound) as err:
            open_session(elsewhere, resume="release prep")
        first, second = str(err.value).splitlines()
        assert first == "No conversation found with session ID: release prep"
        assert second.startswith('"release prep" is not a session ID but a session name, and names belong to a folder')
        assert second.endswith(f"tui-agent --resume {h1.agent.session.id}")
        assert open_session(elsewhere, resume=h1.agent.session.id).conversation is not None

    async def test_resume_by_name(self, make_harness):
        h1 = await first_session(make_harness, session_name="my work")
        h2 = make_harness([Reply([Text("two")])], tools=sample_tools(), resume="my work")
        assert h2.agent.session.id == h1.agent.session.id

    def test_unknown_id_and_nothing_to_continue_say_claude_codes_words(self, tmp_path, data_home):
        with pytest.raises(NoConversationFound, match="^No conversation found with session ID: nope\n"):
            open_session(tmp_path, resume="nope")
        with pytest.raises(NoConversationFound, match="^No conversation found to continue$"):
            open_session(tmp_path, continue_=True)

    async def test_fork_copies_into_a_new_file_and_leaves_the_original_untouched(self, make_harness):
        h1 = await first_session(make_harness)
        original = h1.agent.session.transcript_path.read_text()
        h2 = make_harness([Reply([Text("forked")])], tools=sample_tools(), resume=h1.agent.session.id, fork_session=True)
        assert h2.agent.session.id != h1.agent.session.id
        await h2.agent.run("second")
        await h2.agent.close()
        assert h1.agent.session.transcript_path.read_text() == original
        forked = load(h2.agent.session.transcript_path)
        assert len(forked.history) == 6 and forked.history[:4] == h1.agent.history
        assert all(l.get("sessionId") in (None, h2.agent.session.id) for l in h2.agent.session.read())

    async def test_resume_restores_the_permission_mode_but_never_bypass_or_plan_silently(self, make_harness):
        h1 = await first_session(make_harness, permission_mode="acceptEdits")
        h2 = make_harness([Reply([Text("x")])], tools=sample_tools(), continue_session=True)
        assert h2.agent.policy.mode == "acceptEdits"
        await h2.agent.close()
        h3 = await first_session(make_harness, permission_mode="plan", session_id="6f1e5c1e-0000-4000-8000-000000000001")
        h4 = make_harness([Reply([Text("x")])], tools=sample_tools(), resume=h3.agent.session.id)
        assert h4.agent.policy.mode == "default"
        assert any(isinstance(e, Notice) and "was in plan mode" in e.text for e in h4.events)

    async def test_session_id_must_be_a_uuid_and_is_used(self, make_harness, tmp_path, data_home):
        with pytest.raises(ValueError, match="Invalid session ID"):
            open_session(tmp_path, session_id="abc")
        h = await first_session(make_harness, session_id="6f1e5c1e-0000-4000-8000-00000000000a")
        assert h.agent.session.transcript_path.name == "6f1e5c1e-0000-4000-8000-00000000000a.jsonl"


    async def test_resume_brings_back_the_model_unless_one_was_chosen(self, make_harness):
        from tui_agent.config import AgentSettings
        from tui_agent.factory import settings_for_resumed

        h1 = await first_session(make_harness, model="claude-opus-4-1")
        opened = open_session(h1.agent.workspace.root, resume=h1.agent.session.id)
        base = AgentSettings(cwd=h1.agent.workspace.root, model="claude-sonnet-4-6")
        assert settings_for_resumed(base, opened).model == "claude-opus-4-1"
        assert settings_for_resumed(base.model_copy(update={"model_pinned": True}), opened).model == "claude-sonnet-4-6"
        opened.session.close()

    async def test_after_clear_a_resume_finds_only_the_new_conversation(self, make_harness):
        h = make_harness([Reply([Text("one")]), Reply([Text("two")])], tools=sample_tools())
        await h.agent.run("before clear")
        h.agent.history.clear()
        h.agent.session.start_over()
        await h.agent.run("after clear")
        await h.agent.close()
        assert load(h.agent.session.transcript_path).history == [{"role": "user", "content": "after clear"}, {"role": "assistant", "content": [{"type": "text", "text": "two"}]}]


class TestCrashRepair:
    def _write(self, path: Path, lines: list[dict]) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(l) + "\n" for l in lines))

    async def test_tool_use_without_result_gets_an_error_result_and_the_user_is_told(self, make_harness):
        h1 = await first_session(make_harness)
        path = h1.agent.session.transcript_path
        lines = h1.agent.session.read()
        # Keep the prompt and the tool_use (the process was killed while the tool ran), plus a torn line.
        path.write_text("".join(json.dumps(l) + "\n" for l in lines[:2]) + '{"parentUuid": "x", "type": "assis')
        notices: list[str] = []
        h2 = make_harness([Reply([Text("after crash")])], tools=sample_tools(), continue_session=True)
        notices = [e.text for e in h2.events if isinstance(e, Notice)]
        result = h2.agent.history[2]["content"][0]
        assert result["is_error"] and CRASHED_TOOL in result["content"]
        assert any("SleepRead" in n and "may have run partway" in n for n in notices)
        assert any("unreadable" in n for n in notices)
        await h2.agent.run("go on")
        assert_history_valid(h2.agent.history)
        # The repair is written: the file reads back valid without repairing again.
        again = load(path)
        assert not any("had no result" in r for r in again.repairs)
        assert again.history == h2.agent.history

    async def test_listing_marks_a_session_that_ended_mid_turn(self, make_harness):
        h1 = await first_session(make_harness)
        path = h1.agent.session.transcript_path
        lines = h1.agent.session.read()
        path.write_text("".join(json.dumps(l) + "\n" for l in lines[:3]))  # results written, no answer
        [info] = list_sessions(h1.agent.workspace.root)
        assert info.ended_mid_turn and info.first_prompt == "first" and info.message_count == 3


async def test_a_compacted_session_keeps_the_users_first_prompt_as_its_title(make_harness):
    """After /compact the history starts at the summary: the picker still names the session by the user's words."""
    h = make_harness([Reply([Text("one")]), Reply([Text("<summary>what happened</summary>")])], tools=sample_tools())
    await h.agent.run("release prep for the next version")
    finished = await h.agent.compact("")
    assert finished.outcome == "compacted", finished.detail
    [info] = list_sessions(h.agent.workspace.root)
    assert info.title == "release prep for the next version"
    assert "continued from a previous conversation" not in info.title


class TestClaudeCodeSessions:
    def _install(self, work: Path, name: str = "claude_code_tool_turn.jsonl") -> str:
        text = (FIXTURES / name).read_text().replace("/home/user/project", str(work))
        session_id = json.loads(text.splitlines()[0])["sessionId"]
        folder = claude_projects_root() / project_slug(work.resolve())
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{session_id}.jsonl").write_text(text)
        return session_id

    async def test_resume_by_its_id_continues_in_a_new_session_of_ours_and_never_writes_theirs(self, make_harness, tmp_path):
        work = tmp_path / "work"
        work.mkdir(exist_ok=True)
        cc_id = self._install(work)
        cc_file = claude_projects_root() / project_slug(work.resolve()) / f"{cc_id}.jsonl"
        before = cc_file.read_bytes()
        h = make_harness([Reply([Text("continuing")])], tools=sample_tools(), resume=cc_id)
        assert h.agent.session.id != cc_id
        assert [m["role"] for m in h.agent.history] == ["user", "assistant", "user", "assistant"]
        await h.agent.run("and then?")
        await h.agent.close()
        assert cc_file.read_bytes() == before
        assert h.requests[0]["messages"][1]["content"][1]["name"] == "Read"
        assert_history_valid(h.agent.history)
        assert len(load(h.agent.session.transcript_path).history) == 6

    async def test_the_listing_shows_claude_codes_sessions_marked(self, make_harness, tmp_path):
        h1 = await first_session(make_harness)
        cc_id = self._install(h1.agent.workspace.root)
        infos = list_sessions(h1.agent.workspace.root)
        sources = {i.session_id: i.source for i in infos}
        assert sources[cc_id] == "claude-code" and sources[h1.agent.session.id] == "tui-agent"
        cc = next(i for i in infos if i.source == "claude-code")
        assert cc.first_prompt == "read the file" and cc.branch == "master"

    def test_a_compacted_claude_code_session_is_titled_by_its_first_prompt_not_its_summary(self, tmp_path):
        work = tmp_path / "work"
        work.mkdir(exist_ok=True)
        cc_id = self._install(work, "claude_code_compacted.jsonl")
        [info] = [i for i in list_sessions(work) if i.session_id == cc_id]
        assert info.first_prompt == "read the file" and info.title == "read the file"

    async def test_a_compacted_claude_code_session_resumes_from_its_summary(self, make_harness, tmp_path):
        work = tmp_path / "work"
        work.mkdir(exist_ok=True)
        cc_id = self._install(work, "claude_code_compacted.jsonl")
        h = make_harness([Reply([Text("ok")])], tools=sample_tools(), resume=cc_id)
        await h.agent.run("next")
        first = h.requests[0]["messages"][0]["content"]
        assert first[0]["text"].startswith("This session is being continued")
        assert_history_valid(h.agent.history)
