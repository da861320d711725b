"""Subagents' figures: 10 subagents x 10 tools each. Prints figures; asserts nothing.

    python bench/bench_subagents.py          # both parts
    python bench/bench_subagents.py core     # one part: core | ui

- core: the overhead a tool call pays for running inside a subagent. The same 100 no-op tool calls run
  (a) in the main agent, 10 turns of 10, and (b) in 10 subagents started by one response, one turn of
  10 each; printed: per call, the executor's queued → finished time (p50/p95) and the process CPU
  per call (whole run: stream parsing, events, the children's loops), and the wall time.
- ui: the real app while 10 subagents each run 10 tools (5 Grep, 5 shell commands of 0.3 s, so 10 shells
  at once): keystroke → prompt redrawn latency (p50/p95), CPU (process time / wall), and how many
  lane rows the panel drew.
Everything runs on the real SDK fed by the scripted model in-process (Conversations routes each
subagent's requests by its prompt).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tui_agent.config import AgentSettings  # noqa: E402
from tui_agent.core.events import Event, SubagentEvent, ToolFinished, ToolQueued, ToolStarted  # noqa: E402
from tui_agent.factory import build_agent  # noqa: E402
from tui_agent.providers.scripted import Conversations, Reply, ScriptedModel, Text, ToolUse  # noqa: E402
from tui_agent.tools.agent import AgentTool  # noqa: E402
from bench.bench_executor import NoOp  # noqa: E402  (the same no-op tool as the executor's figures)

AGENTS = 10
TOOLS = 10


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def noops(n: int) -> list[ToolUse]:
    return [ToolUse("NoOp", {}) for _ in range(n)]


def call_times(events: list[Event]) -> tuple[list[float], list[float]]:
    """(queued → started, queued → finished) in ms of every no-op call, the subagents' own included (unwrapped)."""
    queued: dict[str, float] = {}
    to_start: list[float] = []
    to_end: list[float] = []
    for event in events:
        inner = event.innermost[1] if isinstance(event, SubagentEvent) else event
        if isinstance(inner, ToolQueued) and inner.name == "NoOp":
            queued[inner.id] = inner.t
        elif isinstance(inner, ToolStarted) and inner.id in queued:
            to_start.append((inner.t - queued[inner.id]) * 1000)
        elif isinstance(inner, ToolFinished) and inner.id in queued:
            to_end.append((inner.t_end - queued.pop(inner.id)) * 1000)
    return to_start, to_end


async def run_core(root: Path, script: Any, prompt: str) -> tuple[tuple[list[float], list[float]], float, float]:
    settings = AgentSettings(cwd=root, permission_mode="bypassPermissions")
    warm = build_agent(settings, scripted=ScriptedModel([Reply([Text("warm")])]), tools=[NoOp()])
    await warm.run("warm up: import the SDK, open a client")  # not measured
    await warm.close()
    events: list[Event] = []
    agent = build_agent(settings, emit=events.append, scripted=ScriptedModel(script), tools=[AgentTool(), NoOp()])
    wall0, cpu0 = time.perf_counter(), time.process_time()
    ended = await agent.run(prompt)
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    assert ended.reason == "completed", ended
    await agent.close()
    return call_times(events), wall, cpu


async def bench_core() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        os.environ.update({"HOME": str(root / "home"), "XDG_DATA_HOME": str(root / "data")})
        main_script = Conversations({"MAIN": [Reply(noops(TOOLS)) for _ in range(AGENTS)] + [Reply([Text("done")])]},
                                    default=[Reply([Text("warm")])])
        flat, flat_wall, flat_cpu = await run_core(root, main_script, "MAIN: 100 calls here")
        routes: dict[str, Any] = {
            "MAIN": [Reply([ToolUse("Agent", {"description": f"part {k}", "prompt": f"TASK{k:02d}: ten calls"}) for k in range(AGENTS)]),
                     Reply([Text("done")])],
        }
        for k in range(AGENTS):
            routes[f"TASK{k:02d}"] = [Reply(noops(TOOLS)), Reply([Text(f"part {k} done")])]
        nested, sub_wall, sub_cpu = await run_core(root, Conversations(routes, default=[Reply([Text("warm")])]), "MAIN: delegate")
        n = AGENTS * TOOLS
        print(f"core: {n} no-op tool calls, in the main agent (10 turns of 10) vs in {AGENTS} subagents (10 each, one response)")
        for label, (starts, ends), wall, cpu in (("main agent", flat, flat_wall, flat_cpu), ("subagents ", nested, sub_wall, sub_cpu)):
            print(f"  {label}: queued → started p50 {pct(starts, .5):.2f} ms p95 {pct(starts, .95):.2f} ms; "
                  f"queued → finished p50 {pct(ends, .5):.2f} ms p95 {pct(ends, .95):.2f} ms; "
                  f"CPU {cpu / n * 1000:.2f} ms per call; wall {wall * 1000:.0f} ms ({len(ends)} calls)")
        print(f"  subagents cost {(sub_cpu - flat_cpu) / n * 1000:+.2f} ms CPU per tool call = "
              f"{(sub_cpu - flat_cpu) / AGENTS * 1000:.1f} ms per subagent (its own requests and loop, the wrapped events); "
              f"the 10 run concurrently, so their streams share one event loop")


# ----- ui ----------------------------------------------------------------------------------------


async def wait_for(predicate: Callable[[], bool], timeout: float, step: float = 0.001) -> float | None:
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        if predicate():
            return time.perf_counter()
        await asyncio.sleep(step)
    return None


async def bench_ui() -> None:
    from textual import events

    from tui_agent.ui.app import make_app

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        os.environ.update({"HOME": str(root / "home"), "XDG_DATA_HOME": str(root / "data")})
        (root / "src").mkdir()
        for i in range(20):
            (root / "src" / f"m{i}.py").write_text(f"def f{i}():\n    return {i}  # TODO\n")
        routes: dict[str, Any] = {
            "MAIN": [Reply([ToolUse("Agent", {"description": f"part {k}", "prompt": f"TASK{k:02d}: look"}) for k in range(AGENTS)]),
                     Reply([Text("done")])],
            "warm up": [Reply([Text("warm")])],
        }
        for k in range(AGENTS):
            calls = [ToolUse("Grep", {"pattern": f"f{j}"}) for j in range(TOOLS // 2)]
            calls += [ToolUse("Bash", {"command": f"sleep 0.3; echo {k}-{j}"}) for j in range(TOOLS - TOOLS // 2)]
            routes[f"TASK{k:02d}"] = [Reply(calls, delay=0.002), Reply([Text(f"part {k}: fine")], delay=0.002)]
        app = make_app(AgentSettings(cwd=root, permission_mode="bypassPermissions"), scripted=ScriptedModel(Conversations(routes)))
        async with app.run_test(size=(120, 40)):
            await wait_for(lambda: app.ready, 10)
            drawn_rows: list[int] = []
            original = app.lanes.render

            def render() -> Any:
                text = original()
                drawn_rows.append(len(str(text).splitlines()))
                return text

            app.lanes.render = render  # type: ignore[method-assign]
            prompt_drawn = [0.0]
            original_line = app.prompt.render_line

            def render_line(y: int) -> Any:
                prompt_drawn[0] = time.perf_counter()
                return original_line(y)

            app.prompt.render_line = render_line  # type: ignore[method-assign]

            async def echo_until(stop: Callable[[], bool]) -> list[float]:
                latencies: list[float] = []
                keys = "abcdefghijklmnopqrstuvwxyz"
                n = 0
                while not stop():
                    char = keys[n % len(keys)]
                    n += 1
                    before = app.prompt.text
                    t0 = time.perf_counter()
                    app.prompt.post_message(events.Key(char, char))
                    done = await wait_for(lambda: app.prompt.text != before and prompt_drawn[0] > t0, 5)
                    if done is not None:
                        latencies.append((done - t0) * 1000)
                    await asyncio.sleep(0.05)
                    if len(app.prompt.text) > 50:
                        app.prompt.clear()
                return latencies

            app.submit("warm up")  # the SDK import and the first connection are not measured
            await wait_for(lambda: not app.running, 120)
            idle_until = time.perf_counter() + 3
            idle = await echo_until(lambda: time.perf_counter() > idle_until)
            app.prompt.clear()
            app.agent.history.clear()  # a new conversation (what /clear does): routed by its first prompt
            app.submit("MAIN: split it ten ways")
            await wait_for(lambda: len(app.calls.agents) == AGENTS, 60)
            wall0, cpu0 = time.perf_counter(), time.process_time()
            latencies = await echo_until(lambda: not app.running)
            wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
            calls = list(app.calls.calls.values())
            child_calls = [c for c in calls if c.parent is not None]
            print(f"ui: {AGENTS} subagents x {TOOLS} tools ({len(child_calls)} child calls, "
                  f"{sum(c.phase == 'ok' for c in child_calls)} ok) over {wall:.1f} s: the app used {cpu:.1f} s of CPU "
                  f"({cpu / wall * 100:.0f}% of one core); machine load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
            print(f"  keystroke → prompt redrawn while they run: p50 {pct(latencies, .5):.1f} ms p95 {pct(latencies, .95):.1f} ms "
                  f"max {max(latencies, default=float('nan')):.1f} ms (n={len(latencies)}); "
                  f"idle app, same machine, just before: p50 {pct(idle, .5):.1f} ms p95 {pct(idle, .95):.1f} ms (n={len(idle)})")
            print(f"  lane panel: {len(drawn_rows)} redraws, up to {max(drawn_rows, default=0)} lines")
            app.exit()


def main() -> None:
    parts = sys.argv[1:] or ["core", "ui"]
    for part in parts:
        if len(parts) > 1:
            subprocess.run([sys.executable, __file__, part], check=False)
        else:
            asyncio.run({"core": bench_core, "ui": bench_ui}[part]())


if __name__ == "__main__":
    main()
