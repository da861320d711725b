"""Start-up and turn gap of `tui-agent -p`, against a bare `import anthropic`, side by side in one run.

Prints (medians over N runs):
- launch → first request reaching the scripted server (a loopback port, real SDK, real process);
- the same process's peak RSS;
- a bare `python -c "import anthropic"`: wall time and peak RSS;
- the gap between one response's end (message_stop sent) and the next request arriving.
Goals: first request within 0.1 s of the bare import, < 120 MB, gap < 10 ms
(Claude Code measured here: 0.7-0.9 s, ~315 MB, 24-79 ms).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tui_agent.providers.scripted import Reply, ScriptedModel, ScriptedServer, Text, ToolUse  # noqa: E402

RUNS = int(os.environ.get("BENCH_RUNS", "7"))


def run_child(args: list[str], env: dict[str, str], cwd: str) -> tuple[float, float, int]:
    """(start monotonic, wall seconds, peak RSS in MB) of one child process."""
    t0 = time.monotonic()
    proc = subprocess.Popen(args, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{args} exited {proc.returncode}")
    return t0, wall, usage.ru_maxrss // 1024


def main() -> None:
    work = tempfile.mkdtemp(prefix="bench-headless-")
    Path(work, "a.py").write_text("print('a')\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env.update({"ANTHROPIC_API_KEY": "sk-bench", "XDG_DATA_HOME": os.path.join(work, ".data"), "HOME": work})

    bare_wall, bare_rss = [], []
    for _ in range(RUNS):
        _, wall, rss = run_child([sys.executable, "-c", "import anthropic"], env, work)
        bare_wall.append(wall)
        bare_rss.append(rss)

    first_req, agent_rss, gaps = [], [], []
    for _ in range(RUNS):
        # The tool finishes while the model still streams (tail_delay), so the gap is pure loop overhead.
        model = ScriptedModel([Reply([ToolUse("Glob", {"pattern": "*.py"})], tail_delay=0.2), Reply([Text("done")])])
        with ScriptedServer(model) as server:
            env["ANTHROPIC_BASE_URL"] = server.url
            t0, _, rss = run_child([sys.executable, "-m", "tui_agent", "-p", "go"], env, work)
        first_req.append(model.request_times[0] - t0)
        agent_rss.append(rss)
        gaps.append(model.request_times[1] - model.response_end_times[0])

    med = statistics.median
    print(f"bare `import anthropic`:              {med(bare_wall) * 1000:7.0f} ms   peak {med(bare_rss):4.0f} MB")
    print(f"tui-agent -p launch -> first request: {med(first_req) * 1000:7.0f} ms   peak {med(agent_rss):4.0f} MB (whole run)")
    print(f"  first request minus bare import:    {(med(first_req) - med(bare_wall)) * 1000:+7.0f} ms  (goal < +100 ms)")
    print(f"response end -> next request (gap):   {med(gaps) * 1000:7.2f} ms   (p-max {max(gaps) * 1000:.2f} ms; goal < 10 ms)")
    print(f"runs: {RUNS}; Claude Code here: first request 700-900 ms, ~315 MB, gap 24-79 ms")


if __name__ == "__main__":
    main()
