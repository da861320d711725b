"""ESC at any instant of a shell command's life, the spawn included, leaves no process behind."""

from __future__ import annotations

import asyncio
import time
import random

import psutil

from tui_agent.tools.bash import BashTool

from .support import run_tool


def _with_tag(tag: str) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        try:
            if tag in " ".join(proc.info["cmdline"] or []) and proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc)
        except psutil.Error:
            pass
    return found


def _gone(tag: str, within: float = 120.0) -> bool:  # a safety net: returns as soon as they are gone
    deadline = time.monotonic() + within
    while _with_tag(tag):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


async def test_a_shell_cancelled_at_every_step_of_its_spawn_leaves_no_process(ctx) -> None:
    # A command that forks at once (a pipeline and a background job), so a kill aimed only at the shell
    # itself would leave its children running.
    tag = f"41.{random.randrange(10**6):06d}"  # sleep takes only digits
    command = f"sleep {tag}1 & sleep {tag}2 | cat; wait"
    marker = tag
    for step in range(12):
        task = asyncio.create_task(run_tool(BashTool(), ctx, command=command))
        for _ in range(step):
            await asyncio.sleep(0)
        # A busy UI holds the event loop: the shell runs (and forks) before the spawn has finished.
        time.sleep(0.03)
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            pass
        assert _gone(marker), f"a process of the command survived a cancel at step {step}"
