"""Finding and running ripgrep for Glob and Grep.

The `ripgrep` wheel installs `rg` next to the Python interpreter's scripts. That copy is preferred to
PATH: on pyenv-style setups PATH holds a shell shim that costs ~50 ms per call.
"""

from __future__ import annotations

import asyncio
import functools
import os
import shutil
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

from .base import ToolError

# Exit status 1 means "no match" (not an error); 2 means an error, possibly after partial results.
NO_MATCH = 1


@functools.cache
def rg_binary() -> str:
    exe = "rg.exe" if sys.platform == "win32" else "rg"
    for folder in (sysconfig.get_path("scripts"), os.path.dirname(sys.executable)):
        candidate = os.path.join(folder, exe)
        if os.access(candidate, os.X_OK):
            return candidate
    found = shutil.which("rg")
    if found is None:
        raise ToolError("ripgrep (rg) was not found; install the `ripgrep` package.")
    return found


@dataclass(frozen=True, slots=True)
class RgResult:
    lines: list[str]
    returncode: int
    stderr: str
    # True when reading stopped at `max_lines` (rg was stopped, more output existed).
    truncated: bool = False


async def run_rg(args: list[str], cwd: Path, max_lines: int | None = None) -> RgResult:
    """Run rg with `args` in `cwd`; with `max_lines`, stop reading (and stop rg) once that many came."""
    proc = await asyncio.create_subprocess_exec(
        rg_binary(), "--no-config", *args,
        cwd=cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        limit=1 << 20,
    )
    try:
        if max_lines is None:
            out, err = await proc.communicate()
            return RgResult(_lines(out), proc.returncode or 0, err.decode("utf-8", "replace"))
        return await _read_some(proc, max_lines)
    except BaseException:  # cancelled: don't leave rg running
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        raise


async def _read_some(proc: asyncio.subprocess.Process, max_lines: int) -> RgResult:
    assert proc.stdout is not None and proc.stderr is not None
    err_task = asyncio.ensure_future(proc.stderr.read())  # drained alongside, or rg may block on it
    chunks: list[bytes] = []
    count = 0
    truncated = False
    try:
        while chunk := await proc.stdout.read(1 << 18):
            chunks.append(chunk)
            count += chunk.count(b"\n")
            if count > max_lines:
                truncated = True
                proc.kill()
                break
        err = await err_task
    finally:
        err_task.cancel()
    await proc.wait()
    lines = _lines(b"".join(chunks))
    return RgResult(lines[:max_lines], 0 if truncated else proc.returncode or 0, err.decode("utf-8", "replace"), truncated)


def _lines(out: bytes) -> list[str]:
    # Split on "\n" only: str.splitlines would also cut matched lines at \x0c, \x1c, \u2028...
    # A path that is not UTF-8 keeps its bytes (surrogateescape, as os.fsdecode): Grep can stat it, and the
    # results pipeline shows them to the model as `\xNN` (os_names), which Read turns back.
    lines = out.decode("utf-8", "surrogateescape").split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines

