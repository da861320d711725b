"""Rewinding the conversation (core/session/rewind.py): the real Agent and its transcript; the history that
remains is what a resume of the file gives, before and after the next prompt."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.core.support import Harness, assert_history_valid
from tui_agent.core.session.reader import load
from tui_agent.core.session.resume import completed_conversation, open_session
from tui_agent.core.session.rewind import CannotRewind, prompt_points, rewind_conversation, session_points
from tui_agent.providers.scripted import Reply, Text, ToolUse


def three_prompts(work: Path) -> list[Any]:
    return [
        Reply([Text("one done")]),
        Reply([ToolUse("Write", {"file_path": str(work / "b.txt"), "content": "bee\n"}, id="w1")]),
        Reply([Text("two done")]),
        Reply([Text("three done")]),
        Reply([Text("four done")]),
    ]


async def three_runs(make_harness: Any, tmp_path: Path) -> Harness:
    h = make_harness(three_prompts(tmp_path / "work"), permission_mode="acceptEdits")
    for prompt in ("first", "second", "third"):
        assert (await h.agent.run(prompt)).reason == "completed"
    return h


def texts(history: list[dict[str, Any]]) -> list[str]:
    out = []
    for m in history:
        blocks = [{"type": "text", "text": m["content"]}] if isinstance(m["content"], str) else m["content"]
        out.extend(b["text"] for b in blocks if b.get("type") == "text")
    return out


class TestPoints:
    async def test_the_prompts_of_the_conversation_are_listed_oldest_first_with_their_text(self, make_harness, tmp_path):
        h = await three_runs(make_harness, tmp_path)
        points = session_points(h.agent)
        assert [p.text for p in points] == ["first", "second", "third"]
        assert points[0].parent is None and all(p.in_conversation for p in points)
        assert all(p.timestamp is not None for p in points)
        store = h.agent.context.services["checkpoints"]
        assert store.has(points[1].uuid), "the store and the picker share the prompt's uuid"


class TestRewind:
    async def test_the_history_ends_before_the_prompt_and_the_next_request_holds_only_it(self, make_harness, tmp_path):
        h = await three_runs(make_harness, tmp_path)
        second = session_points(h.agent)[1]
        conv = rewind_conversation(h.agent, second)
        assert texts(h.agent.history) == ["first", "one done"] == texts(conv.history)
        assert (await h.agent.run("second again")).reason == "completed"
        sent = texts(h.requests[-1]["messages"])
        assert "second" not in sent and "two done" not in sent and sent[-1] == "second again"
        assert_history_valid(h.requests[-1]["messages"])

    async def test_the_old_branch_stays_in_the_file_but_a_resume_follows_the_fork(self, make_harness, tmp_path):
        h = await three_runs(make_harness, tmp_path)
        rewind_conversation(h.agent, session_points(h.agent)[1])
        path = h.agent.session.transcript_path
        assert texts(load(path).history) == ["first", "one done"], "resumed before any new prompt"
        await h.agent.run("second again")
        await h.agent.close()
        lines = [json.loads(l) for l in path.read_text().splitlines()]
        assert any(l.get("type") == "user" and l["message"]["content"] == "third" for l in lines), "the dead branch is kept"
        opened = open_session(tmp_path / "work", resume=h.agent.session.id)
        assert texts(opened.history) == ["first", "one done", "second again", "four done"]
        assert [p.text for p in prompt_points(lines)] == ["first", "second again"]
        opened.session.close()

    async def test_a_busy_fork_after_a_rewind_takes_the_rewound_conversation(self, make_harness, tmp_path):
        h = await three_runs(make_harness, tmp_path)
        rewind_conversation(h.agent, session_points(h.agent)[2])
        assert texts(completed_conversation(h.agent.session.transcript_path).history) == ["first", "one done", "second", "two done"]

    async def test_rewinding_to_the_first_prompt_leaves_an_empty_conversation(self, make_harness, tmp_path):
        h = await three_runs(make_harness, tmp_path)
        rewind_conversation(h.agent, session_points(h.agent)[0])
        assert h.agent.history == []
        assert load(h.agent.session.transcript_path).history == []
        assert session_points(h.agent) == []
        await h.agent.run("fresh")
        assert texts(h.requests[-1]["messages"])[-1:] == ["fresh"] and len(h.requests[-1]["messages"]) == 1

    async def test_a_prompt_summarised_by_a_compaction_is_listed_for_its_code_only(self, make_harness, tmp_path):
        script = three_prompts(tmp_path / "work")
        script.insert(4, Reply([Text("<summary>\nall of it\n</summary>")]))
        h = make_harness(script, permission_mode="acceptEdits")
        for prompt in ("first", "second", "third"):
            await h.agent.run(prompt)
        assert (await h.agent.compact()).outcome == "compacted"
        points = session_points(h.agent)
        assert [(p.text, p.in_conversation) for p in points] == [("first", False), ("second", False), ("third", False)]
        history = list(h.agent.history)
        with pytest.raises(CannotRewind, match="compaction"):
            rewind_conversation(h.agent, points[1])
        assert h.agent.history == history, "nothing changed"
        await h.agent.run("after")
        assert [(p.text, p.in_conversation) for p in session_points(h.agent)][-2:] == [("third", False), ("after", True)]


class TestPromptText:
    def test_a_bang_command_reads_as_typed_and_reminders_are_left_out(self):
        from tui_agent.core.session.rewind import prompt_text
        from tui_agent.core.shell_mode import LOCAL_COMMAND_CAVEAT, input_block, output_block

        blocks = [{"type": "text", "text": LOCAL_COMMAND_CAVEAT}, input_block("ls -la"), output_block("a\nb", "")]
        assert prompt_text(blocks) == "!ls -la"
        assert prompt_text([{"type": "text", "text": "<system-reminder>\nx\n</system-reminder>"}, {"type": "text", "text": "fix it"}]) == "fix it"
