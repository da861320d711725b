"""The floor under bench_tui.py's CPU figure: what receiving the same stream costs with no app at all.

The same scripted server and the same ~200 KB answer (10,000 deltas in ~11 s) as bench_tui.py; this
process only reads them, in one of three ways, and prints the CPU it used while the answer streamed:

- `http`: the response body's bytes through httpx (what the SDK reads from), nothing decoded;
- `sdk`: the `anthropic` SDK's `messages.create(stream=True)`, every event decoded and typed;
- `agent`: tui-agent's own core: `ModelClient.stream` (the SDK, the watchdog) into the
  `MessageAssembler`, each text delta made an event as the loop makes it (then not sent anywhere).

    python bench/sdk_stream_floor.py              # all three, twice each
    python bench/sdk_stream_floor.py sdk --runs 3

tui-agent's core thread does the `agent` work and its UI thread paints; the difference between the
app's figure and `agent` is what drawing the answer and echoing keys cost.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from bench_tui import BENCH_KEY, ModelProcess  # noqa: E402

REQUEST: dict[str, Any] = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 64000,
    # The scripted server answers a request without tools with a short "ok".
    "tools": [{"name": "Bash", "description": "Run a command.", "input_schema": {"type": "object", "properties": {}}}],
    "messages": [{"role": "user", "content": "stream the answer"}],
}


async def _http(client: Any) -> int:
    n = 0
    async with client.messages.with_streaming_response.create(**REQUEST, stream=True) as response:
        async for _chunk in response.http_response.aiter_bytes():
            n += 1
    return n


async def _sdk(client: Any) -> int:
    n = 0
    stream = await client.messages.create(**REQUEST, stream=True)
    async for _event in stream:
        n += 1
    return n


async def _agent(url: str) -> int:
    from tui_agent.core.events import TextDelta
    from tui_agent.core.model import MessageAssembler, ModelClient, ModelConfig

    deltas: list[TextDelta] = []
    assembler = MessageAssembler(
        on_text=lambda text, index: deltas.append(TextDelta(text, index)),
        on_thinking=lambda text, index: None,
        on_tool_use=lambda block, error: None,
    )
    model = ModelClient(ModelConfig(api_key=BENCH_KEY, base_url=url, model=REQUEST["model"]))
    try:
        await model.stream(dict(REQUEST), assembler.feed)
    finally:
        await model.close()
    return len(deltas)


async def measure(way: str, url: str) -> tuple[int, float, float]:
    import anthropic

    client = anthropic.AsyncAnthropic(base_url=url, api_key=BENCH_KEY)
    await asyncio.sleep(0)
    cpu0, t0 = time.process_time(), time.monotonic()
    if way == "http":
        n = await _http(client)
    elif way == "sdk":
        n = await _sdk(client)
    else:
        n = await _agent(url)
    wall = time.monotonic() - t0
    cpu = 100 * (time.process_time() - cpu0) / wall
    await client.close()
    return n, wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("ways", nargs="*", help="http, sdk and/or agent (default: all three)")
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    ways = args.ways or ["http", "sdk", "agent"]
    if unknown := [w for w in ways if w not in ("http", "sdk", "agent")]:
        parser.error(f"unknown way: {', '.join(unknown)} (http, sdk, agent)")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    server = ModelProcess()
    try:
        for _ in range(args.runs):
            for way in ways:
                n, wall, cpu = asyncio.run(measure(way, server.url))
                print(f"{way:6s}: {n} items in {wall:.1f} s, CPU {cpu:.1f} % of a core")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
