"""Stopping a process tree: group, descendants and escaped (setsid, orphaned) processes, fast."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import threading
import time
from pathlib import Path

import psutil

from tui_agent.tools import processes
from tui_agent.tools.processes import MARKER_ENV, kill_tree, kill_tree_async, shell_env, spawn_shell, stop_foreground_now


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
    """Nothing to stop: it returns at once (no grace waited out), raises nothing, and spares the rest."""
    bystander = subprocess.Popen(["sleep", "300"], env=shell_env(f"bystander-{time.monotonic_ns()}"))
    try:
        proc = subprocess.Popen(["true"])
        proc.wait()
        started = time.monotonic()
        kill_tree(proc.pid, "no-such-marker", grace=120)
        assert time.monotonic() - started < 60
        assert bystander.poll() is None, "a process outside the finished one's tree was stopped"
    finally:
        bystander.kill()
        bystander.wait()


def test_the_async_kill_stops_every_process_of_the_shell_though_it_looks_beyond_the_group_later() -> None:
    marker = f"test-{time.monotonic_ns()}"
    proc, _ = start_tree(marker)
    asyncio.run(kill_tree_async(proc.pid, marker, grace=120))
    with proc:
        proc.wait(timeout=60)
    assert not any(_marked(p, marker) for p in psutil.process_iter())


def test_stopping_the_foreground_shells_ends_a_tools_shell_from_another_thread_and_spares_background_ones(tmp_path: Path) -> None:
    async def scenario() -> tuple[int | None, int | None]:
        tool = await spawn_shell("sleep 300", tmp_path, foreground=True)
        background = await spawn_shell("sleep 300", tmp_path)
        try:
            stopper = threading.Thread(target=stop_foreground_now)  # as the UI thread does on ESC
            stopper.start()
            code = await asyncio.wait_for(tool.wait_exit(), 60)
            stopper.join()
            await asyncio.sleep(0.05)
            return code, background.returncode
        finally:
            for shell in (tool, background):
                await shell.kill()
                shell.close()

    tool_code, background_code = asyncio.run(scenario())
    assert tool_code == -signal.SIGTERM
    assert background_code is None, "a background shell outlives ESC"


def test_a_shell_that_ended_is_no_longer_stopped_on_escape(tmp_path: Path) -> None:
    async def scenario() -> None:
        shell = await spawn_shell("true", tmp_path, foreground=True)
        await shell.wait_exit()
        shell.close()

    asyncio.run(scenario())
    assert not processes._foreground, "its pid may be another process's by the next ESC"
