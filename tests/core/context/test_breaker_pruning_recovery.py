"""The circuit breaker, pruning of old tool results, and recovery from `prompt is too long`."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from pydantic import Field

from tests.core.context.scripts import conversation, read_turn, request_texts, summary_reply
from tests.core.support import assert_history_valid, sample_tools
from tui_agent.core.context.pruning import PRUNED_PREFIX
from tui_agent.core.context.tokens import block_tokens
from tui_agent.core.context.summary import CONTINUED
from tui_agent.core.events import CompactionFinished, ContextUpdated, Notice
from tui_agent.core.session import load
from tui_agent.providers.scripted import Reply, Text, ToolUse, fault
from tui_agent.tools.base import Tool, ToolInput, ToolOutput


async def test_three_compactions_that_do_not_get_under_the_threshold_stop_automatic_compaction(make_harness, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "10")  # 18k for a 200k window
    huge = "s" * 80_000  # a summary of ~20k tokens: never under 18k
    turns = [read_turn(f"r{i}", 30_000) for i in range(6)] + [Reply([Text("finished")])]
    handler, seen = conversation(turns, summary=lambda body, n: summary_reply(huge))
    h = make_harness(handler, tools=sample_tools())
    ended = await h.agent.run("go")
    assert ended.reason == "completed" and ended.result == "finished"
    assert len(seen["summaries"]) == 3, "the breaker stops after three ineffective compactions"
    assert all(f.post_tokens > 18_000 for f in h.of(CompactionFinished))
    warnings = [n.text for n in h.of(Notice) if n.level == "warning"]
    assert any("Automatic compaction stopped: 3 compactions in a row" in w and "/compact" in w for w in warnings)
    assert h.agent.context_size().auto_compact is False


async def test_one_effective_compaction_resets_the_count(make_harness, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "10")
    summaries = ["s" * 80_000, "s" * 80_000, "short", "s" * 80_000, "s" * 80_000]
    turns = [read_turn(f"r{i}", 30_000) for i in range(5)] + [Reply([Text("finished")])]
    handler, seen = conversation(turns, summary=lambda body, n: summary_reply(summaries[min(n, 4)]))
    h = make_harness(handler, tools=sample_tools())
    await h.agent.run("go")
    assert len(seen["summaries"]) == 5
    assert not any("Automatic compaction stopped" in n.text for n in h.of(Notice))


async def test_old_large_results_are_pruned_once_to_stubs_naming_the_file_with_the_full_output(make_harness) -> None:
    outputs = [f"output-{i}-" + chr(ord("a") + i) * 30_000 for i in range(6)]  # 7.5k tokens each: three free a tenth of 167k
    turns = [read_turn(outputs[i], 20_000, tool_id=f"toolu_{i}") for i in range(5)]
    turns += [read_turn(outputs[5], 140_000, tool_id="toolu_5"), Reply([Text("pruned?")], input_tokens=130_000), Reply([Text("again")], input_tokens=131_000)]
    handler, seen = conversation(turns)
    h = make_harness(handler, tools=sample_tools())
    await h.agent.run("go")
    await h.agent.run("and again")
    assert not seen["summaries"], "pruning kept the context under the compaction threshold"
    before, after = json.dumps(seen["turns"][5]), seen["turns"][6]
    assert all(o in before for o in outputs[:5])
    results = {b["tool_use_id"]: b["content"] for m in after["messages"] if not isinstance(m["content"], str) for b in m["content"] if b.get("type") == "tool_result"}
    for i in range(3):  # older than the last three turns: a stub naming the file that has it all
        stub = results[f"toolu_{i}"]
        assert stub.startswith(PRUNED_PREFIX) and "\n" not in stub
        path = Path(re.search(r"kept in (\S+);", stub).group(1))
        assert path.parent == h.agent.session.dir / "tool-results"
        assert path.read_text() == outputs[i]
    for i in range(3, 6):
        assert results[f"toolu_{i}"] == outputs[i]
    stubs_later = [b["content"] for m in seen["turns"][7]["messages"] if not isinstance(m["content"], str) for b in m["content"] if b.get("type") == "tool_result"]
    assert sum(s.startswith(PRUNED_PREFIX) for s in stubs_later) == 3, "pruned in one step, not again"
    records = [l for l in h.agent.session.read() if l.get("type") == "system" and (l.get("data") or {}).get("subtype") == "context_pruned"]
    assert len(records) == 1 and set(records[0]["data"]["stubs"]) == {"toolu_0", "toolu_1", "toolu_2"}
    freed = [block_tokens({"type": "tool_result", "content": outputs[i]}) - block_tokens({"type": "tool_result", "content": results[f"toolu_{i}"]}) for i in range(3)]
    assert all(f > 7_000 for f in freed) and records[0]["data"]["tokens_freed"] == sum(freed), "what all three freed, added up"
    assert any("Cleared 3 old tool result(s)" in n.text for n in h.of(Notice))
    assert any(u.cause == "pruning" for u in h.of(ContextUpdated))
    conv = load(h.agent.session.transcript_path)
    assert conv.history == h.agent.history, "a resume sees the stubs too"


async def test_prompt_too_long_compacts_the_oldest_part_and_retries_once(make_harness) -> None:
    res = {k: f"{k}-" + k * 12_000 for k in "abc"}
    turns = [read_turn(res["a"], 20_000), read_turn(res["b"], 30_000), read_turn(res["c"], 40_000),
             fault(400, "prompt is too long: 210000 tokens > 200000 maximum"), Reply([Text("recovered")])]
    handler, seen = conversation(turns)
    h = make_harness(handler, tools=sample_tools())
    ended = await h.agent.run("go")
    assert ended.reason == "completed" and ended.result == "recovered"
    rejected, ask, retry = seen["turns"][3], seen["summaries"][0], seen["turns"][4]
    assert len(json.dumps(ask)) < len(json.dumps(rejected)), "the summary request is smaller than the rejected one"
    assert res["a"] in json.dumps(ask) and res["c"] not in json.dumps(ask), "only the oldest part is summarised"
    texts = request_texts(retry)
    assert texts[0].startswith(CONTINUED) or any(t.startswith(CONTINUED) for t in texts[:2])
    body = json.dumps(retry)
    assert res["c"] in body and res["b"] in body, "the newest part (as much as fits with room to spare) is kept verbatim"
    assert res["a"] not in body, "the oldest part is summarised"
    assert rejected["messages"][-4:-1] == retry["messages"][-4:-1]
    assert [f.trigger for f in h.of(CompactionFinished)] == ["recovery"]
    assert_history_valid(h.agent.history)
    conv = load(h.agent.session.transcript_path)
    assert conv.history == h.agent.history


async def test_still_too_long_after_recovery_ends_with_prompt_too_long_naming_compact_and_clear(make_harness) -> None:
    too_long = fault(400, "prompt is too long: 210000 tokens > 200000 maximum")
    res = {k: f"{k}-" + k * 12_000 for k in "abc"}
    turns = [read_turn(res["a"], 20_000), read_turn(res["b"], 30_000), read_turn(res["c"], 40_000), too_long, too_long]
    handler, seen = conversation(turns)
    h = make_harness(handler, tools=sample_tools())
    ended = await h.agent.run("go")
    assert ended.reason == "prompt_too_long"
    assert "/compact" in ended.detail and "/clear" in ended.detail
    assert len(seen["summaries"]) == 1
    assert_history_valid(h.agent.history)


class BigInput(ToolInput):
    n: int = Field(description="how many characters")
    tag: str = Field(description="what to repeat")


class Big(Tool[BigInput]):
    """A read-only tool whose output is far over the persisting limit (a huge log)."""

    name = "Big"
    description = "Return n characters."
    Input = BigInput

    def is_read_only(self, input: BigInput) -> bool:
        return True

    async def call(self, input: BigInput, ctx: Any) -> ToolOutput:
        return ToolOutput((input.tag * input.n)[: input.n])


async def test_pruning_points_at_the_file_the_results_budget_already_wrote(make_harness, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "10")  # compaction at 18k, pruning at 14.4k
    turns = [Reply([ToolUse("Big", {"n": 120_000, "tag": f"{i}-"}, id=f"toolu_{i}")], input_tokens=1_000) for i in range(13)]
    turns += [Reply([ToolUse("Big", {"n": 120_000, "tag": "13-"}, id="toolu_13")], input_tokens=15_000), Reply([Text("done")], input_tokens=4_000)]
    handler, seen = conversation(turns)
    h = make_harness(handler, tools=[Big()])
    await h.agent.run("go")
    assert not seen["summaries"]
    last = seen["turns"][-1]
    results = {b["tool_use_id"]: b["content"] for m in last["messages"] if not isinstance(m["content"], str) for b in m["content"] if b.get("type") == "tool_result"}
    folder = h.agent.session.dir / "tool-results"
    assert sorted(p.name for p in folder.iterdir()) == sorted(f"toolu_{i}.txt" for i in range(14)), "no second copy"
    for i in range(11):
        assert results[f"toolu_{i}"].startswith(PRUNED_PREFIX) and "120,000 characters" in results[f"toolu_{i}"]
        assert str(folder / f"toolu_{i}.txt") in results[f"toolu_{i}"]
        assert (folder / f"toolu_{i}.txt").read_text() == (f"{i}-" * 120_000)[:120_000]
    assert all(results[f"toolu_{i}"].startswith("<persisted-output>") for i in range(11, 14))
