"""What the sandbox adds to a command's start (issue 25: under 10 ms): `true` through the real Bash tool
(BashTool.call: spawn, capture, exit), 100 runs each, unsandboxed and sandboxed (the session's Sandbox service,
policy merged from real settings: workspace writable, a denyRead, no network), and bare `bwrap ... true` for the
floor. Prints median and p95 in milliseconds.

    .venv/bin/python bench/sandbox_startup.py [--runs 100]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tui_agent.core.sandbox import availability  # noqa: E402
from tui_agent.core.sandbox.policy import merge_policy  # noqa: E402
from tui_agent.core.sandbox.session import Sandbox  # noqa: E402
from tui_agent.core.sandbox.settings import sandbox_layer  # noqa: E402
from tui_agent.tools.bash import BashTool  # noqa: E402
from tui_agent.tools.base import FileReadState, ToolContext, Workspace  # noqa: E402


def figures(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered) * 1000, ordered[max(0, round(0.95 * len(ordered)) - 1)] * 1000


async def tool_runs(ctx: ToolContext, runs: int) -> list[float]:
    tool = BashTool()
    inp = tool.Input(command="true")
    for _ in range(5):  # warm-up: imports, the availability probe, the mask files
        await tool.call(inp, ctx)
    samples = []
    for i in range(runs):
        t0 = time.perf_counter()
        out = await tool.call(inp, ctx.for_call(f"b{i}", lambda _t: None))
        samples.append(time.perf_counter() - t0)
        assert not out.is_error, out.content
    return samples


def bare_bwrap(runs: int) -> list[float]:
    found = availability.check()
    argv = [found.bwrap or "bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-net",
            "--unshare-pid", "--unshare-user", "--cap-drop", "ALL", "--die-with-parent", "--", "true"]
    samples = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(argv, check=True)
        samples.append(time.perf_counter() - t0)
    return samples


async def main(runs: int) -> None:
    found = availability.check()
    if not found.ok:
        sys.exit(f"the sandbox cannot start here: {found.why_not}")
    with tempfile.TemporaryDirectory() as tmp:
        work, session = Path(tmp) / "work", Path(tmp) / "session"
        work.mkdir()
        (work / "secrets").mkdir()
        session.mkdir()
        layer = sandbox_layer({"sandbox": {"enabled": True, "filesystem": {"denyRead": ["secrets"]}}}, "bench", work, work)
        policy = merge_policy([layer] if layer else [], workspace_roots=[work])
        plain = ToolContext(Workspace.at(work), session, FileReadState())
        boxed = ToolContext(Workspace.at(work), session, FileReadState())
        sandbox = Sandbox(lambda _switched: policy, work)
        boxed.services["sandbox"] = sandbox
        unsandboxed = await tool_runs(plain, runs)
        sandboxed = await tool_runs(boxed, runs)
        await sandbox.close()
    bare = bare_bwrap(runs)
    (um, up), (sm, sp), (bm, bp) = figures(unsandboxed), figures(sandboxed), figures(bare)
    print(f"`true` through the Bash tool, {runs} runs each (ms):")
    print(f"  unsandboxed   median {um:6.2f}   p95 {up:6.2f}")
    print(f"  sandboxed     median {sm:6.2f}   p95 {sp:6.2f}")
    print(f"  extra         median {sm - um:6.2f}   p95 {sp - up:6.2f}   (goal: under 10)")
    print(f"  bare `bwrap ... true` (subprocess.run)  median {bm:6.2f}   p95 {bp:6.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    asyncio.run(main(parser.parse_args().runs))
