"""One hook command as `run_hook_command` runs it: a program that cannot start is reported as an error naming the
hook and decides nothing; bytes that are not UTF-8 arrive replaced, not as a crash; a hook cancelled mid-run
(ESC, the status line replaced) takes its whole process group with it, at every await point, its spawn's included;
a matcher that is not a valid regex covers no tool."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

import psutil
import pytest

from tests.core.test_abort_everywhere import _StepCounter, counting_task_factory
from tui_agent.core.permissions.hooks import HookSpec, matcher_applies, run_hook_command


SAFETY_NET_S = 30.0  # only a broken build waits this long: each wait ends on a state


def spec(command: str, *args: str, timeout: float = 60.0) -> HookSpec:
    return HookSpec(matcher="*", command=command, timeout=timeout, source="settings.json", args=args if args else None)


async def test_a_program_that_cannot_start_is_an_error_notice_naming_the_hook(tmp_path: Path) -> None:
    notices: list[tuple[str, str]] = []
    hook = spec(str(tmp_path / "no-such-program"), "--flag")
    ran = await run_hook_command(hook, b"{}", tmp_path, dict(os.environ), lambda level, text: notices.append((level, text)))
    assert ran is None
    assert len(notices) == 1 and notices[0][0] == "error"
    assert notices[0][1].startswith(f"PreToolUse hook `{tmp_path / 'no-such-program'} --flag` (settings.json) could not start: ")
    assert "No such file or directory" in notices[0][1]


async def test_output_that_is_not_utf8_arrives_with_replacement_characters(tmp_path: Path) -> None:
    script = "import sys; sys.stdout.buffer.write(b'ok \\xff\\xfe'); sys.stderr.buffer.write(b'bad \\xc3\\n')"
    ran = await run_hook_command(spec(sys.executable, "-c", script), b"{}", tmp_path, dict(os.environ), lambda *_: None)
    assert ran == (0, "ok \ufffd\ufffd", "bad \ufffd")


async def test_a_cancelled_hook_takes_its_children_with_it(tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    hook = spec(f"sleep 60 & echo $! > {pid_file}; wait")
    task = asyncio.create_task(run_hook_command(hook, b"{}", tmp_path, dict(os.environ), lambda *_: None))
    while not (pid_file.exists() and pid_file.read_text().strip()):
        await asyncio.sleep(0.01)
    child = int(pid_file.read_text())
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    for _ in range(3000):  # the group was sent SIGKILL: wait for the child to be reaped (init adopts it)
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        if Path(f"/proc/{child}/stat").read_text().split(") ")[1].startswith("Z"):
            break  # killed, waiting for its parent to reap it
        await asyncio.sleep(0.01)
    else:
        pytest.fail(f"the hook's child {child} is still running")


def _running(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _shells(folder: Path) -> list[psutil.Process]:
    """This process's children running the hook's shell (not yet reaped zombies left out): its command names the
    hook's folder. Other tests of the worker have shells of their own, and one of them made the wait for this
    hook's child run to its 30 s safety net."""
    found = []
    for p in psutil.Process().children():
        try:
            if _running(p.pid) and p.name() in ("sh", "dash", "bash") and str(folder) in " ".join(p.cmdline()):
                found.append(p)
        except psutil.NoSuchProcess:
            pass
    return found


async def _cancelled_at(step: int | None, folder: Path) -> tuple[bool, int | None]:
    """Run the hook and cancel it at its `step`-th await point (None: once it runs and nothing moves). Whenever
    the hook's shell exists by then, the loop is held until it has started its child: the cancel finds a group.
    Returns whether the hook reached that await point (it was cancelled once idle otherwise), and the child's
    pid if it was started."""
    folder.mkdir()
    pid_file, shell_file = folder / "child.pid", folder / "shell.pid"
    hook = spec(f"echo $$ > {shell_file}; sleep 60 & echo $! > {pid_file}; wait")
    loop = asyncio.get_running_loop()
    landed: list[int] = []

    def cancel() -> None:
        if _shells(folder):
            deadline = time.monotonic() + SAFETY_NET_S
            while not (pid_file.exists() and pid_file.read_text().strip()) and time.monotonic() < deadline:
                time.sleep(0.002)
        landed.append(counter.steps)
        task.cancel()

    counter = _StepCounter(step, cancel)
    previous = loop.get_task_factory()
    loop.set_task_factory(counting_task_factory(counter))  # the hook's task and every task it starts are counted
    try:
        task = loop.create_task(run_hook_command(hook, b"{}", folder, dict(os.environ), lambda *_: None))
        # This test's own task is not counted. The wait ends once the cancel landed, or once the hook runs its
        # command and no await point has passed for many loop turns (`step` lies beyond the last one).
        still, last = 0, -1
        while not landed and still < 200:
            await asyncio.sleep(0)
            written = pid_file.exists() and bool(pid_file.read_text().strip())
            still, last = (still + 1 if counter.steps == last and written else 0), counter.steps
        reached = bool(landed)
        if not landed:
            cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(task), SAFETY_NET_S)
    finally:
        loop.set_task_factory(previous)
    child = int(pid_file.read_text()) if pid_file.exists() and pid_file.read_text().strip() else None
    shell = int(shell_file.read_text()) if shell_file.exists() and shell_file.read_text().strip() else None
    assert shell is None or not psutil.pid_exists(shell), f"cancel at {step}: the hook's shell {shell} was not reaped when the cancel came through"
    return reached if step is not None else True, child


async def test_a_cancel_at_every_await_point_of_a_hook_leaves_none_of_its_processes(tmp_path: Path) -> None:
    """Including the window inside the spawn: the shell runs (and forks) before `create_subprocess_shell` returns,
    and a cancel there used to kill the shell alone, so its child ran on to its end (a loaded machine hit it)."""
    full_landed, _ = await _cancelled_at(None, tmp_path / "full")
    assert full_landed
    step, forked = 0, 0
    while True:
        step += 1
        landed, child = await _cancelled_at(step, tmp_path / f"s{step}")
        if not landed:
            break  # past the last await point before the hook's long wait
        where, folder = f"cancel at await point {step}", tmp_path / f"s{step}"
        forked += child is not None
        deadline = time.monotonic() + SAFETY_NET_S
        while ((child is not None and _running(child)) or _shells(folder)) and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        assert child is None or not _running(child), f"{where}: the hook's child {child} runs on"
        assert not _shells(folder), f"{where}: the hook's shell runs on"
    assert step > 4 and forked >= 3, (step, forked)  # the spawn's own await points among them


def test_a_matcher_that_is_not_a_valid_regex_covers_no_tool() -> None:
    assert matcher_applies("Edit(", "Edit") is False
    assert matcher_applies("Edit(", "Edit(") is False
    assert matcher_applies("Ed.t", "Edit") is True  # a valid regex does match
