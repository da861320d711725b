"""`tui-agent -p` against `claude -p` on one task, whole processes, side by side and interleaved.

The task: "read a.py, b.py, c.py and d.py and answer" in a scratch working folder. Each run gets its own
scripted model on a loopback port (ANTHROPIC_BASE_URL), a fake key and a scratch HOME (bench/claude_code.py).
The model answers every request by its content, as Claude Code sends more than the conversation's requests:
the request with tools and the task's prompt and no tool_result gets four Read tool_uses at once (one
message), a request carrying tool_results gets "done", any other (a HEAD, a side call) a short text.
Every run is checked: its output is "done" and the model got the four files' contents back.

Runs go A B A B (tui-agent, then Claude Code), N pairs (BENCH_RUNS, default 7). Prints median (min–max):
- wall, CPU seconds (user+sys of the process and its children, os.wait4) and peak RSS of the whole run;
- launch → the first /v1/messages request reaching the server;
- the gap from the end of the tool_use response (message_stop sent) to the request with the results
  (the four Reads run in it);
- the last response's end → the process gone (what is left: printing, saving, shutting down);
and the median of the per-pair ratios tui-agent / Claude Code. Before them, a bare
`python -c "import anthropic"` (wall, peak RSS): the floor of a Python client on this machine.

    python bench/bench_headless.py [--verbose]     # --verbose: the requests of each program's first run
Env: BENCH_RUNS, TUI_AGENT_BIN (default .venv/bin/tui-agent), CLAUDE_BIN (default `claude` on PATH).
Goals (issue 32): each ratio ≤ 1.
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from claude_code import (
    RUNS,
    BenchServer,
    TimedModel,
    Usage,
    claude_bin,
    claude_version,
    describe,
    load,
    print_rows,
    run_child,
    scratch_env,
    tui_agent_bin,
)

from tui_agent.providers.scripted import Reply, Text, ToolUse, first_user_text

PROMPT = "Read a.py, b.py, c.py and d.py, then answer done."
FILES = {name: f"print('{name[0]}')  # file {name}\n" for name in ("a.py", "b.py", "c.py", "d.py")}
# Both accept the same flags: only Read is allowed without asking, nothing else may prompt.
FLAGS = ["--permission-mode", "default", "--allowedTools", "Read"]


def tool_results(body: dict[str, Any]) -> list[dict[str, Any]]:
    content = (body.get("messages") or [{}])[-1].get("content")
    return [b for b in content if b.get("type") == "tool_result"] if isinstance(content, list) else []


def responder(work: Path) -> Any:
    def answer(body: dict[str, Any], _index: int) -> Reply:
        if tool_results(body):
            return Reply([Text("done")])
        if body.get("tools") and PROMPT in first_user_text(body):
            return Reply([ToolUse("Read", {"file_path": str(work / name)}) for name in FILES])
        return Reply([Text("ok")])

    return answer


def result_text(block: dict[str, Any]) -> str:
    content = block.get("content")
    return content if isinstance(content, str) else "".join(p.get("text", "") for p in content or [])


def one_run(args: list[str], verbose_label: str | None) -> tuple[Usage, float, float, float]:
    """(usage, launch → first /v1/messages, response end → results request, last response end → exit)."""
    root = Path(tempfile.mkdtemp(prefix="bench-headless-"))
    work = root / "work"
    work.mkdir()
    for name, text in FILES.items():
        (work / name).write_text(text)
    model = TimedModel(responder(work))
    try:
        with BenchServer(model) as server:
            usage = run_child(args, scratch_env(root, server.url), work, root / "out.txt")
        output = (root / "out.txt").read_text(errors="replace").strip()
    finally:
        shutil.rmtree(root, ignore_errors=True)
    if verbose_label:
        print(f"{verbose_label}: {len(model.requests)} requests; output {output!r}")
        print("\n".join(describe(model, usage.start)))
    with_results = [i for i, body in enumerate(model.requests) if tool_results(body)]
    got = " ".join(result_text(b) for i in with_results for b in tool_results(model.requests[i]))
    if output != "done" or len(with_results) != 1 or not all(text.strip() in got for text in FILES.values()):
        raise SystemExit(f"{args[0]}: the task was not done (output {output!r}); its requests:\n"
                         + "\n".join(describe(model, usage.start)))
    first = next(i for i in range(len(model.requests)) if "/v1/messages" in model.line(i))
    results_at = model.request_times[with_results[0]]
    gap = results_at - max(end for _, end in model.busy if end <= results_at)
    exit_after = usage.start + usage.wall - max(end for _, end in model.busy)
    return usage, model.request_times[first] - usage.start, gap, exit_after


def main() -> None:
    verbose = "--verbose" in sys.argv[1:]
    ours_cmd = [tui_agent_bin(), "-p", PROMPT, *FLAGS]
    cc = claude_bin()
    print(f"load {load()}; {RUNS} pairs; tui-agent: {ours_cmd[0]}")
    print(f"Claude Code: {cc} ({claude_version(cc)})" if cc else "Claude Code: not found ($CLAUDE_BIN, PATH): skipped")
    programs = [("tui-agent", ours_cmd)] + ([("Claude Code", [cc, "-p", PROMPT, *FLAGS])] if cc else [])

    root = Path(tempfile.mkdtemp(prefix="bench-bare-"))
    bare_env = scratch_env(root, "http://127.0.0.1:9")
    bare = [run_child([sys.executable, "-c", "import anthropic"], bare_env, root, root / "out") for _ in range(RUNS)]
    shutil.rmtree(root, ignore_errors=True)

    figures: dict[str, dict[str, list[float]]] = {name: defaultdict(list) for name, _ in programs}
    for n in range(RUNS):
        for name, args in programs:  # interleaved: A B A B, so a slow spell of the machine hits both
            usage, first, gap, exit_after = one_run(args, name if verbose and n == 0 else None)
            values = {"wall": usage.wall, "cpu": usage.cpu, "rss": usage.rss_mb}
            for key, value in {**values, "first": first, "gap": gap, "exit": exit_after}.items():
                figures[name][key].append(value)

    ours, theirs = figures["tui-agent"], figures.get("Claude Code", {})
    print(f"bare `import anthropic`: {statistics.median(u.wall for u in bare) * 1000:.0f} ms wall, "
          f"{statistics.median(u.rss_mb for u in bare):.0f} MB peak; tui-agent's first request "
          f"{(statistics.median(ours['first']) - statistics.median(u.wall for u in bare)) * 1000:+.0f} ms from it")
    print_rows([
        ("wall, ms", ours["wall"], theirs.get("wall"), 1000, 0),
        ("CPU user+sys, ms", ours["cpu"], theirs.get("cpu"), 1000, 0),
        ("peak RSS, MB", ours["rss"], theirs.get("rss"), 1, 0),
        ("launch -> first request, ms", ours["first"], theirs.get("first"), 1000, 0),
        ("response end -> next request, ms", ours["gap"], theirs.get("gap"), 1000, 1),
        ("last response end -> exit, ms", ours["exit"], theirs.get("exit"), 1000, 1),
    ], bool(theirs))


if __name__ == "__main__":
    main()
