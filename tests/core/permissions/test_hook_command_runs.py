"""One hook command as `run_hook_command` runs it: a program that cannot start is reported as an error naming the
hook and decides nothing; bytes that are not UTF-8 arrive replaced, not as a crash; a hook cancelled mid-run
(ESC, the status line replaced) takes its whole process group with it; a matcher that is not a valid regex
covers no tool."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

from tui_agent.core.permissions.hooks import HookSpec, matcher_applies, run_hook_command


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


def test_a_matcher_that_is_not_a_valid_regex_covers_no_tool() -> None:
    assert matcher_applies("Edit(", "Edit") is False
    assert matcher_applies("Edit(", "Edit(") is False
    assert matcher_applies("Ed.t", "Edit") is True  # a valid regex does match
