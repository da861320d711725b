"""What bench_headless.py and bench_sdk.py share: where tui-agent and Claude Code are, the environment both
run in, a scripted server that keeps each request's line and busy time, one child's usage, and the figures.

Claude Code is never part of this repository. Install it outside and point `CLAUDE_BIN` at it:
    npm install --prefix /tmp/cc @anthropic-ai/claude-code@2.1.197
    export CLAUDE_BIN=/tmp/cc/node_modules/.bin/claude
Without `CLAUDE_BIN` a `claude` on PATH is used; without either the benches measure tui-agent alone.

Both programs get the same environment: a scratch HOME (Claude Code finds no login, no settings, no
sessions), the scripted model's loopback URL, a fake API key, and Claude Code's switches for running
unattended and offline (no telemetry, error reports, auto-updater or other non-essential traffic).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tui_agent.providers.scripted import Reply, ScriptedModel, ScriptedServer

RUNS = int(os.environ.get("BENCH_RUNS", "7"))
LINE_HEADER = "x-bench-request-line"
QUIET = {
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",  # implies the four below; they are set too, to be explicit
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "DISABLE_BUG_COMMAND": "1",
}


def tui_agent_bin() -> str:
    return os.environ.get("TUI_AGENT_BIN") or str(REPO / ".venv" / "bin" / "tui-agent")


def claude_bin() -> str | None:
    """Claude Code's command: `$CLAUDE_BIN`, else `claude` on PATH, else None (said once by the caller)."""
    found = os.environ.get("CLAUDE_BIN") or shutil.which("claude")
    return found if found and os.access(found, os.X_OK) else None


def claude_version(cli: str) -> str:
    return subprocess.run([cli, "--version"], check=False, capture_output=True, text=True, timeout=60).stdout.strip()


def scratch_env(root: Path, base_url: str) -> dict[str, str]:
    """The environment of one run: nothing of ours leaks in (no key, no config, no CLAUDECODE marker)."""
    home = root / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE", "TUI_AGENT_"))}
    env.update(QUIET)
    env.update({
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "ANTHROPIC_BASE_URL": base_url,
        "ANTHROPIC_API_KEY": "sk-bench-not-a-key",
    })
    return env


class TimedModel(ScriptedModel):
    """A ScriptedModel that also keeps (start, end) of every response it streamed: the model's own time."""

    def __init__(self, script: Callable[[dict[str, Any], int], Reply]) -> None:
        super().__init__(script)
        self.busy: list[tuple[float, float]] = []

    async def stream_bytes(self, reply: Reply, body: dict[str, Any]) -> AsyncIterator[bytes]:
        start = time.monotonic()
        async for chunk in super().stream_bytes(reply, body):
            yield chunk
        self.busy.append((start, time.monotonic()))

    def line(self, index: int) -> str:
        """'POST /v1/messages?beta=true' of request `index`."""
        return self.request_headers[index].get(LINE_HEADER, "?").rsplit(" ", 1)[0]


class _LineReader:
    """Hands the server each request head with its request line copied into a header, so the line
    travels with the body into `model.request_headers` (ScriptedServer keeps headers, not the line)."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._reader = reader

    async def readuntil(self, separator: bytes = b"\n") -> bytes:
        head = await self._reader.readuntil(separator)
        line = head.split(b"\r\n", 1)[0]
        return head[:-2] + LINE_HEADER.encode() + b": " + line + b"\r\n\r\n"

    async def readexactly(self, n: int) -> bytes:
        return await self._reader.readexactly(n)


class BenchServer(ScriptedServer):
    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await super()._handle(_LineReader(reader), writer)  # type: ignore[arg-type]


def describe(model: TimedModel, start: float) -> list[str]:
    """One line per request the model got: when, what, and the last message's blocks."""
    out = []
    for i, body in enumerate(model.requests):
        if not body:
            out.append(f"  +{model.request_times[i] - start:6.3f}s {model.line(i)} (no body)")
            continue
        content = (body.get("messages") or [{}])[-1].get("content")
        kinds = "text" if isinstance(content, str) else ",".join(b.get("type", "?") for b in content or [])
        out.append(f"  +{model.request_times[i] - start:6.3f}s {model.line(i)} model={body.get('model')} "
                   f"max_tokens={body.get('max_tokens')} tools={len(body.get('tools', []))} "
                   f"messages={len(body.get('messages', []))} last=[{kinds}]")
    return out


@dataclass(slots=True)
class Usage:
    start: float
    wall: float
    cpu: float
    """user + sys seconds of the process and every child it waited for."""
    rss_mb: float
    """Peak RSS of the process or of its largest waited-for child (Linux ru_maxrss)."""


def run_child(args: list[str], env: dict[str, str], cwd: Path, out: Path) -> Usage:
    """Run one process to its end, stdout and stderr to `out`; exits the bench when it fails."""
    with out.open("wb") as sink:
        start = time.monotonic()
        proc = subprocess.Popen(args, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.monotonic() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{args[0]} exited {proc.returncode}:\n{out.read_text(errors='replace')[-2000:]}")
    return Usage(start, wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def spread(values: list[float], scale: float, digits: int) -> str:
    """'median (min–max)' of values × scale."""
    v = [x * scale for x in values]
    return f"{statistics.median(v):.{digits}f} ({min(v):.{digits}f}–{max(v):.{digits}f})"


def print_rows(rows: list[tuple[str, list[float], list[float] | None, float, int]], have_cc: bool) -> None:
    """Rows of (label, tui-agent values, Claude Code values, scale, digits); the ratio is the median of
    the per-pair ratios tui-agent / Claude Code."""
    print(f"{'':34}{'tui-agent':>24}{'Claude Code' if have_cc else '':>24}{'ratio' if have_cc else '':>8}")
    for label, ours, theirs, scale, digits in rows:
        line = f"{label:34}{spread(ours, scale, digits):>24}"
        if have_cc and theirs:
            ratio = statistics.median(a / b for a, b in zip(ours, theirs, strict=True) if b > 0)
            line += f"{spread(theirs, scale, digits):>24}{ratio:8.2f}"
        print(line)


def load() -> str:
    return Path("/proc/loadavg").read_text().split()[0] if Path("/proc/loadavg").exists() else "?"
