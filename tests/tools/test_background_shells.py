"""Background shells: start at once, read new output with BashOutput, stop with KillShell or close_all."""

from __future__ import annotations

import asyncio
import os
import time

import psutil

from tests.tools.support import run_tool, text
from tui_agent.tools.background import BackgroundShells, BashOutputTool, KillShellTool
from tui_agent.tools.base import ToolContext
from tui_agent.tools.bash import BashTool


async def start(ctx: ToolContext, command: str) -> str:
    out = await run_tool(BashTool(), ctx, command=command, run_in_background=True)
    assert not out.is_error
    return text(out).rsplit(" ", 1)[1]


async def output(ctx: ToolContext, shell_id: str, **kw: object) -> str:
    out = await run_tool(BashOutputTool(), ctx, bash_id=shell_id, **kw)
    assert not out.is_error, out.content
    return text(out)


async def wait_for(condition, timeout: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        await asyncio.sleep(0.02)
    return condition()


def alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


async def test_start_returns_at_once_with_an_id(ctx: ToolContext) -> None:
    started = time.monotonic()
    out = await run_tool(BashTool(), ctx, command="sleep 120", run_in_background=True)
    assert time.monotonic() - started < 60  # did not wait for the command
    assert text(out) == "Command running in background with ID: bash_1"
    assert text(await run_tool(BashTool(), ctx, command="sleep 30", run_in_background=True)).endswith("bash_2")


async def test_output_returns_only_what_is_new_with_the_status(ctx: ToolContext) -> None:
    shell_id = await start(ctx, "echo first; sleep 0.3; echo second; sleep 30")
    shell = BackgroundShells.of(ctx).get(shell_id)
    assert shell is not None
    await wait_for(lambda: shell._output.end > 0)
    first = await output(ctx, shell_id)
    assert "<status>running</status>" in first and "first" in first and "second" not in first
    await wait_for(lambda: shell._output.end > len("first\n"))
    second = await output(ctx, shell_id)
    assert "second" in second and "first" not in second
    assert "<stdout>" not in await output(ctx, shell_id)


async def test_finished_shell_reports_its_exit_code(ctx: ToolContext) -> None:
    shell_id = await start(ctx, "echo bye; exit 4")
    shell = BackgroundShells.of(ctx).get(shell_id)
    assert shell is not None
    await wait_for(lambda: shell.status != "running")
    out = await output(ctx, shell_id)
    assert "<status>failed</status>" in out and "<exit_code>4</exit_code>" in out and "bye" in out


async def test_filter_keeps_matching_lines_only(ctx: ToolContext) -> None:
    shell_id = await start(ctx, "printf 'ok 1\\nerror 2\\nok 3\\n'")
    shell = BackgroundShells.of(ctx).get(shell_id)
    assert shell is not None
    await wait_for(lambda: shell.status == "completed")
    out = await output(ctx, shell_id, filter="^ok")
    assert "ok 1\nok 3" in out and "error" not in out


async def test_unknown_id_and_bad_filter_are_errors(ctx: ToolContext) -> None:
    out = await run_tool(BashOutputTool(), ctx, bash_id="bash_99")
    assert out.is_error and "No shell found with ID: bash_99" in text(out)
    shell_id = await start(ctx, "true")
    out = await run_tool(BashOutputTool(), ctx, bash_id=shell_id, filter="(")
    assert out.is_error and "Invalid regular expression" in text(out)


async def test_kill_shell_stops_the_whole_tree(ctx: ToolContext) -> None:
    shell_id = await start(ctx, "sleep 300 & setsid sleep 300 & echo up; wait")
    shell = BackgroundShells.of(ctx).get(shell_id)
    assert shell is not None
    await wait_for(lambda: shell._output.end > 0)
    tree = [shell.shell.pid] + [c.pid for c in psutil.Process(shell.shell.pid).children(recursive=True)]
    assert len(tree) >= 3
    out = await run_tool(KillShellTool(), ctx, shell_id=shell_id)
    assert not out.is_error and text(out).startswith(f"Successfully killed shell: {shell_id}")
    assert await wait_for(lambda: not any(alive(pid) for pid in tree), timeout=60)
    assert "<status>killed</status>" in await output(ctx, shell_id)
    again = await run_tool(KillShellTool(), ctx, shell_id=shell_id)
    assert again.is_error and "not running" in text(again)


async def test_close_all_stops_every_running_shell(ctx: ToolContext) -> None:
    ids = [await start(ctx, "sleep 300") for _ in range(3)]
    shells = BackgroundShells.of(ctx)
    pids = [shells.get(i).shell.pid for i in ids]  # type: ignore[union-attr]
    await shells.close_all()
    assert await wait_for(lambda: not any(alive(pid) for pid in pids), timeout=60)
    assert all(shells.get(i).status == "killed" for i in ids)  # type: ignore[union-attr]


async def test_close_all_also_stops_what_a_finished_shell_left_running(ctx: ToolContext) -> None:
    shell_id = await start(ctx, "sleep 300 & echo $!")
    shell = BackgroundShells.of(ctx).get(shell_id)
    assert shell is not None
    await wait_for(lambda: shell.status == "completed" and shell._output.end > 0)
    orphan = int((await shell.read_new())[0])
    assert alive(orphan)
    await BackgroundShells.of(ctx).close_all()
    assert await wait_for(lambda: not alive(orphan), timeout=60)


async def test_output_beyond_the_memory_bound_reports_the_loss(ctx: ToolContext) -> None:
    shell_id = await start(ctx, "yes | head -c 5000000")
    shell = BackgroundShells.of(ctx).get(shell_id)
    assert shell is not None
    await wait_for(lambda: shell.status == "completed" and shell._output.end == 5_000_000)
    out = await output(ctx, shell_id)
    assert "bytes of older output were discarded" in out
    assert len(out) < 2_100_000


async def test_shell_outlives_a_cancelled_turn(ctx: ToolContext) -> None:
    shell_id = await start(ctx, "sleep 300")
    shell = BackgroundShells.of(ctx).get(shell_id)
    assert shell is not None
    turn = asyncio.create_task(asyncio.sleep(10))
    turn.cancel()
    await asyncio.gather(turn, return_exceptions=True)
    assert shell.status == "running" and alive(shell.shell.pid)


async def test_bash_output_is_read_only_and_kill_shell_is_not() -> None:
    out_tool, kill_tool = BashOutputTool(), KillShellTool()
    assert out_tool.is_read_only(out_tool.Input.model_validate({"bash_id": "bash_1"}))
    assert not kill_tool.is_read_only(kill_tool.Input.model_validate({"shell_id": "bash_1"}))


def test_the_atexit_hook_stops_shells_left_running(tmp_path) -> None:
    """A session that never called close_all leaves no process behind, grandchildren included."""
    import subprocess
    import sys

    pid_file = tmp_path / "pid"
    script = f"""
import asyncio, pathlib
from tui_agent.tools.processes import spawn_shell
async def main():
    await spawn_shell("sleep 300 & echo $! > {pid_file}; wait", pathlib.Path("."))
    pid = pathlib.Path({str(pid_file)!r})
    while not (pid.exists() and pid.read_text().endswith("\\n")):  # the shell creates the file, then writes it
        await asyncio.sleep(0.01)
asyncio.run(main())
"""
    subprocess.run([sys.executable, "-c", script], check=True, cwd=os.getcwd(), timeout=30)
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 60
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not alive(pid)
