"""Automatic compaction before a request whose context would pass the threshold: a turn of its own, with
Claude Code's summary request, a compact_boundary in the transcript, and a history that starts over
from the summary (and resumes from there)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.core.context.scripts import SUMMARY, conversation, read_turn, request_texts
from tests.core.support import assert_history_valid, sample_tools
from tui_agent.core.context.summary import CONTINUED, SUMMARY_INSTRUCTION
from tui_agent.core.events import CompactionFinished, CompactionStarted, ContextUpdated, LoopEnded
from tui_agent.core.session import load
from tui_agent.providers.scripted import Reply, Text, ToolUse
from tui_agent.tools.read import ReadTool

OLD_RESULT = "old-result-" + "r" * 8_000


async def test_passing_the_threshold_compacts_and_the_next_request_carries_the_summary_not_the_old_messages(make_harness, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    widget = work / "widget.py"
    widget.write_text("def widget():\n    return 42\n")
    handler, seen = conversation([
        Reply([Text("Reading."), ToolUse("Read", {"file_path": str(widget)})], input_tokens=20_000),
        read_turn(OLD_RESULT, 166_000),  # + the result's ~2k tokens: over 167k before the next request
        Reply([Text("Done after compaction.")], input_tokens=9_000),
    ])
    h = make_harness(handler, tools=[*sample_tools(), ReadTool()])
    ended = await h.agent.run("Fix the widget please")
    assert ended.reason == "completed" and ended.result == "Done after compaction."

    assert len(seen["summaries"]) == 1
    ask = seen["summaries"][0]
    before = seen["turns"][1]
    # The summary request: the conversation so far, the instruction appended to its last user message,
    # the same system prompt and tools (the prompt cache still serves it).
    assert ask["messages"][:2] == before["messages"][:2], "the same prefix as the turns before it"
    assert ask["messages"][-1]["role"] == "user"
    assert ask["messages"][-1]["content"][0]["type"] == "tool_result"
    assert ask["messages"][-1]["content"][-1]["text"].startswith(SUMMARY_INSTRUCTION[:60])
    assert OLD_RESULT in json.dumps(ask)
    assert ask["system"] == before["system"] and ask["tools"] == before["tools"]
    for heading in ("Primary Request and Intent", "Key Technical Concepts", "Files and Code Sections", "Errors and fixes",
                    "Problem Solving", "All user messages", "Pending Tasks", "Current Work", "Next Step"):
        assert heading in ask["messages"][-1]["content"][-1]["text"]

    after = seen["turns"][2]
    texts = request_texts(after)
    first = next(t for t in texts if t.startswith(CONTINUED))
    assert SUMMARY in first and str(h.agent.session.transcript_path) in first
    assert "<analysis>" not in first
    body = json.dumps(after)
    assert OLD_RESULT not in body and "Reading." not in body, "the old messages are gone from the request"
    assert "Fix the widget please" in body, "the person's prompt is carried verbatim"
    assert "return 42" in body, "the file read last is re-attached from disk"
    assert len(after["messages"]) == 1

    started, finished = h.of(CompactionStarted), h.of(CompactionFinished)
    assert [s.trigger for s in started] == ["auto"] and started[0].pre_tokens > 167_000
    assert finished[0].outcome == "compacted" and finished[0].post_tokens < 167_000
    assert any(u.cause == "compaction" and u.used < 20_000 for u in h.of(ContextUpdated))
    assert_history_valid(h.agent.history)

    lines = h.agent.session.read()
    boundary = [l for l in lines if l.get("subtype") == "compact_boundary"]
    assert len(boundary) == 1
    b = boundary[0]
    assert b["type"] == "system" and b["parentUuid"] is None and b["logicalParentUuid"]
    assert b["content"] == "Conversation compacted" and b["compactMetadata"]["trigger"] == "auto"
    assert b["compactMetadata"]["preTokens"] == started[0].pre_tokens
    summary_line = next(l for l in lines if l.get("isCompactSummary"))
    assert summary_line["parentUuid"] == b["uuid"] and summary_line["message"]["content"].startswith(CONTINUED)
    assert any(OLD_RESULT in json.dumps(l) for l in lines), "the full history before the boundary stays in the transcript"


async def test_a_resumed_session_continues_from_after_the_boundary(make_harness, tmp_path: Path) -> None:
    handler, seen = conversation([
        read_turn("a" * 4000, 20_000),
        read_turn(OLD_RESULT, 166_000),
        Reply([Text("compacted and done")], input_tokens=9_000),
    ])
    h = make_harness(handler, tools=sample_tools())
    await h.agent.run("the first prompt")
    await h.agent.close()
    conv = load(h.agent.session.transcript_path)
    assert conv.compacted
    assert conv.history == h.agent.history
    assert_history_valid(conv.history)
    assert OLD_RESULT not in json.dumps(conv.history)


async def test_below_the_threshold_nothing_is_compacted(make_harness) -> None:
    handler, seen = conversation([read_turn("x" * 400, 150_000), Reply([Text("ok")], input_tokens=150_200)])
    h = make_harness(handler, tools=sample_tools())
    assert (await h.agent.run("go")).reason == "completed"
    assert not seen["summaries"] and not h.of(CompactionStarted)


async def test_autocompact_enabled_false_in_settings_turns_it_off(make_harness, tmp_path: Path) -> None:
    settings = tmp_path / "s.json"
    settings.write_text(json.dumps({"autoCompactEnabled": False}))
    handler, seen = conversation([read_turn(OLD_RESULT, 166_000), Reply([Text("ok")])])
    h = make_harness(handler, tools=sample_tools(), settings_file=settings)
    assert (await h.agent.run("go")).reason == "completed"
    assert not seen["summaries"]
    assert h.agent.context_size().auto_compact is False


async def test_a_failed_summary_leaves_the_history_and_the_run_goes_on(make_harness) -> None:
    from tui_agent.providers.scripted import fault

    handler, seen = conversation([read_turn(OLD_RESULT, 166_000), Reply([Text("still fine")])], summary=lambda body, n: fault(400, "bad request"))
    h = make_harness(handler, tools=sample_tools())
    ended = await h.agent.run("go")
    assert ended.reason == "completed" and ended.result == "still fine"
    finished = h.of(CompactionFinished)
    assert finished[0].outcome == "failed" and "bad request" in finished[0].detail
    assert OLD_RESULT in json.dumps(seen["turns"][-1])
    assert not any(l.get("subtype") == "compact_boundary" for l in h.agent.session.read())
    assert [e.reason for e in h.of(LoopEnded)] == ["completed"]  # one ending, the run's own
