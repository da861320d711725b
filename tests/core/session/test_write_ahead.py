"""Write-ahead: a block is on disk before anything acts on it, a result the moment its tool ends, and the
file still reads back into exactly the history the agent holds, whatever the response went through
(retried attempts, a cut response, an ESC mid-text, results reshaped by the message budget)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from tests.core.support import SleepInput, SleepRead, assert_history_valid, sample_tools
from tui_agent.core.events import TextDelta, ToolFinished
from tui_agent.core.session import load
from tui_agent.core.session.reader import rebuild
from tui_agent.providers.scripted import Reply, Text, ToolUse
from tui_agent.tools.base import ToolOutput


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(l) for l in path.read_text().splitlines() if l.strip()]


def blocks_on_disk(path: Path, kind: str) -> list[dict[str, Any]]:
    return [b for l in lines_of(path) if l.get("type") in ("user", "assistant") and isinstance(l["message"]["content"], list)
            for b in l["message"]["content"] if b.get("type") == kind]


class Witness(SleepRead):
    """A tool that looks at the transcript as it starts: its own tool_use must already be there."""

    name = "Witness"
    aliases = ()
    seen: dict[str, bool] = {}
    path: Path | None = None

    async def call(self, input: SleepInput, ctx: Any) -> ToolOutput:
        assert self.path is not None
        ids = {b["id"] for b in blocks_on_disk(self.path, "tool_use")}
        Witness.seen[input.text] = input.text in ids
        return ToolOutput(f"saw {input.text}")


class TestOnDiskBeforeItActs:
    async def test_a_tool_use_is_in_the_transcript_before_its_tool_starts(self, make_harness):
        witness = Witness()
        h = make_harness([Reply([Text("Checking."), ToolUse("Witness", {"text": "w1"}, id="w1"), ToolUse("Witness", {"text": "w2"}, id="w2"), Text("More to say " * 20)], delay=0.01),
                          Reply([Text("done")])], tools=[witness])
        Witness.path, Witness.seen = h.agent.session.transcript_path, {}
        ended = await h.agent.run("go")
        assert ended.reason == "completed"
        assert Witness.seen == {"w1": True, "w2": True}

    async def test_a_result_is_on_disk_when_its_tool_is_reported_finished(self, make_harness):
        h = make_harness([Reply([ToolUse("SleepRead", {"text": "fast"}, id="fast"), ToolUse("SleepRead", {"seconds": 0.3, "text": "slow"}, id="slow"),
                                 Text("still talking " * 30)], delay=0.002), Reply([Text("done")])], tools=sample_tools())
        on_disk_at_finish: dict[str, bool] = {}
        emit = h.agent.emit

        def watch(event: Any) -> None:
            if isinstance(event, ToolFinished):
                ids = {b["tool_use_id"] for b in blocks_on_disk(h.agent.session.transcript_path, "tool_result")}
                on_disk_at_finish[event.id] = event.id in ids
            emit(event)

        h.agent.emit = watch
        await h.agent.run("go")
        assert on_disk_at_finish == {"fast": True, "slow": True}

    async def test_each_block_and_result_is_written_once_and_records_what_the_screen_showed(self, make_harness):
        h = make_harness([Reply([Text("Let me look."), ToolUse("SleepRead", {"seconds": 0.05, "text": "a"}, id="a"), ToolUse("Nope", {}, id="bad"), Text("and more")]),
                          Reply([Text("All done.")])], tools=sample_tools())
        await h.agent.run("read")
        path = h.agent.session.transcript_path
        assert [b["id"] for b in blocks_on_disk(path, "tool_use")] == ["a", "bad"]
        assert sorted(b["tool_use_id"] for b in blocks_on_disk(path, "tool_result")) == ["a", "bad"]
        assert [b["text"] for b in blocks_on_disk(path, "text")] == ["Let me look.", "and more", "All done."]
        meta = load(path).tool_meta
        assert meta["a"]["status"] == "ok" and meta["a"]["durationMs"] >= 50 and meta["bad"]["status"] == "error"
        assert load(path).history == h.agent.history


class TestReadsBackExactly:
    async def test_a_retried_attempt_leaves_a_dead_branch_and_the_kept_one_reads_back(self, make_harness):
        h = make_harness([Reply([Text("first try, complete block"), Text("cut " * 40)], chunk=30, drop_after=7),
                          Reply([Text("second try"), ToolUse("SleepRead", {"text": "x"}, id="r")]), Reply([Text("done")])], tools=sample_tools())
        await h.agent.run("go")
        path = h.agent.session.transcript_path
        assert "first try, complete block" in [b["text"] for b in blocks_on_disk(path, "text")]  # written ahead, then dropped
        conv = load(path)
        assert conv.history == h.agent.history
        assert all("first try" not in json.dumps(m) for m in conv.history)

    async def test_an_escape_mid_text_after_a_tool_keeps_the_tool_and_the_partial_text(self, make_harness):
        h = make_harness([Reply([Text("Running."), ToolUse("SleepRead", {"text": "t"}, id="t"), Text("a long answer " * 200)], chunk=10, delay=0.002)], tools=sample_tools())
        task = asyncio.create_task(h.agent.run("go"))
        while not (any(isinstance(e, ToolFinished) for e in h.events) and any(isinstance(e, TextDelta) and e.index == 2 for e in h.events)):
            await asyncio.sleep(0.005)
        h.agent.abort()  # the tool has ended and the third block is streaming
        ended = await task
        assert ended.reason == "aborted"
        conv = load(h.agent.session.transcript_path)
        assert conv.history == h.agent.history
        assistant = conv.history[1]["content"]
        assert [b["type"] for b in assistant] == ["text", "tool_use", "text"] and ("a long answer " * 200).startswith(assistant[2]["text"])
        assert_history_valid(conv.history)

    async def test_results_reshaped_by_the_message_budget_are_the_ones_read_back(self, make_harness):
        big = "y" * 3000
        h = make_harness([Reply([ToolUse("SleepRead", {"text": big}, id=f"b{i}") for i in range(4)]), Reply([Text("done")])],
                         tools=sample_tools(), message_budget=5000)
        await h.agent.run("go")
        conv = load(h.agent.session.transcript_path)
        assert conv.history == h.agent.history
        sent = [b for b in h.agent.history[2]["content"] if b.get("type") == "tool_result"]
        assert any(b["content"] != big for b in sent)  # the budget did replace some: the test means something

    def test_a_text_block_after_a_tool_use_is_kept_though_results_hang_from_the_tool_use(self):
        """Claude Code's shape: results hang from their tool_use's line, so a block after the tool_use
        is off the chain; it belongs to the message all the same."""
        base = {"isSidechain": False, "sessionId": "s", "timestamp": "2026-01-01T00:00:00.000Z"}
        msg = {"id": "m1", "role": "assistant", "type": "message", "model": "x"}
        lines = [
            {**base, "type": "user", "uuid": "p", "parentUuid": None, "message": {"role": "user", "content": "go"}},
            {**base, "type": "assistant", "uuid": "t", "parentUuid": "p", "message": {**msg, "content": [{"type": "tool_use", "id": "u", "name": "Bash", "input": {}}]}},
            {**base, "type": "assistant", "uuid": "x", "parentUuid": "t", "message": {**msg, "content": [{"type": "text", "text": "after"}]}},
            {**base, "type": "user", "uuid": "r", "parentUuid": "t", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "u", "content": "ok"}]}},
            {**base, "type": "assistant", "uuid": "a", "parentUuid": "r", "message": {**msg, "id": "m2", "content": [{"type": "text", "text": "done"}]}},
        ]
        history = rebuild(lines).history
        assert [b.get("type") for b in history[1]["content"]] == ["tool_use", "text"]
        assert_history_valid(history)
