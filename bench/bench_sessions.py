"""Session figures (prints them; asserts nothing).

1. writing: the cost per message of the transcript writer (lines built, written and flushed), for a
   turn of one assistant message with 3 tool_use blocks and its 3 results;
2. reading back: a session of N turns (each: prompt, text + 3 tool_uses, 3 results of ~2 KB, answer)
   rebuilt into a valid history (what --continue and the picker's preview do), for N = 100 and 1,000;
3. the picker's listing: 50 sessions of 20 turns each described (first prompt, count, branch, size);
4. write-ahead: how long a tool_use block takes to be on the disk (written and fdatasync'd) before its
   tool may start, and a result the moment its tool ends — what streaming adds to each tool call.
Real files in a temporary folder; no model involved.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tui_agent.core.session import Session, load  # noqa: E402
from tui_agent.core.session.index import list_sessions  # noqa: E402


def write_turns(session: Session, turns: int) -> None:
    meta = {"id": "", "model": "claude-sonnet-4-6", "stop_reason": "tool_use", "usage": {"input_tokens": 1000, "output_tokens": 100}}
    for t in range(turns):
        session.append("user", message={"role": "user", "content": f"prompt {t}: look at the files"})
        ids = [f"toolu_{t}_{i}" for i in range(3)]
        session.append("assistant", message={"role": "assistant", "content": [{"type": "text", "text": "Reading."}] + [
            {"type": "tool_use", "id": i, "name": "Read", "input": {"file_path": f"/src/{i}.py"}} for i in ids]}, meta={**meta, "id": f"msg_{t}a"})
        session.append("user", message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": i, "content": "x = 1\n" * 350} for i in ids]})
        session.append("assistant", message={"role": "assistant", "content": [{"type": "text", "text": "Done: " + "words " * 40}]}, meta={**meta, "id": f"msg_{t}b", "stop_reason": "end_turn"})


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_DATA_HOME"] = str(Path(tmp) / "data")
        os.environ["HOME"] = str(Path(tmp) / "home")
        cwd = Path(tmp) / "work"
        cwd.mkdir()

        session = Session(cwd, branch="main")
        samples = []
        for _ in range(200):
            t0 = time.perf_counter()
            write_turns(session, 1)
            samples.append((time.perf_counter() - t0) / 4)
        session.close()
        print(f"write: {statistics.median(samples) * 1e6:.0f} µs per message (median of 200 turns, 4 messages each, flushed)")

        for turns in (100, 1000):
            s = Session(cwd, branch="main")
            write_turns(s, turns)
            s.close()
            size = s.transcript_path.stat().st_size
            t0 = time.perf_counter()
            conv = load(s.transcript_path)
            took = time.perf_counter() - t0
            print(f"read back: {turns} turns ({len(conv.history)} messages, {size / 1e6:.1f} MB) in {took * 1000:.0f} ms")

        for _ in range(50):
            s = Session(cwd, branch="main")
            write_turns(s, 20)
            s.close()
        t0 = time.perf_counter()
        found = list_sessions(cwd, include_claude=False)
        print(f"picker listing: {len(found)} sessions in {(time.perf_counter() - t0) * 1000:.0f} ms")

        s = Session(cwd, branch="main")
        s.append("user", message={"role": "user", "content": "go"})
        blocks, results = [], []
        for i in range(200):
            meta = {"id": f"msg_wa{i}", "model": "claude-sonnet-4-6", "usage": {"input_tokens": 1000, "output_tokens": 1}}
            t0 = time.perf_counter()
            s.assistant_block({"type": "tool_use", "id": f"toolu_wa{i}", "name": "Bash", "input": {"command": "ls -la"}}, meta)
            blocks.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            s.tool_result({"type": "tool_result", "tool_use_id": f"toolu_wa{i}", "content": "x = 1\n" * 350}, {"status": "ok", "durationMs": 5})
            results.append(time.perf_counter() - t0)
            s.append("assistant", message={"role": "assistant", "content": [{"type": "tool_use", "id": f"toolu_wa{i}", "name": "Bash", "input": {"command": "ls -la"}}]}, meta=meta)
            s.append("user", message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_wa{i}", "content": "x = 1\n" * 350}]})
        s.close()
        for name, xs in (("tool_use block", blocks), ("tool result", results)):
            xs.sort()
            print(f"write-ahead {name}: median {statistics.median(xs) * 1000:.2f} ms, p95 {xs[int(len(xs) * 0.95)] * 1000:.2f} ms (written and fdatasync'd, 200 calls)")


if __name__ == "__main__":
    main()
