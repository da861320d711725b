"""What a person sees: the installed `tui-agent` (and Claude Code, if `claude` is on PATH) in a real
pseudo-terminal at 120x40, driven by key bytes, measured on the painted screen (pyte). Prints figures,
asserts nothing.

    python bench/bench_tui.py                 # tui-agent, then claude when it is on PATH
    python bench/bench_tui.py tui-agent       # one of them
    python bench/bench_tui.py --runs 3        # repeat, one line per run
    python bench/bench_tui.py tui-agent --esc-only   # first frame, Bash start and ESC only

Both programs talk to the same scripted model on a loopback port (the real SSE protocol):
- first frame: spawn -> the first screen with the prompt painted;
- a ~200 KB answer streamed in 20-character chunks while a key is typed every ~100 ms: CPU of the
  program while it streams, key echo (key bytes written -> the character painted in the prompt)
  median / p95 / max, p95 in the first third of the stream and in the rest, the last chunk sent ->
  the end of the answer painted, peak RSS (VmHWM);
- seven times (--esc-runs): a Bash tool running `sleep`: the tool_use's last byte sent -> the `sleep`
  process existing (Bash start); ESC written -> "Interrupted" painted below that prompt and ESC
  written -> the process gone, measured together (a thread polls /proc from before the write; the
  paint's time is the read time of the output that painted it), every run and the median.
  `--esc-only` skips the stream (quick, to iterate on ESC).

The bench must not slow what it measures (two cores are shared by the program, its core thread, the
model and the bench): the model runs in its own process, paced by a schedule; the terminal's output
is only read and kept while the answer streams, and the emulator replays it afterwards (a read's time
is when it came, so the figures are the same as parsing live). "harness CPU" says what the bench and
the model cost meanwhile.
Needs `pyte` (`pip install pyte`); it is a bench-only dependency.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import itertools
import json
import multiprocessing
import os
import shlex
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable

import psutil

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from pty_terminal import Condition, PtyTerminal, contains  # noqa: E402

from tui_agent.providers.scripted import Reply, ScriptedModel, ScriptedServer, Text, ToolUse  # noqa: E402

BEGIN, END = "ANSWER-BEGINS-HERE", "ANSWER-ENDS-HERE"
ANSWER_BYTES = 200_000
CHUNK, CHUNK_DELAY = 20, 0.0011  # 10,000 deltas: about 11 s on a quiet machine
KEY_GAP = 0.1
ESC_RUNS = 7
TYPED = "QZXJ"  # never in the answer's text
BENCH_KEY = "sk-ant-bench-0000000000000000000000"

# Issue 11's figures for Claude Code 2.1.197, measured in tmux at 120x40 by an independent driver.
QUOTED_CLAUDE = {
    "first_frame_s": 0.47, "cpu_pct": 99, "echo_ms": "20 / 193 / 323", "echo_p95_first_third_ms": 22,
    "peak_rss_mb": 466, "last_chunk_to_screen_s": 0.89, "esc_to_interrupted_ms": 106, "esc_to_gone_ms": 83,
}
QUOTED_SOURCE = "issue 11 ('tui-agent now' table, Claude Code column: tmux 120x40, quiet machine)"


def answer_text() -> str:
    words = "the quick brown fox jumps over a lazy dog while streaming markdown text to the terminal".split()
    lines, size, n = [BEGIN, ""], 0, 0
    for n in itertools.count():
        line = f"Line {n}: " + " ".join(words[(n + i) % len(words)] for i in range(12)) + "."
        lines.append(line)
        size += len(line) + 1
        if size >= ANSWER_BYTES:
            break
    return "\n".join(lines + ["", END])


def script(body: dict[str, Any], index: int) -> Reply:
    """Replies by what the user last said; side requests (no tools: titles, topics) get a short text."""
    if not body.get("tools"):
        return Reply([Text("ok")])
    # The last user message (Claude Code may put a system message after it); anything else gets "ok".
    last = next((m for m in reversed(body.get("messages", [])) if m.get("role") == "user"), {"role": "user", "content": ""})
    blocks = last["content"] if isinstance(last["content"], list) else [{"type": "text", "text": last["content"]}]
    # Text blocks only: after an interruption the new prompt may share a message with tool results.
    content = " ".join(b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text")
    if "stream the answer" in content:
        return Reply([Text(answer_text())], chunk=CHUNK, delay=CHUNK_DELAY)
    if "run shell" in content:
        tag = content.split("run shell", 1)[1].split()[0]
        return Reply([Text("Running it.\n\n"), ToolUse("Bash", {"command": f"sleep {tag}"})])
    return Reply([Text("ok")])


class _TimedModel(ScriptedModel):
    """The scripted model in its own process (the bench's terminal emulator must not slow its pacing):
    it sends the time each response started and ended (CLOCK_MONOTONIC, the same in every process) down
    `conn`. A reply's `delay` is kept as a schedule (event n is due `n * delay` after the first), not
    slept before each event: `asyncio.sleep(0.0011)` sleeps 2 ms or more (the event loop's timer
    rounds up to the millisecond), which made the 11 s answer take 24 s."""

    def __init__(self, conn: Any) -> None:
        super().__init__(script)
        self._conn = conn

    async def stream_bytes(self, reply: Reply, body: dict[str, Any]) -> Any:
        kind = "tool" if any(isinstance(b, ToolUse) for b in reply.blocks) else (
            "answer" if any(isinstance(b, Text) and len(b.text) > 1000 for b in reply.blocks) else "other")
        pace, start = reply.delay, time.monotonic()
        n = 0
        async for data in super().stream_bytes(dataclasses.replace(reply, delay=0.0), body):
            if n == 0:
                start = time.monotonic()
                self._conn.send((kind, "start", start))
            elif pace:
                due = start + n * pace
                if due - time.monotonic() > 0.001:
                    await asyncio.sleep(due - time.monotonic())
            n += 1
            yield data
        self._conn.send((kind, "end", self.response_end_times[-1]))


def _serve(conn: Any, answer_bytes: int) -> None:
    global ANSWER_BYTES
    ANSWER_BYTES = answer_bytes
    server = ScriptedServer(_TimedModel(conn)).start()
    conn.send(server.url)
    conn.recv()  # until the bench says stop
    server.stop()


class ModelProcess:
    """The scripted server in a child process; `times` fills in as responses start and end."""

    def __init__(self) -> None:
        self.times: dict[tuple[str, str], list[float]] = {}  # (kind, "start"|"end") -> times
        self._conn, child = multiprocessing.Pipe()
        self._proc = multiprocessing.get_context("fork").Process(target=_serve, args=(child, ANSWER_BYTES), daemon=True)
        self._proc.start()
        self.url = self._conn.recv()
        self.pid = self._proc.pid
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def of(self, kind: str, phase: str) -> list[float]:
        return self.times.get((kind, phase), [])

    def _read(self) -> None:
        try:
            while True:
                kind, phase, when = self._conn.recv()
                self.times.setdefault((kind, phase), []).append(when)
        except (EOFError, OSError):
            pass

    def stop(self) -> None:
        try:
            self._conn.send("stop")
        except OSError:
            pass
        self._proc.join(5)
        if self._proc.is_alive():
            self._proc.kill()


class Program:
    def __init__(self, name: str, argv: list[str], first_frame: str, setup: Callable[[Path, Path], None]) -> None:
        self.name, self.argv, self.first_frame, self.setup = name, argv, first_frame, setup


def _tui_agent_setup(home: Path, cwd: Path) -> None:
    # The folder trusted as a returning user's is (Claude Code's entry, which tui-agent honours), so no
    # "Accessing workspace" question stands between the first frame and the prompt: as for Claude Code below.
    (home / ".claude.json").write_text(json.dumps({"projects": {str(cwd): {"hasTrustDialogAccepted": True}}}))


def _claude_setup(home: Path, cwd: Path) -> None:
    # Skip Claude Code's first-run screens (theme, trust) so the first frame is the prompt.
    (home / ".claude").mkdir(parents=True, exist_ok=True)
    state = {"hasCompletedOnboarding": True, "lastOnboardingVersion": "2.1.197", "theme": "dark",
             "projects": {str(cwd): {"hasTrustDialogAccepted": True, "hasCompletedProjectOnboarding": True}},
             "customApiKeyResponses": {"approved": [BENCH_KEY[-20:]], "rejected": []}}
    (home / ".claude.json").write_text(json.dumps(state))


def programs(which: list[str], agent_cmd: str | None) -> list[Program]:
    found = []
    agent = shlex.split(agent_cmd) if agent_cmd else [shutil.which("tui-agent") or str(Path(sys.executable).parent / "tui-agent")]
    if "tui-agent" in which:
        found.append(Program("tui-agent", [*agent, "--allowedTools", "Bash"], "esc interrupt", _tui_agent_setup))
    if "claude" in which and shutil.which("claude"):
        found.append(Program("claude", [shutil.which("claude") or "claude", "--allowedTools", "Bash"], "❯", _claude_setup))
    return found


def descendants_with(pid: int, needle: str) -> list[psutil.Process]:
    try:
        kids = psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return []
    out = []
    for p in kids:
        try:
            if needle in " ".join(p.cmdline()) and p.status() != psutil.STATUS_ZOMBIE:
                out.append(p)
        except psutil.Error:
            pass
    return out


def poll(condition: Callable[[], bool], timeout: float, step: float = 0.001) -> float | None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return time.monotonic()
        time.sleep(step)
    return None


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def cpu_seconds(proc: psutil.Process) -> float:
    # The program and whatever it runs besides the tools (node's helpers, a core thread): all of it.
    total = 0.0
    for p in [proc, *proc.children(recursive=True)]:
        try:
            t = p.cpu_times()
            total += t.user + t.system
        except psutil.Error:
            pass
    return total


def bench_env(root: Path, home: Path, url: str) -> dict[str, str]:
    """The programs' environment: a home of their own, the scripted server as the API, no telemetry."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE"))}
    env.update({"HOME": str(home), "XDG_DATA_HOME": str(root / "data"), "XDG_CONFIG_HOME": str(home / ".config"),
                "TERM": "xterm-256color", "COLUMNS": "120", "LINES": "40", "ANTHROPIC_BASE_URL": url,
                "ANTHROPIC_API_KEY": BENCH_KEY, "DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"})
    # A person's program has its compiled caches: Python's bytecode (an environment that turns it
    # off, PYTHONDONTWRITEBYTECODE, would make every start compile ~400 modules) and node's.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def measure(program: Program, esc_runs: int = ESC_RUNS, esc_only: bool = False) -> dict[str, Any]:
    root = Path(tempfile.mkdtemp(prefix="bench-tui-"))
    home, cwd = root / "home", root / "project"
    home.mkdir()
    cwd.mkdir()
    program.setup(home, cwd)
    out: dict[str, Any] = {}
    model = server = ModelProcess()
    try:
        env = bench_env(root, home, server.url)
        # One launch to the first frame writes the compiled caches; the measured launch is the next one.
        warm = PtyTerminal(program.argv, env, str(cwd))
        warm.wait_for(contains(program.first_frame), 30)
        warm.close()
        term = PtyTerminal(program.argv, env, str(cwd))
        try:
            shown = term.wait_for(contains(program.first_frame), 30)
            out["first_frame_s"] = None if shown is None else shown - term.started
            time.sleep(2.0)  # let it settle (the agent is built after the first frame)
            proc = psutil.Process(term.proc.pid)
            if not esc_only:
                _stream(term, model, proc, out)
            _escapes(term, model, out, esc_runs)
            out["peak_rss_mb"] = _peak_rss_mb(proc)
        finally:
            if out.get("first_frame_s") is None:
                print(f"  [{program.name}] screen at failure:\n" + term.text(), file=sys.stderr)
            term.close()
    finally:
        server.stop()
    shutil.rmtree(root, ignore_errors=True)
    return out


def _harness_cpu_seconds(model: ModelProcess) -> float:
    total = 0.0
    for pid in (os.getpid(), model.pid):
        try:
            t = psutil.Process(pid).cpu_times()
            total += t.user + t.system
        except psutil.Error:
            pass
    return total


def _stream(term: PtyTerminal, model: ModelProcess, proc: psutil.Process, out: dict[str, Any]) -> None:
    term.type_slowly("stream the answer")
    term.send("\r")
    # The stream starts when the server starts sending it (Claude Code paints an answer only once it
    # is whole, so the screen cannot tell).
    if poll(lambda: bool(model.of("answer", "start")), 60) is None:
        out["stream_error"] = "the answer was never asked for; the screen:\n" + term.text()
        return
    started = model.of("answer", "start")[0]
    cpu0, harness0 = cpu_seconds(proc), _harness_cpu_seconds(model)
    term.settle()  # parse what came before; from here on the emulator waits until the answer is over
    since = term.read_count
    ended = term.watch_later(contains(END), since)
    echoes: list[tuple[float, list[float]]] = []  # (written at, [painted at])
    typed = ""
    while not model.of("answer", "end") and len(typed) < 100 and time.monotonic() - started < 120:
        ch = TYPED[len(typed) % len(TYPED)]
        typed += ch
        before = term.read_count
        seen = term.watch_later(contains(typed), before)
        t0 = term.send(ch)
        echoes.append((t0, seen))
        # Go on once the key is (probably) painted: a cheap look at the raw output, no emulation; the
        # figure itself comes from the emulated screen afterwards.
        term.wait_raw(ch.encode(), before, 2.0)
        time.sleep(max(0.0, KEY_GAP - (time.monotonic() - t0)))
    if poll(lambda: bool(model.of("answer", "end")), 120) is None:
        out["stream_error"] = "the server never finished the answer"
        return
    raw_end = term.wait_raw(END.encode(), since, 120)
    cpu1, harness1, cpu_at = cpu_seconds(proc), _harness_cpu_seconds(model), time.monotonic()
    time.sleep(0.5)
    term.settle()
    if not ended or raw_end is None:
        out["stream_error"] = "the end of the answer never appeared; the screen:\n" + term.text()
        return
    finished = ended[0]
    sent_last = model.of("answer", "end")[0]
    out["stream_s"] = sent_last - started
    out["cpu_pct"] = 100 * (cpu1 - cpu0) / max(1e-9, cpu_at - started)
    out["harness_cpu_pct"] = 100 * (harness1 - harness0) / max(1e-9, cpu_at - started)
    out["last_chunk_to_screen_s"] = finished - sent_last
    out["screen_bytes"] = sum(len(d) for _, d in term.chunks[since:])
    third = started + (sent_last - started) / 3
    latency = [(t, (seen[0] - t) if seen else 5.0) for t, seen in echoes]
    during = [lat for t, lat in latency if t <= sent_last]
    first = [lat * 1000 for t, lat in latency if t <= third]
    rest = [lat * 1000 for t, lat in latency if third < t <= sent_last]
    ms = [x * 1000 for x in during]
    out["echo_keys"] = len(ms)
    out["echo_ms"] = (statistics.median(ms), pct(ms, 0.95), max(ms)) if ms else None
    out["echo_p95_first_third_ms"] = pct(first, 0.95)
    out["echo_max_first_third_ms"] = max(first) if first else None
    out["echo_p95_rest_ms"] = pct(rest, 0.95)
    term.send("\x7f" * len(typed))  # empty the prompt again
    term.wait_for(lambda d: not any(typed[:8] in row for row in d), 10)


def _alive_pids(pids: list[int]) -> bool:
    """Whether any of `pids` still runs (a zombie has ended: it only waits to be reaped)."""
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                state = f.read().rsplit(b")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state != b"Z":
            return True
    return False


class GoneWatch:
    """A thread polling /proc for `pids` from before ESC is written (no start-up lag in the figure):
    `at` is the first time none of them runs any more."""

    def __init__(self, pids: list[int], timeout: float = 10.0) -> None:
        self.pids, self.at, self._end = pids, None, time.monotonic() + timeout
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        while time.monotonic() < self._end:
            if not _alive_pids(self.pids):
                self.at = time.monotonic()
                return
            time.sleep(0.0005)

    def join(self) -> float | None:
        self._thread.join()
        return self.at


def interrupted_below(prompt: str) -> Condition:
    """The screen shows "Interrupted" on a row below the user's prompt `prompt` (a unique text): that
    run's line, whatever earlier lines scrolled away meanwhile."""

    def seen(display: list[str]) -> bool:
        rows = [i for i, row in enumerate(display) if prompt in row]
        return bool(rows) and any("Interrupted" in row for row in display[rows[0] + 1 :])

    return seen


def _escapes(term: PtyTerminal, model: ModelProcess, out: dict[str, Any], runs: int) -> None:
    """Bash start, then ESC -> "Interrupted" painted and ESC -> the process gone, both timed from the
    write of the ESC byte and concurrently: the process by a thread polling /proc since before the
    write, the paint by the read time of the terminal output after which the emulated screen showed
    the line (the emulator replays the output afterwards, so its parsing is not in the figure)."""
    starts, painted, gone = [], [], []
    pid = term.proc.pid
    for n in range(runs):
        tag = f"{300 + n}.{os.getpid() % 1000:03d}"  # `sleep` with a unique argument: its command line tells it
        ends_before = len(model.of("tool", "end"))
        prompt = f"run shell {tag}"
        term.type_slowly(prompt)
        term.send("\r")
        marker = f"sleep {tag}"
        child_at = poll(lambda: bool(descendants_with(pid, marker)), 30)
        if child_at is None:
            out["esc_error"] = "the shell tool never started; the screen:\n" + term.text()
            return
        tool_ends = model.of("tool", "end")
        reply_end = tool_ends[ends_before] if len(tool_ends) > ends_before else None
        if reply_end is not None:
            starts.append((child_at - reply_end) * 1000)
        pids = [p.pid for p in descendants_with(pid, marker)]
        time.sleep(0.5)
        term.settle()
        since = term.read_count
        shown = term.watch_later(interrupted_below(prompt), since)
        watch = GoneWatch(pids)
        t0 = term.send("\x1b")
        term.wait_raw(b"Interrupted", since, 10)  # a cheap sign it came; the figure is the screen's
        away = watch.join()
        end = time.monotonic() + 10
        while True:  # only now the emulator replays what was read meanwhile
            term.settle()
            if shown or time.monotonic() > end:
                break
            time.sleep(0.05)
        if shown:
            painted.append((shown[0] - t0) * 1000)
        else:
            out["esc_error"] = f"run {n}: no 'Interrupted' below the prompt; the screen:\n" + term.text()
        if away is not None:
            gone.append((away - t0) * 1000)
        time.sleep(0.7)
    out["bash_start_ms"] = statistics.median(starts) if starts else None
    out["esc_to_interrupted_ms"] = statistics.median(painted) if painted else None
    out["esc_to_interrupted_all_ms"] = [round(x) for x in painted]
    out["esc_to_gone_ms"] = statistics.median(gone) if gone else None
    out["esc_to_gone_all_ms"] = [round(x) for x in gone]


def _peak_rss_mb(proc: psutil.Process) -> float | None:
    try:
        for line in Path(f"/proc/{proc.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def show(name: str, r: dict[str, Any]) -> None:
    def f(key: str, fmt: str = "{:.0f}") -> str:
        v = r.get(key)
        if v is None:
            return "-"
        if isinstance(v, tuple):
            return " / ".join(fmt.format(x) for x in v)
        return fmt.format(v) if isinstance(v, (int, float)) else str(v)

    print(f"{name}: first frame {f('first_frame_s', '{:.2f}')} s | stream {f('stream_s', '{:.1f}')} s, CPU {f('cpu_pct')} % | "
          f"echo med/p95/max {f('echo_ms')} ms ({r.get('echo_keys', 0)} keys), p95 first third {f('echo_p95_first_third_ms')} ms, "
          f"max first third {f('echo_max_first_third_ms')} ms, rest {f('echo_p95_rest_ms')} ms | last chunk -> screen {f('last_chunk_to_screen_s', '{:.2f}')} s | "
          f"peak RSS {f('peak_rss_mb')} MB | Bash start {f('bash_start_ms')} ms | ESC -> Interrupted {f('esc_to_interrupted_ms')} ms "
          f"{r.get('esc_to_interrupted_all_ms', '')} | ESC -> process gone {f('esc_to_gone_ms')} ms {r.get('esc_to_gone_all_ms', '')} | "
          f"harness CPU {f('harness_cpu_pct')} %, {f('screen_bytes')} screen bytes while streaming"
          + "".join(f" | {k}: {r[k]}" for k in ("stream_error", "esc_error") if k in r))


def main() -> None:
    global ANSWER_BYTES
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("which", nargs="*", help="tui-agent and/or claude (default: both)")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--answer-kb", type=int, default=ANSWER_BYTES // 1000, help="size of the streamed answer")
    parser.add_argument("--esc-runs", type=int, default=ESC_RUNS, help="how many times ESC stops a Bash tool")
    parser.add_argument("--esc-only", action="store_true", help="only the first frame, Bash start and ESC (quick)")
    parser.add_argument("--tui-agent-cmd", help="how to start tui-agent (default: the installed `tui-agent`)")
    args = parser.parse_args()
    args.which = args.which or ["tui-agent", "claude"]
    ANSWER_BYTES = args.answer_kb * 1000
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    for program in programs(args.which, args.tui_agent_cmd):
        for _ in range(args.runs):
            show(program.name, measure(program, args.esc_runs, args.esc_only))
    if "claude" in args.which and not shutil.which("claude"):
        print(f"claude (not on PATH; quoted, not measured, from {QUOTED_SOURCE}): {QUOTED_CLAUDE}")


if __name__ == "__main__":
    main()
