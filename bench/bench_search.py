"""Grep and Glob against plain ripgrep on a 50,000-file tree.

Each case runs the tool's `call` (parsing, rg, result building, mtime sorting) and `rg` itself with the
equivalent arguments, prints the median of several warm runs and the ratio tool / rg (goal: <= 1.2).
Where the tool sorts by modification time, rg is also timed with `--sortr modified`, its own way of
giving the same order.

    python bench/bench_search.py [--runs 9] [--dir /path/to/existing/tree]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Awaitable, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tui_agent.tools.base import FileReadState, Tool, ToolContext, Workspace  # noqa: E402
from tui_agent.tools.glob import GlobTool  # noqa: E402
from tui_agent.tools.grep import GrepTool  # noqa: E402
from tui_agent.tools.ripgrep import rg_binary  # noqa: E402

NEEDLE = "needle_7c1f"
GREP_BASE = ["--hidden", "--max-columns", "500", "--max-columns-preview",
             *[a for d in (".git", ".svn", ".hg", ".bzr", ".jj") for a in ("--glob", f"!{d}")]]


def generate_tree(root: Path, dirs: int = 500, files_per_dir: int = 100) -> None:
    filler = "def f(x):\n    return x + 1\n" * 5
    n = 0
    for d in range(dirs):
        folder = root / f"pkg{d:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        for i in range(files_per_dir):
            body = filler + (f"{NEEDLE} = {n}\n" if n % 1000 == 0 else "")
            (folder / f"mod{i:03d}{'.py' if i % 2 == 0 else '.txt'}").write_text(body)
            n += 1


async def interleaved_medians(
    tool: Callable[[], Awaitable[Any]], baselines: list[Callable[[], Any]], runs: int
) -> tuple[float, list[float]]:
    """Median seconds of the tool and of each baseline, run in turn so that noise from other work on
    the machine hits all of them alike. One warm-up round first (page cache, code paths)."""
    tool_times: list[float] = []
    base_times: list[list[float]] = [[] for _ in baselines]
    for round_ in range(runs + 1):
        started = time.perf_counter()
        await tool()
        elapsed = time.perf_counter() - started
        if round_:
            tool_times.append(elapsed)
        for times, baseline in zip(base_times, baselines):
            started = time.perf_counter()
            baseline()
            if round_:
                times.append(time.perf_counter() - started)
    return statistics.median(tool_times), [statistics.median(t) for t in base_times]


def rg(args: list[str], cwd: Path) -> Callable[[], Any]:
    cmd = [rg_binary(), "--no-config", *args]
    return lambda: subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--dir", type=Path, help="use this tree instead of generating one")
    opts = parser.parse_args()

    made = None
    if opts.dir:
        root = opts.dir.resolve()
    else:
        # In RAM when possible: creating 50,000 files on a busy disk can take half a minute.
        shm = Path("/dev/shm")
        where = shm if shm.is_dir() and os.access(shm, os.W_OK) else None
        made = Path(tempfile.mkdtemp(prefix="bench-search-", dir=where)).resolve()
        root = made
        started = time.perf_counter()
        generate_tree(root)
        print(f"generated 50,000 files in {root} ({time.perf_counter() - started:.1f} s)")
    ctx = ToolContext(Workspace.at(root), root.parent / "bench-session", FileReadState())
    grep, glob = GrepTool(), GlobTool()
    r = str(root)

    def tool_call(tool: Tool[Any], **raw: Any) -> Callable[[], Awaitable[Any]]:
        parsed = tool.Input.model_validate(raw)
        return lambda: tool.call(parsed, ctx)

    cases: list[tuple[str, Callable[[], Awaitable[Any]], list[tuple[str, list[str], Path]]]] = [
        ("Grep files_with_matches, 50 hits", tool_call(grep, pattern=NEEDLE),
         [("rg -l", [*GREP_BASE, "--files-with-matches", "-e", NEEDLE, "--", r], root),
          ("rg -l --sortr modified", [*GREP_BASE, "--files-with-matches", "--sortr", "modified", "-e", NEEDLE, "--", r], root)]),
        ("Grep files_with_matches, 50,000 hits", tool_call(grep, pattern="return"),
         [("rg -l", [*GREP_BASE, "--files-with-matches", "-e", "return", "--", r], root),
          ("rg -l --sortr modified", [*GREP_BASE, "--files-with-matches", "--sortr", "modified", "-e", "return", "--", r], root)]),
        ("Grep content, 50 hits", tool_call(grep, pattern=NEEDLE, output_mode="content"),
         [("rg -n", [*GREP_BASE, "--line-number", "-e", NEEDLE, "--", r], root)]),
        ("Grep content head_limit=100, 250,000 hits", tool_call(grep, pattern="return", output_mode="content", head_limit=100),
         [("rg -n (all output)", [*GREP_BASE, "--line-number", "-e", "return", "--", r], root)]),
        ("Grep count, 50,000 files", tool_call(grep, pattern="return", output_mode="count"),
         [("rg --count-matches", [*GREP_BASE, "--count-matches", "--with-filename", "-e", "return", "--", r], root)]),
        ("Glob **/*.py, 25,000 hits", tool_call(glob, pattern="**/*.py"),
         [("rg --files --glob", ["--files", "--glob", "**/*.py", "--glob", "!.*"], root),
          ("rg --files --glob --sortr modified", ["--files", "--glob", "**/*.py", "--glob", "!.*", "--sortr", "modified"], root)]),
        ("Glob pkg123/*.txt, 50 hits", tool_call(glob, pattern="pkg123/*.txt"),
         [("rg --files --glob", ["--files", "--glob", "pkg123/*.txt", "--glob", "!.*"], root),
          ("rg --files --glob --sortr modified", ["--files", "--glob", "pkg123/*.txt", "--glob", "!.*", "--sortr", "modified"], root)]),
    ]

    print(f"rg: {rg_binary()}   runs: {opts.runs} (median, interleaved, warm cache)\n")
    print(f"{'case':44} {'tool':>9}  {'rg equivalent':36} {'rg':>9} {'tool/rg':>8}")
    try:
        for name, call, baselines in cases:
            tool_s, rg_times = await interleaved_medians(call, [rg(args, cwd) for _, args, cwd in baselines], opts.runs)
            for i, ((label, _, _), rg_s) in enumerate(zip(baselines, rg_times)):
                head = f"{name:44} {tool_s * 1000:7.1f}ms" if i == 0 else " " * 54
                print(f"{head}  {label:36} {rg_s * 1000:7.1f}ms {tool_s / rg_s:7.2f}x")
    finally:
        if made is not None:
            shutil.rmtree(made, ignore_errors=True)


if __name__ == "__main__":
    asyncio.run(main())
