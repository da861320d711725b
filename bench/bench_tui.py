"""Benchmarks of the full-screen app. Prints figures; asserts nothing.

    python bench/bench_tui.py            # everything
    python bench/bench_tui.py startup    # one part: startup | stream | escape | session

- startup: `tui-agent --demo` spawned in a pseudo-terminal, time until its first frame is written;
- stream: a 200 KB answer in ~10,000 chunks over ~15 s while 10 shell tools run: CPU (process time /
  wall), peak RSS, keystroke-to-screen latency (p50/p95, first and last third of the stream), and the
  time from the last chunk to the fully drawn answer;
- escape: ESC while text streams and three `sleep 30` run: time to "Interrupted" drawn, to every
  process gone;
- session: peak RSS after 200 prompts (a fresh process).
In-process parts run the real app headless (App.run_test) on the scripted model behind the real SDK.
"""

from __future__ import annotations

import asyncio
import os
import pty
import resource
import select
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def isolated_env(root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env.update({"HOME": str(root / "home"), "XDG_DATA_HOME": str(root / "data"), "TERM": "xterm-256color",
                "COLUMNS": "120", "LINES": "40"})
    return env


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


# ----- startup -----------------------------------------------------------------------------------


def bench_startup(runs: int = 5) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "proj").mkdir()
        times = []
        for _ in range(runs):
            pid, fd = pty.fork()
            if pid == 0:
                os.chdir(root / "proj")
                os.execve(sys.executable, [sys.executable, "-m", "tui_agent", "--demo"], isolated_env(root))
            t0 = time.monotonic()
            seen = b""
            first_frame = None
            while time.monotonic() - t0 < 10:
                ready, _, _ = select.select([fd], [], [], 0.01)
                if ready:
                    try:
                        chunk = os.read(fd, 65536)
                    except OSError:
                        break
                    seen += chunk
                    if b"demo model" in seen:  # the status line: part of the first full frame
                        first_frame = time.monotonic() - t0
                        break
            os.write(fd, b"\x11")  # ctrl+q
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:
                done, _ = os.waitpid(pid, os.WNOHANG)
                if done:
                    break
                select.select([fd], [], [], 0.05)
                try:
                    os.read(fd, 65536)
                except OSError:
                    pass
            else:
                os.kill(pid, 9)
            os.close(fd)
            times.append(first_frame if first_frame is not None else float("nan"))
        print(f"startup: first frame of `tui-agent --demo` in a pty: median {statistics.median(times) * 1000:.0f} ms "
              f"(runs: {', '.join(f'{t * 1000:.0f}' for t in times)} ms)  goal < 500 ms")


# ----- in-process helpers ------------------------------------------------------------------------


def make(root: Path, script: list[Any], **settings: Any) -> tuple[Any, Any]:
    from tui_agent.config import AgentSettings
    from tui_agent.providers.scripted import ScriptedModel
    from tui_agent.ui.app import make_app

    model = ScriptedModel(script)
    return make_app(AgentSettings(cwd=root, **settings), scripted=model), model


class RenderProbe:
    """Records when a widget's lines were last drawn (its render_line called by the compositor)."""

    def __init__(self, widget: Any, needle: str | None = None) -> None:
        self.last = 0.0
        self.found_at: float | None = None
        self.needle = needle
        original: Callable[[int], Any] = widget.render_line

        def render_line(y: int) -> Any:
            strip = original(y)
            self.last = time.perf_counter()
            if self.needle and self.found_at is None and self.needle in strip.text:
                self.found_at = self.last
            return strip

        widget.render_line = render_line


def long_answer(size: int = 200_000) -> str:
    parts = []
    i = 0
    while sum(len(p) for p in parts) < size:
        parts.append(f"### Section {i}\n\nThis paragraph explains step {i} with `inline code`, **bold** words and a "
                     f"[link](https://example.com/{i}). It goes on for a little while so that wrapping matters.\n\n"
                     f"```python\ndef step_{i}(x: int) -> int:\n    # why: each step doubles\n    return x * 2 + {i}\n```\n\n"
                     f"- item one of {i}\n- item two of {i}\n\n")
        i += 1
    return "".join(parts)[:size]


async def wait_for(predicate: Callable[[], bool], timeout: float, step: float = 0.001) -> float | None:
    t0 = time.perf_counter()
    while not predicate():
        if time.perf_counter() - t0 > timeout:
            return None
        await asyncio.sleep(step)
    return time.perf_counter()


# ----- stream ------------------------------------------------------------------------------------


async def bench_stream() -> None:
    from textual import events

    from tui_agent.providers.scripted import Reply, Text, ToolUse
    from tui_agent.ui.widgets.transcript_items import AssistantText

    answer = long_answer()
    tools = [ToolUse("Bash", {"command": f"for i in 1 2 3 4 5 6; do echo tick $i; sleep {0.5 + k * 0.2:.1f}; done"}) for k in range(10)]
    script = [Reply([*tools, Text(answer)], chunk=20, delay=0.0015, input_tokens=5000, output_tokens=50_000),
              Reply([Text("ok")], input_tokens=10, output_tokens=1)]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        os.environ.update({"HOME": str(root / "home"), "XDG_DATA_HOME": str(root / "data")})
        app, model = make(root, script, permission_mode="bypassPermissions")
        async with app.run_test(size=(120, 40)):
            probe = RenderProbe(app.prompt)
            await wait_for(lambda: app.ready, 5)
            app.submit("write a very long answer")
            await wait_for(lambda: any(isinstance(i, AssistantText) for i in app.transcript.items), 10)
            wall0, cpu0 = time.perf_counter(), time.process_time()
            text_item = next(i for i in app.transcript.items if isinstance(i, AssistantText))

            def fully_drawn() -> bool:
                drawing = app.transcript._drawings[app.transcript.items.index(text_item)]
                return text_item.stream.closed and drawing.done_blocks == len(text_item.stream.finished) and not app.transcript._dirty

            async def watch_drawn() -> float:
                while not fully_drawn():
                    await asyncio.sleep(0.001)
                return time.monotonic()  # the scripted model stamps its last chunk on this clock

            drawn_task = asyncio.ensure_future(watch_drawn())
            samples: list[tuple[float, float]] = []  # (time into stream, latency)
            keys = "abcdefghijklmnopqrstuvwxyz"
            n = 0
            while not model.response_end_times:
                char = keys[n % len(keys)]
                n += 1
                before = app.prompt.text
                t0 = time.perf_counter()
                app.prompt.post_message(events.Key(char, char))
                done = await wait_for(lambda: app.prompt.text != before and probe.last > t0, 2)
                if done is not None:
                    samples.append((t0 - wall0, done - t0))
                await asyncio.sleep(0.1)
                if len(app.prompt.text) > 50:
                    app.prompt.clear()
            drawn = await asyncio.wait_for(drawn_task, 5)
            wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
            await wait_for(lambda: not app.running, 30)
            span = max(t for t, _ in samples) if samples else 1
            first = [lat * 1000 for t, lat in samples if t < span / 3]
            last = [lat * 1000 for t, lat in samples if t > 2 * span / 3]
            tools_ok = sum(c.phase == "ok" for c in app.calls.calls.values())
            print(f"stream: {len(answer) // 1000} KB in {len(answer) // 20} chunks over {wall:.1f} s with {tools_ok}/10 tools: "
                  f"CPU {cpu / wall * 100:.0f}% of one core, peak RSS {peak_rss_mb():.0f} MB, {app.transcript.virtual_size.height} lines")
            print(f"  keystroke → drawn: first third p50 {pct(first, .5):.1f} ms p95 {pct(first, .95):.1f} ms (n={len(first)}); "
                  f"last third p50 {pct(last, .5):.1f} ms p95 {pct(last, .95):.1f} ms (n={len(last)})")
            after = (drawn - model.response_end_times[0]) * 1000
            print(f"  last chunk → answer fully drawn: {after:.0f} ms  goal < 300 ms")
            app.exit()


# ----- escape ------------------------------------------------------------------------------------


async def bench_escape(runs: int = 3) -> None:
    import psutil

    from tui_agent.providers.scripted import Reply, Text, ToolUse

    def sleepers() -> list[Any]:
        found = []
        for proc in psutil.process_iter(["cmdline"]):
            try:
                if "sleep 30" in " ".join(proc.info["cmdline"] or []):
                    found.append(proc)
            except psutil.Error:
                pass
        return found

    shown, gone = [], []
    for _ in range(runs):
        script = [Reply([ToolUse("Bash", {"command": "sleep 30"}), ToolUse("Bash", {"command": "sleep 30.1"}),
                         ToolUse("Bash", {"command": "sleep 30.2"}), Text("streaming " * 5000)], chunk=10, delay=0.002)]
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            os.environ.update({"HOME": str(root / "home"), "XDG_DATA_HOME": str(root / "data")})
            app, _ = make(root, script, permission_mode="bypassPermissions")
            async with app.run_test(size=(120, 40)):
                probe = RenderProbe(app.transcript, needle="Interrupted")
                await wait_for(lambda: app.ready, 5)
                app.submit("go")
                await wait_for(lambda: len(sleepers()) >= 3, 10, step=0.02)
                await asyncio.sleep(0.3)
                t0 = time.perf_counter()
                app.simulate_key("escape")
                await wait_for(lambda: probe.found_at is not None, 2)
                t_gone = await wait_for(lambda: not sleepers(), 3, step=0.002)
                shown.append(((probe.found_at or float("nan")) - t0) * 1000)
                gone.append(((t_gone or float("nan")) - t0) * 1000)
                await wait_for(lambda: not app.running, 3)
                app.exit()
    print(f"escape: → 'Interrupted' drawn {statistics.median(shown):.1f} ms, → all `sleep 30` processes gone "
          f"{statistics.median(gone):.1f} ms (median of {runs}; goal < 60 ms each; a real terminal adds ESCDELAY=10 ms)")


# ----- session -----------------------------------------------------------------------------------


async def bench_session(turns: int = 200) -> None:
    from tui_agent.providers.scripted import Reply, Text, ToolUse

    def handler(body: dict[str, Any], index: int) -> Reply:
        last = body["messages"][-1]
        if not any(b.get("type") == "tool_result" for b in last["content"]):
            return Reply([Text(f"Looking (turn {index}).\n\n"), ToolUse("Bash", {"command": f"echo turn {index}"})], chunk=200)
        return Reply([Text(long_answer(3000))], chunk=400)

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        os.environ.update({"HOME": str(root / "home"), "XDG_DATA_HOME": str(root / "data")})
        from tui_agent.config import AgentSettings
        from tui_agent.providers.scripted import ScriptedModel
        from tui_agent.ui.app import make_app

        model = ScriptedModel(handler)
        app = make_app(AgentSettings(cwd=root, permission_mode="bypassPermissions", message_budget=10**9), scripted=model)
        t0 = time.perf_counter()
        async with app.run_test(size=(120, 40)):
            await wait_for(lambda: app.ready, 5)
            for n in range(turns):
                app.submit(f"prompt {n}")
                await wait_for(lambda: not app.running, 30, step=0.005)
                model.requests.clear()  # the scripted model keeps every request body: not the app's memory
            lines = app.transcript.virtual_size.height
            widgets = len(list(app.screen.walk_children()))
            app.exit()
        print(f"session: {turns} prompts ({len(app.agent.history)} messages, {lines} transcript lines, {widgets} widgets) "
              f"in {time.perf_counter() - t0:.0f} s: peak RSS {peak_rss_mb():.0f} MB  goal < 200 MB")


def main() -> None:
    parts = sys.argv[1:] or ["startup", "stream", "escape", "session"]
    for part in parts:
        if part == "startup":
            bench_startup()
        elif part in ("stream", "escape", "session"):
            if len(parts) > 1:
                # Each in-process part in its own process, so peak RSS is its own.
                subprocess.run([sys.executable, __file__, part], check=False)
            else:
                asyncio.run({"stream": bench_stream, "escape": bench_escape, "session": bench_session}[part]())


if __name__ == "__main__":
    main()
