"""A day-long session, scripted: 500 turns that fill the context again and again (prints figures; asserts nothing).

Each turn the model writes a long answer (~55k characters: not prunable) and calls a tool whose result
is ~20k characters (prunable once old). The scripted model reports `usage` as the size of what it was
sent (characters / 4), like the API would. Automatic compaction (and pruning before it) keeps the
session going; we print:
- the resident memory (RSS) of the process every 50 turns, and its peak: it should stay flat;
- the largest request sent (tokens, as the model counted them) against the window: never above it;
- how many compactions and prunings ran, and the wall time.
Run: python bench/bench_context.py [turns]
"""

from __future__ import annotations

import asyncio
import gc
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pydantic import Field  # noqa: E402

from tui_agent.config import AgentSettings  # noqa: E402
from tui_agent.core.context.window import limits_for  # noqa: E402
from tui_agent.core.events import CompactionFinished, ContextUpdated, Notice  # noqa: E402
from tui_agent.factory import build_agent  # noqa: E402
from tui_agent.providers.scripted import Reply, ScriptedModel, Text, ToolUse  # noqa: E402
from tui_agent.tools.base import Tool, ToolInput, ToolOutput  # noqa: E402

ANSWER_CHARS = 64_000
RESULT_CHARS = 20_000
MODEL = "claude-sonnet-4-6"


class FetchInput(ToolInput):
    n: int = Field(description="which page")


class Fetch(Tool[FetchInput]):
    """A read-only tool with a large result (what a build log or a big file read gives)."""

    name = "Fetch"
    description = "Fetch page n."
    Input = FetchInput

    def is_read_only(self, input: FetchInput) -> bool:
        return True

    async def call(self, input: FetchInput, ctx: Any) -> ToolOutput:
        line = f"page {input.n}: " + "log line with some words in it " * 3 + "\n"
        return ToolOutput((line * (RESULT_CHARS // len(line) + 1))[:RESULT_CHARS])


class Stats:
    def __init__(self) -> None:
        self.largest = 0
        self.requests = 0
        self.summaries = 0


def handler_for(stats: Stats, turns: int):
    state = {"turn": 0}

    def handler(body: dict[str, Any], index: int) -> Reply:
        tokens = len(json.dumps(body)) // 4
        stats.largest = max(stats.largest, tokens)
        stats.requests += 1
        last = body["messages"][-1]["content"]
        if not isinstance(last, str) and last[-1].get("text", "").startswith("CRITICAL: Respond with TEXT ONLY"):
            stats.summaries += 1
            return Reply([Text(f"<summary>\n1. Primary Request and Intent: keep working through the pages (summary {stats.summaries}).\n</summary>")],
                         input_tokens=tokens, output_tokens=60, chunk=4096)
        state["turn"] += 1
        n = state["turn"]
        answer = (f"Turn {n}. " + "An answer that goes on at length about the page. " * (ANSWER_CHARS // 49))[:ANSWER_CHARS]
        blocks: list[Any] = [Text(answer)]
        if n < turns:
            blocks.append(ToolUse("Fetch", {"n": n}))
        return Reply(blocks, input_tokens=tokens, output_tokens=len(answer) // 4, chunk=8192)

    return handler


async def main(turns: int) -> None:
    stats = Stats()
    work = Path(tempfile.mkdtemp(prefix="bench-context-"))
    data = Path(tempfile.mkdtemp(prefix="bench-context-data-"))
    import os

    os.environ["XDG_DATA_HOME"] = str(data)
    model = ScriptedModel(handler_for(stats, turns), model=MODEL)
    events: list[Any] = []
    counts = {"compacted": 0, "pruned": 0, "other": 0}

    def emit(event: Any) -> None:
        if isinstance(event, CompactionFinished):
            counts["compacted" if event.outcome == "compacted" else "other"] += 1
        elif isinstance(event, ContextUpdated) and event.cause == "pruning":
            counts["pruned"] += 1
        elif isinstance(event, Notice) and event.level != "info":
            events.append(event)

    agent = build_agent(AgentSettings(cwd=work, max_turns=turns + 100, memory=False), emit=emit, scripted=model, tools=[Fetch()])
    proc = psutil.Process()
    window = limits_for(MODEL).window
    print(f"context bench: {turns} turns, answers {ANSWER_CHARS:,} chars, results {RESULT_CHARS:,} chars, window {window:,} tokens")
    print(f"{'turn':>5} {'rss MB':>8} {'history msgs':>13} {'context tok':>12} {'compactions':>12}")
    started = time.perf_counter()
    peak = 0.0
    samples: list[float] = []
    run = asyncio.ensure_future(agent.run("Work through the pages one by one."))
    last_print = 0
    while not run.done():
        await asyncio.sleep(0.05)
        model.requests.clear()  # the scripted model's own record of bodies is not ours to measure
        model.request_headers.clear()
        turn = stats.requests - stats.summaries
        if turn - last_print >= 50:
            last_print = turn - turn % 50
            gc.collect()
            rss = proc.memory_info().rss / 2**20
            samples.append(rss)
            peak = max(peak, rss)
            print(f"{last_print:>5} {rss:>8.1f} {len(agent.history):>13} {agent.context_size().used:>12,} {counts['compacted']:>12}")
    ended = run.result()
    elapsed = time.perf_counter() - started
    rss = proc.memory_info().rss / 2**20
    peak = max(peak, rss)
    await agent.close()
    print(f"ended: {ended.reason} after {ended.num_turns} requests in {elapsed:.1f}s ({elapsed / max(1, turns) * 1000:.0f} ms/turn)")
    print(f"compactions: {counts['compacted']} (other outcomes {counts['other']}), prunings: {counts['pruned']}")
    print(f"largest request: {stats.largest:,} tokens of a {window:,} window ({stats.largest / window:.0%}); {'never exceeded' if stats.largest <= window else 'EXCEEDED'}")
    if len(samples) >= 2:
        print(f"rss: first sample {samples[0]:.1f} MB, last {samples[-1]:.1f} MB, peak {peak:.1f} MB (growth {samples[-1] - samples[0]:+.1f} MB)")
    transcript = agent.session.transcript_path
    print(f"transcript on disk: {transcript.stat().st_size / 2**20:.1f} MB (the full history stays there)")
    for event in events[:5]:
        print(f"notice: [{event.level}] {event.text}")


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 500))
