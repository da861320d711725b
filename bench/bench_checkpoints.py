"""What file checkpointing costs a Write (prints figures; asserts nothing). Goal: under 2 ms for 100 KB.

1. The real Write tool replacing a 100 KB file, each time in a new prompt with new content (the worst
   case: the earlier content is read, hashed and stored as a new blob), against the same Write in a
   session without a store; interleaved, median and p90 of each.
2. A second Write of the same file in the same prompt (its "before" is already kept: a hash only).
3. The same 100 KB content checkpointed by 200 prompts: the store's size on disk does not grow.
"""

from __future__ import annotations

import asyncio
import os
import random
import statistics
import string
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tui_agent.core.checkpoints import SERVICE_KEY, CheckpointStore  # noqa: E402
from tui_agent.tools.base import FileReadState, ToolContext, Workspace  # noqa: E402
from tui_agent.tools.write import WriteInput, WriteTool  # noqa: E402

SIZE = 100 * 1024
RUNS = int(os.environ.get("BENCH_RUNS", "200"))


def text(seed: int) -> str:
    rng = random.Random(seed)
    line = lambda: "".join(rng.choices(string.ascii_letters + " ", k=rng.randint(20, 90))) + "\n"  # noqa: E731
    out = []
    while sum(map(len, out)) < SIZE:
        out.append(line())
    return "".join(out)[:SIZE]


def context(work: Path, session_dir: Path, store: CheckpointStore | None) -> ToolContext:
    ctx = ToolContext(Workspace.at(work), session_dir, FileReadState())
    if store is not None:
        ctx.services[SERVICE_KEY] = store
    return ctx


async def timed_write(tool: WriteTool, ctx: ToolContext, path: Path, content: str) -> float:
    started = time.perf_counter()
    await tool.call(WriteInput(file_path=str(path), content=content), ctx)
    return (time.perf_counter() - started) * 1000


def figures(label: str, ms: list[float]) -> None:
    ms = sorted(ms)
    print(f"  {label:<44} median {statistics.median(ms):6.3f} ms   p90 {ms[int(len(ms) * 0.9)]:6.3f} ms")


async def main() -> None:
    root = Path(tempfile.mkdtemp(prefix="bench-checkpoints-"))
    work = root / "work"
    work.mkdir()
    store = CheckpointStore(root / "session" / "checkpoints")
    tool = WriteTool()
    plain_ctx = context(work, root / "plain", None)
    kept_ctx = context(work, root / "session", store)
    plain, kept = work / "plain.txt", work / "kept.txt"
    contents = [text(i) for i in range(RUNS + 1)]
    await timed_write(tool, plain_ctx, plain, contents[0])  # both files exist and were written (read) by the session
    await timed_write(tool, kept_ctx, kept, contents[0])

    without, with_new, with_again = [], [], []
    for i in range(1, RUNS + 1):
        store.begin_prompt(f"prompt-{i}")
        if i % 2:  # interleaved, alternating which goes first, so drift in the machine's load hits both
            without.append(await timed_write(tool, plain_ctx, plain, contents[i]))
            with_new.append(await timed_write(tool, kept_ctx, kept, contents[i]))
        else:
            with_new.append(await timed_write(tool, kept_ctx, kept, contents[i]))
            without.append(await timed_write(tool, plain_ctx, plain, contents[i]))
        with_again.append(await timed_write(tool, kept_ctx, kept, contents[i - 1]))
        await timed_write(tool, kept_ctx, kept, contents[i])  # what the next prompt's first write replaces

    print(f"Write of a {SIZE // 1024} KB file, {RUNS} runs each (load average {os.getloadavg()[0]:.2f})")
    figures("without checkpoints", without)
    figures("with checkpoints, first write in a prompt", with_new)
    figures("with checkpoints, again in the same prompt", with_again)
    added = [w - o for w, o in zip(with_new, without)]
    print(f"  added by checkpointing (paired): median {statistics.median(added):.3f} ms (goal < 2 ms)")

    # 3. The same content over and over: one blob, whatever the number of prompts.
    same = CheckpointStore(root / "same" / "checkpoints")
    same_ctx = context(work, root / "same", same)
    target = work / "same.txt"
    await timed_write(tool, same_ctx, target, contents[0])
    sizes = []
    for i in range(200):
        same.begin_prompt(f"same-{i}")
        await timed_write(tool, same_ctx, target, contents[0])
        sizes.append(same.blobs.size())
    blobs = len(list(same.blobs.root.iterdir()))
    print(f"Unchanged {SIZE // 1024} KB content checkpointed by 200 prompts: blobs {sizes[0]} bytes after the first, "
          f"{sizes[-1]} after the last ({blobs} blob{'s' if blobs != 1 else ''}); index {same._index.stat().st_size} bytes")


if __name__ == "__main__":
    asyncio.run(main())
