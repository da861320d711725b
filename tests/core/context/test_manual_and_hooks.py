"""/compact [instructions] through the agent, and the PreCompact hook (matcher manual/auto, exit 2 blocks)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from tests.core.context.scripts import SUMMARY, conversation, custom_instructions, read_turn, request_texts
from tests.core.support import assert_history_valid, sample_tools
from tui_agent.core.context.manager import BUSY
from tui_agent.core.context.summary import CONTINUED, RESUME_DIRECTLY
from tui_agent.core.events import CompactionFinished, ContextUpdated, ToolStarted
from tui_agent.core.session import load
from tui_agent.providers.scripted import Reply, Text, ToolUse

OLD = "o" * 8_000


async def test_compact_with_instructions_sends_them_and_starts_the_history_over(make_harness) -> None:
    handler, seen = conversation([read_turn(OLD, 30_000), Reply([Text("first answer")]), Reply([Text("second answer")])])
    h = make_harness(handler, tools=sample_tools())
    await h.agent.run("first prompt")
    finished = await h.agent.compact("keep the test names")
    assert finished.outcome == "compacted" and finished.trigger == "manual"
    assert custom_instructions(seen["summaries"][0]) == "keep the test names"
    assert finished.summary == SUMMARY
    first = h.agent.history[0]["content"][0]["text"]
    assert first.startswith(CONTINUED) and RESUME_DIRECTLY not in first, "after /compact the person speaks next"
    assert len(h.agent.history) == 1
    assert h.of(ContextUpdated)[-1].cause == "compaction"
    resumed = load(h.agent.session.transcript_path)
    assert resumed.history == h.agent.history and not resumed.ended_mid_turn
    await h.agent.run("second prompt")
    texts = request_texts(seen["turns"][-1])
    assert any(t.startswith(CONTINUED) for t in texts) and "second prompt" in texts
    assert OLD not in json.dumps(seen["turns"][-1])
    assert_history_valid(h.agent.history)
    boundary = next(l for l in h.agent.session.read() if l.get("subtype") == "compact_boundary")
    assert boundary["compactMetadata"]["trigger"] == "manual"


async def test_compact_with_nothing_to_compact_says_so(make_harness) -> None:
    h = make_harness([Reply([Text("x")])], tools=sample_tools())
    finished = await h.agent.compact()
    assert finished.outcome == "failed" and finished.detail == "Not enough messages to compact."
    assert not h.model.requests


def _settings(tmp_path: Path, matcher: str, command: str) -> Path:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"hooks": {"PreCompact": [{"matcher": matcher, "hooks": [{"type": "command", "command": command}]}]}}))
    return path


async def test_a_precompact_hook_that_exits_2_blocks_the_compaction(make_harness, tmp_path: Path) -> None:
    got = tmp_path / "hook-input.json"
    settings = _settings(tmp_path, "manual", f"cat > {got}; echo 'not now: saving state' >&2; exit 2")
    handler, seen = conversation([read_turn(OLD, 30_000), Reply([Text("answer")])])
    h = make_harness(handler, tools=sample_tools(), settings_file=settings)
    await h.agent.run("first")
    before = list(h.agent.history)
    finished = await h.agent.compact("focus")
    assert finished.outcome == "blocked" and "not now: saving state" in finished.detail
    assert h.agent.history == before and not seen["summaries"]
    data = json.loads(got.read_text())
    assert data["hook_event_name"] == "PreCompact" and data["trigger"] == "manual" and data["custom_instructions"] == "focus"
    assert data["session_id"] == h.agent.session.id and data["transcript_path"] == str(h.agent.session.transcript_path)


async def test_a_precompact_hook_matching_auto_does_not_run_for_manual_and_a_failing_one_does_not_block(make_harness, tmp_path: Path) -> None:
    ran = tmp_path / "ran"
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"hooks": {"PreCompact": [
        {"matcher": "auto", "hooks": [{"type": "command", "command": f"touch {ran}; exit 2"}]},
        {"matcher": "", "hooks": [{"type": "command", "command": "exit 1"}]},
    ]}}))
    handler, seen = conversation([read_turn(OLD, 30_000), Reply([Text("answer")])])
    h = make_harness(handler, tools=sample_tools(), settings_file=settings)
    await h.agent.run("first")
    finished = await h.agent.compact()
    assert finished.outcome == "compacted" and not ran.exists()


async def test_an_auto_matcher_blocks_automatic_compaction(make_harness, tmp_path: Path) -> None:
    settings = _settings(tmp_path, "auto", "echo 'keep it all' >&2; exit 2")
    handler, seen = conversation([read_turn(OLD, 166_000), Reply([Text("went on uncompacted")])])
    h = make_harness(handler, tools=sample_tools(), settings_file=settings)
    ended = await h.agent.run("go")
    assert ended.result == "went on uncompacted" and not seen["summaries"]
    assert [f.outcome for f in h.of(CompactionFinished)] == ["blocked"]


async def test_compact_while_a_run_is_going_is_refused_and_esc_still_stops_the_run(make_harness) -> None:
    handler, seen = conversation([Reply([ToolUse("SleepRead", {"seconds": 60, "text": "late"})], input_tokens=30_000)])
    h = make_harness(handler, tools=sample_tools())
    run = asyncio.ensure_future(h.agent.run("first"))
    while not h.of(ToolStarted):
        await asyncio.sleep(0)
    history = list(h.agent.history)
    finished = await h.agent.compact()
    assert finished.outcome == "failed" and finished.detail == BUSY
    assert h.agent.history == history and not seen["summaries"]
    h.agent.abort()  # the run's own signal is still in place: ESC stops it
    assert (await asyncio.wait_for(run, 60)).reason == "aborted"
    assert_history_valid(h.agent.history)


async def test_the_summary_is_paid_for_like_any_response_its_tokens_join_the_sessions(make_harness) -> None:
    from tui_agent.core.events import CompactionStarted, UsageUpdated

    handler, _ = conversation([read_turn(OLD, 30_000), Reply([Text("first answer")])])
    h = make_harness(handler, tools=sample_tools())
    await h.agent.run("first prompt")
    before = (h.agent.totals.input_tokens, h.agent.totals.output_tokens)
    started = len(h.events)
    await h.agent.compact()
    after = (h.agent.totals.input_tokens, h.agent.totals.output_tokens)
    assert after[0] > before[0] and after[1] > before[1], "the status line's ↑↓ and /cost count the summary request"
    assert any(isinstance(e, UsageUpdated) for e in h.events[started:])
    assert any(isinstance(e, CompactionStarted) for e in h.events[started:])
