"""tui-agent against Claude Code behind the real `claude-agent-sdk` (`ClaudeSDKClient`), interleaved.

Each client is pointed at its program by `cli_path` (as tests/e2e/sdk_support.py does), with a scratch
HOME and working folder and its own scripted model on a loopback port (bench/claude_code.py); every
request gets a short text answer at once (no delay), so what is measured is the program and the SDK.
Per client:
- first turn: `connect()` (the process starts) + `query("hi")` until the ResultMessage, wall;
- second turn: another `query()` on the same connected client until its ResultMessage, wall minus the
  scripted model's own time (its responses' start to end: ~0 with no delay).
Pairs go A B A B (tui-agent, then Claude Code), N pairs (BENCH_RUNS, default 7); prints median (min–max)
and the median of the per-pair ratios tui-agent / Claude Code.

    python bench/bench_sdk.py [--verbose]     # --verbose: the requests of each program's first client
Env: BENCH_RUNS, TUI_AGENT_BIN (default .venv/bin/tui-agent), CLAUDE_BIN (default `claude` on PATH).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from claude_agent_sdk import ClaudeAgentOptions, ClaudeSDKClient, ResultMessage
from claude_code import (
    RUNS,
    BenchServer,
    TimedModel,
    claude_bin,
    claude_version,
    describe,
    load,
    print_rows,
    scratch_env,
    tui_agent_bin,
)

from tui_agent.providers.scripted import Reply, Text


async def until_result(client: ClaudeSDKClient) -> ResultMessage:
    async for message in client.receive_response():
        if isinstance(message, ResultMessage):
            if message.is_error:
                raise SystemExit(f"the turn ended in an error: {message.result!r}")
            return message
    raise SystemExit("the response ended without a ResultMessage")


async def one_client(cli: str, label: str | None) -> tuple[float, float]:
    """(first turn wall, second turn wall minus the model's time) of one connected client."""
    root = Path(tempfile.mkdtemp(prefix="bench-sdk-"))
    work = root / "work"
    work.mkdir()
    model = TimedModel(lambda body, index: Reply([Text("hello")]))
    stderr: list[str] = []
    try:
        with BenchServer(model) as server:
            env = scratch_env(root, server.url)
            client = ClaudeSDKClient(ClaudeAgentOptions(cli_path=cli, cwd=str(work), env=env, stderr=stderr.append))
            start = time.monotonic()
            try:
                await client.connect()
                await client.query("hi")
                first = await until_result(client)
                first_wall = time.monotonic() - start
                second_start = time.monotonic()
                await client.query("hi again")
                second = await until_result(client)
                second_wall = time.monotonic() - second_start
            finally:
                await client.disconnect()
    except BaseException:
        print("\n".join(stderr[-20:]), file=sys.stderr)
        raise
    finally:
        shutil.rmtree(root, ignore_errors=True)
    if first.result != "hello" or second.result != "hello":
        raise SystemExit(f"{cli}: unexpected answers {first.result!r}, {second.result!r}")
    model_time = sum(end - begin for begin, end in model.busy if begin >= second_start)
    if label:
        print(f"{label}: {len(model.requests)} requests (second turn from +{second_start - start:.3f}s)")
        print("\n".join(describe(model, start)))
    return first_wall, second_wall - model_time


async def main() -> None:
    verbose = "--verbose" in sys.argv[1:]
    # The SDK starts the program with our environment under options.env: keep ours out of it.
    for key in [k for k in os.environ if k.startswith(("ANTHROPIC_", "CLAUDECODE"))]:
        del os.environ[key]
    cc = claude_bin()
    print(f"load {load()}; {RUNS} pairs; tui-agent: {tui_agent_bin()}")
    print(f"Claude Code: {cc} ({claude_version(cc)})" if cc else "Claude Code: not found ($CLAUDE_BIN, PATH): skipped")
    programs = [("tui-agent", tui_agent_bin())] + ([("Claude Code", cc)] if cc else [])
    firsts: dict[str, list[float]] = {name: [] for name, _ in programs}
    seconds: dict[str, list[float]] = {name: [] for name, _ in programs}
    for n in range(RUNS):
        for name, cli in programs:  # interleaved: A B A B
            first, second = await one_client(cli, name if verbose and n == 0 else None)
            firsts[name].append(first)
            seconds[name].append(second)
    print_rows([
        ("connect + first query, ms", firsts["tui-agent"], firsts.get("Claude Code"), 1000, 0),
        ("second query (minus model), ms", seconds["tui-agent"], seconds.get("Claude Code"), 1000, 1),
    ], bool(cc))


if __name__ == "__main__":
    asyncio.run(main())
