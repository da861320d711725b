"""Shell processes: started in their own process group, and stopped with everything they started.

A command may fork grandchildren that leave its process group (`setsid`, daemons) or outlive their
parent. So every shell gets a unique marker in its environment, which descendants inherit; stopping
a shell signals its group, its tree (by parent links) and every process still carrying its marker.
Shells still alive when the interpreter exits are stopped by an atexit hook.
"""

from __future__ import annotations

import asyncio
import atexit
import os
import signal
import subprocess
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import psutil

from .env_filter import EnvFilter

MARKER_ENV = "TUI_AGENT_SHELL_ID"
KILL_GRACE_S = 0.5
SCAN_DELAY_S = 0.03
"""How long an async kill waits, after signalling the shell's process group, before it looks through
/proc for what left the group (a scan of every process: 10-30 ms of CPU on a busy machine). The group
dies at once; a scan in that same instant held the interpreter lock the app needed to paint ESC's
"Interrupted"."""
_POLL_S = 0.005

# pid -> marker of every shell started here and not yet reaped.
_live: dict[int, str] = {}
# The pids of the shells whose end a tool waits for now (not background shells): ESC stops their groups.
_foreground: set[int] = set()


def shell_env(marker: str, extra: dict[str, str] | None = None, env_filter: EnvFilter | None = None) -> dict[str, str]:
    """The environment of a shell command: ours without the credentials `env_filter` withholds (by
    default the API key), flagged as run by the agent, with no pager."""
    env = dict(os.environ)
    env.update({"TUI_AGENT": "1", "PAGER": "cat", "GIT_PAGER": "cat", MARKER_ENV: marker, **(extra or {})})
    # With CDPATH set, `cd src` may land outside the workspace; the read-only check follows `cd` as written.
    env.pop("CDPATH", None)
    # An empty or relative PATH entry (`::`, `.`, `bin`) would let a repository's own `./cat` stand in for cat.
    if "PATH" in env:
        env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if os.path.isabs(p))
    # Filtered last, so nothing added above can bring a withheld name back; the marker stays (kills need it).
    return (env_filter or EnvFilter()).apply(env, keep=frozenset({MARKER_ENV}))


class _ShellProtocol(asyncio.subprocess.SubprocessStreamProtocol):
    """Tells when the shell exits. `Process.wait()` also waits for its pipes to close, which a
    background child (`cmd &`) can hold open long after the shell itself is gone."""

    def __init__(self, limit: int, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(limit=limit, loop=loop)
        self.exited = asyncio.Event()
        self.pid = 0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        assert isinstance(transport, asyncio.SubprocessTransport)
        self.pid = transport.get_pid()

    def process_exited(self) -> None:
        super().process_exited()
        self.exited.set()
        _live.pop(self.pid, None)  # reaped: the atexit hook need not stop it
        _foreground.discard(self.pid)


@dataclass(slots=True)
class Shell:
    """A running `bash -c`: its stdout (stderr merged), its exit, and the marker its descendants carry."""

    proc: asyncio.subprocess.Process
    marker: str
    _transport: asyncio.SubprocessTransport
    _protocol: _ShellProtocol

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def stdout(self) -> asyncio.StreamReader:
        assert self.proc.stdout is not None
        return self.proc.stdout

    @property
    def returncode(self) -> int | None:
        return self.proc.returncode

    async def wait_exit(self) -> int:
        """The shell's exit status, as soon as the shell exits (its pipes may still be open)."""
        await self._protocol.exited.wait()
        assert self.proc.returncode is not None
        return self.proc.returncode

    async def kill(self) -> None:
        await kill_tree_async(self.pid, self.marker)

    def close(self) -> None:
        """Stop reading and release the pipes: a child the shell left running gets SIGPIPE on its
        next write instead of filling the pipe, and no transport outlives the call."""
        _foreground.discard(self.pid)
        self._transport.close()


async def spawn_shell(
    command: str, cwd: Path, env: dict[str, str] | None = None, *, foreground: bool = False, env_filter: EnvFilter | None = None,
    prefix: Sequence[str] = (),
) -> Shell:
    """Start `bash -c command` in its own session, stdin closed, stderr merged into stdout, with the
    environment `shell_env` makes (`env` added, `env_filter` applied).
    `foreground`: a tool waits for it, so ESC stops it (`stop_foreground_now`); a background shell lives on.
    `prefix`: what runs `bash` (the sandbox's bwrap line); it stays in the shell's group, so stops reach it.

    The shell runs (and may fork) before the spawn returns; a cancel that lands in that window must
    not leave it behind, so the spawn finishes in a task of its own and a cancelled caller stops the
    whole tree before the cancel goes on."""
    marker = uuid.uuid4().hex
    spawn = asyncio.ensure_future(_spawn(command, cwd, marker, shell_env(marker, env, env_filter), foreground, prefix))
    try:
        return await asyncio.shield(spawn)
    except asyncio.CancelledError:
        await _stop_spawned(spawn, marker)
        raise


async def through_cancels(future: "asyncio.Future[Any]") -> None:
    """Wait for `future` to finish even if this task is cancelled meanwhile (a stop that must complete:
    a second ESC must not leave half a kill behind)."""
    while not future.done():
        try:
            await asyncio.shield(future)
        except asyncio.CancelledError:
            continue
        except Exception:
            return


async def _stop_spawned(spawn: "asyncio.Future[Shell]", marker: str) -> None:
    """Wait for a cancelled spawn to finish, then kill everything it started."""
    await through_cancels(spawn)
    if spawn.cancelled() or spawn.exception() is not None:
        return
    shell = spawn.result()
    await through_cancels(asyncio.ensure_future(shell.kill()))
    shell.close()


async def _spawn(
    command: str, cwd: Path, marker: str, env: dict[str, str], foreground: bool = False, prefix: Sequence[str] = ()
) -> Shell:
    loop = asyncio.get_running_loop()
    transport, protocol = await loop.subprocess_exec(
        # A bigger stream buffer than asyncio's 64 KB default: fewer wake-ups on fast output.
        lambda: _ShellProtocol(limit=1 << 20, loop=loop),
        *prefix, "bash", "-c", command,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        env=env,
    )
    proc = asyncio.subprocess.Process(transport, protocol, loop)
    _live[proc.pid] = marker
    if foreground and proc.returncode is None:
        _foreground.add(proc.pid)
    return Shell(proc, marker, transport, protocol)


def stop_foreground_now() -> None:
    """SIGTERM the process group of every shell a tool waits for, from any thread (ESC, before the
    core has seen the abort: signalling is cheap, the core is busy). The abort must be on its way to
    the core first, so the tool reports the interruption rather than the shell's exit; the core's own
    kill follows (the tree, processes that left the group, SIGKILL after the grace)."""
    for pid in list(_foreground):
        signal_group(pid, signal.SIGTERM)


def track_process(pid: int, marker: str) -> None:
    """Stop this process tree with the shells (atexit, a second Ctrl+C): for processes started
    elsewhere (an MCP server) whose environment carries `marker` under MARKER_ENV."""
    _live[pid] = marker


def untrack_process(pid: int) -> None:
    _live.pop(pid, None)


def find_marked_child(marker: str) -> int | None:
    """The pid of our direct child carrying `marker` (a process a library spawned for us)."""
    global _table
    _table = None
    me = os.getpid()
    for proc in _process_table().marked.get(marker, []):
        try:
            if proc.ppid() == me:
                return proc.pid
        except psutil.Error:
            continue
    return None


_SCAN_FRESH_S = 0.005


@dataclass(slots=True)
class _ProcessTable:
    """One look at every process: who carries which marker, and each process's children."""

    at: float
    marked: dict[str, list[psutil.Process]]
    children: dict[int, list[psutil.Process]]


_table: _ProcessTable | None = None


def _process_table() -> _ProcessTable:
    """A fresh scan of /proc, shared by every kill made in the same instant (an abort stops ten
    shells at once: one scan, not ten, nor ten of psutil's own children() scans)."""
    global _table
    now = time.monotonic()
    if _table is not None and now - _table.at <= _SCAN_FRESH_S:
        return _table
    marked: dict[str, list[psutil.Process]] = {}
    children: dict[int, list[psutil.Process]] = {}
    needle = MARKER_ENV.encode() + b"="
    me = os.getpid()
    for proc in psutil.process_iter(["ppid"]):
        ppid = proc.info.get("ppid")
        if ppid is not None:
            children.setdefault(ppid, []).append(proc)
        if proc.pid == me:
            continue
        try:
            # Reading the raw file is several times faster than psutil's parsed environ().
            with open(f"/proc/{proc.pid}/environ", "rb") as f:
                data = f.read()
        except OSError:
            continue
        at = data.find(needle)
        if at >= 0:
            stop = data.find(b"\0", at)
            value = data[at + len(needle) : stop if stop >= 0 else None].decode(errors="replace")
            marked.setdefault(value, []).append(proc)
    _table = _ProcessTable(time.monotonic(), marked, children)  # fresh from when the scan ended
    return _table


def _handle(pid: int) -> psutil.Process | None:
    try:
        return psutil.Process(pid)
    except psutil.Error:
        return None


def _collect(pid: int, marker: str | None, shell: psutil.Process | None = None) -> list[psutil.Process]:
    """The shell, its descendants (by parent links) and every process still carrying its marker.

    `shell`: a handle on the shell taken earlier; when it has ended since, its pid may be another
    process's now, so nothing is looked up by that pid (its children were reparented anyway)."""
    table = _process_table()
    found: dict[int, psutil.Process] = {}
    if shell is not None and not shell.is_running():
        stack = []
    else:
        handle = shell if shell is not None else _handle(pid)
        if handle is not None:
            found[pid] = handle
        stack = [pid]
    while stack:
        for child in table.children.get(stack.pop(), []):
            if child.pid not in found:
                found[child.pid] = child
                stack.append(child.pid)
    if marker:
        for proc in table.marked.get(marker, []):
            found.setdefault(proc.pid, proc)
    return list(found.values())


def _signal(procs: list[psutil.Process], sig: signal.Signals) -> None:
    for proc in procs:
        try:
            proc.send_signal(sig)  # psutil checks the pid was not reused
        except psutil.Error:
            pass


def _alive(proc: psutil.Process) -> bool:
    try:
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def signal_group(pid: int, sig: signal.Signals) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _terminate(pid: int, marker: str | None) -> list[psutil.Process]:
    signal_group(pid, signal.SIGTERM)  # the whole group at once, before walking anything
    procs = _collect(pid, marker)
    _signal(procs, signal.SIGTERM)
    return procs


def _force(pid: int, marker: str | None, survivors: list[psutil.Process]) -> None:
    """SIGKILL the survivors, and whatever they started since the first look (a loop that ignores
    SIGTERM keeps forking)."""
    signal_group(pid, signal.SIGKILL)
    _signal(survivors, signal.SIGKILL)
    _signal(_collect(pid, marker), signal.SIGKILL)


def kill_tree(pid: int, marker: str | None = None, grace: float | None = None) -> None:
    """SIGTERM the shell's group, tree and marked processes; SIGKILL what survives `grace` seconds
    (KILL_GRACE_S, read at call time)."""
    procs = _terminate(pid, marker)
    deadline = time.monotonic() + (KILL_GRACE_S if grace is None else grace)
    while (procs := [p for p in procs if _alive(p)]) and time.monotonic() < deadline:
        time.sleep(_POLL_S)
    if procs:
        _force(pid, marker, procs)


async def kill_tree_async(pid: int, marker: str | None = None, grace: float | None = None) -> None:
    """`kill_tree` that waits on the event loop instead of blocking it, and looks for what left the
    group only SCAN_DELAY_S after signalling the group."""
    shell = _handle(pid)
    signal_group(pid, signal.SIGTERM)
    await asyncio.sleep(SCAN_DELAY_S)
    procs = _collect(pid, marker, shell)
    _signal(procs, signal.SIGTERM)
    deadline = time.monotonic() + (KILL_GRACE_S if grace is None else grace)
    while (procs := [p for p in procs if _alive(p)]) and time.monotonic() < deadline:
        await asyncio.sleep(_POLL_S)
    if procs:
        _force(pid, marker, procs)


def kill_all_now() -> None:
    """SIGKILL every live shell with everything it started, at once (a second Ctrl+C)."""
    global _table
    _table = None
    for pid, marker in list(_live.items()):
        _force(pid, marker, [])
    _live.clear()


@atexit.register
def _kill_live_shells() -> None:
    for pid, marker in list(_live.items()):
        kill_tree(pid, marker, grace=0.2)
    _live.clear()
