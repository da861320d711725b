"""Stopping a process tree: group, descendants and escaped (setsid, orphaned) processes, fast."""

from __future__ import annotations

import subprocess
import time

import psutil

from tui_agent.tools.processes import MARKER_ENV, kill_tree, shell_env


def start_tree(marker: str) -> tuple[subprocess.Popen[bytes], list[int]]:
    """A shell with a child, a setsid child, and an orphan whose parent already exited."""
    proc = subprocess.Popen(
        ["bash", "-c", "sleep 300 & setsid sleep 300 & (sleep 300 &); echo ready; wait"],
        stdout=subprocess.PIPE,
        start_new_session=True,
        env=shell_env(marker),
    )
    assert proc.stdout is not None and proc.stdout.readline() == b"ready\n"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        marked = [p.pid for p in psutil.process_iter() if _marked(p, marker)]
        if len(marked) >= 4:
            return proc, marked
        time.sleep(0.02)
    raise AssertionError("tree did not start")


def _marked(proc: psutil.Process, marker: str) -> bool:
    try:
        return proc.environ().get(MARKER_ENV) == marker and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def test_kill_tree_stops_every_process_of_the_shell() -> None:
    marker = f"test-{time.monotonic_ns()}"
    proc, pids = start_tree(marker)
    started = time.monotonic()
    kill_tree(proc.pid, marker, grace=120)
    elapsed = time.monotonic() - started
    with proc:  # closes the pipe, reaps the shell
        proc.wait(timeout=60)
    assert elapsed < 60  # everything died on SIGTERM: the (long) grace period was not waited out
    assert not any(_marked(p, marker) for p in psutil.process_iter())


def test_kill_tree_of_a_finished_process_is_harmless() -> None:
    proc = subprocess.Popen(["true"])
    proc.wait()
    kill_tree(proc.pid, "no-such-marker")
