"""Bash: output, exit codes, timeouts, streaming, bounded memory, and no process left behind."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import psutil
import pytest

from tests.tools.support import run_tool, text
from tui_agent.tools.base import ToolContext
from tui_agent.tools.bash import PARTIAL_OUTPUT_KEY, BashTool
from tui_agent.tools import processes
from tui_agent.tools.processes import MARKER_ENV


async def bash(ctx: ToolContext, command: str, **kw: object):
    return await run_tool(BashTool(), ctx, command=command, **kw)


def progress_of(ctx: ToolContext) -> list[str]:
    return ctx.services["progress_log"]


def processes_with_env(name: str, value: str) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter():
        try:
            if proc.environ().get(name) == value and proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc)
        except psutil.Error:
            pass
    return found


async def test_stdout_and_stderr_are_merged_in_order(ctx: ToolContext) -> None:
    out = await bash(ctx, "echo out; echo err >&2; echo out2")
    assert not out.is_error and text(out) == "out\nerr\nout2"


async def test_runs_in_the_workspace_root(ctx: ToolContext, workspace: Path) -> None:
    assert text(await bash(ctx, "pwd")) == str(workspace)


async def test_environment_flags_the_agent_and_disables_pagers(ctx: ToolContext) -> None:
    out = text(await bash(ctx, 'echo "$TUI_AGENT $PAGER $GIT_PAGER"'))
    assert out == "1 cat cat"


async def test_stdin_is_closed(ctx: ToolContext) -> None:
    out = await bash(ctx, "cat; echo done", timeout=5000)
    assert text(out) == "done"


async def test_non_zero_exit_is_an_error_ending_with_the_code(ctx: ToolContext) -> None:
    out = await bash(ctx, "echo partial; exit 3")
    assert out.is_error and text(out) == "partial\nExit code 3"


async def test_non_zero_exit_without_output(ctx: ToolContext) -> None:
    out = await bash(ctx, "false")
    assert out.is_error and text(out) == "Exit code 1"


async def test_zero_exit_without_output_is_empty_content(ctx: ToolContext) -> None:
    out = await bash(ctx, "true")
    assert not out.is_error and out.content == ""


async def test_timeout_kills_and_says_after_how_long(ctx: ToolContext) -> None:
    started = time.monotonic()
    out = await bash(ctx, "echo before; sleep 120", timeout=300)
    assert time.monotonic() - started < 60  # the sleep was stopped, not waited out
    assert out.is_error and text(out) == "before\nCommand timed out after 0.3s"


async def test_timeout_over_the_maximum_is_a_validation_error(ctx: ToolContext) -> None:
    out = await bash(ctx, "true", timeout=600_001)
    assert out.is_error and "timeout" in text(out) and "600000" in text(out)


async def test_empty_command_is_refused(ctx: ToolContext) -> None:
    out = await bash(ctx, "   ")
    assert out.is_error and "empty" in text(out)


async def test_progress_streams_lines_as_they_arrive(ctx: ToolContext, tmp_path: Path) -> None:
    # The command waits for a file that only the progress callback for "one" creates: "two" comes only
    # if "one" reached us while the command was still running.
    flag = tmp_path / "seen-one"
    seen: list[str] = []

    def progress(line: str) -> None:
        seen.append(line)
        if line == "one":
            flag.touch()

    ctx.progress = progress
    wait = f"end=$((SECONDS+30)); until [ -e {flag} ] || [ $SECONDS -ge $end ]; do sleep 0.01; done"
    out = await bash(ctx, f"echo one; {wait}; [ -e {flag} ] && echo two; printf three")
    assert seen == ["one", "two", "three"]
    assert text(out) == "one\ntwo\nthree"


async def test_background_child_holding_the_pipe_does_not_hold_the_result(ctx: ToolContext) -> None:
    holder = f"120.{os.getpid()}{time.monotonic_ns() % 10**6:06d}"  # sleep's argument names it
    started = time.monotonic()
    try:
        out = await bash(ctx, f"sleep {holder} & echo started")
        assert text(out) == "started" and time.monotonic() - started < 60
    finally:  # the child outlives the command by design: it must not outlive the test
        for proc in psutil.process_iter(["cmdline"]):
            if proc.info["cmdline"] == ["sleep", holder]:
                proc.kill()


async def test_huge_output_is_bounded_in_memory_and_spilled_whole(ctx: ToolContext) -> None:
    size = 200_000_000
    me = psutil.Process()
    before = me.memory_info().rss
    out = await bash(ctx, f"yes | head -c {size}", timeout=120_000)
    growth = me.memory_info().rss - before
    assert not out.is_error
    assert growth < 50 * 1024 * 1024, f"RSS grew by {growth / 1e6:.0f} MB"
    assert out.full_output_path == ctx.tool_results_dir / "toolu_test.txt"
    assert out.full_output_path.stat().st_size == size
    content = text(out)
    assert len(content) < 1_100_000 and "bytes omitted" in content and str(out.full_output_path) in content
    assert content.startswith("y\ny\n") and content.endswith("y")


async def test_small_output_is_not_spilled(ctx: ToolContext) -> None:
    out = await bash(ctx, "seq 1 1000")
    assert out.full_output_path is None and text(out).endswith("\n1000")


async def test_cancel_kills_the_whole_tree_including_a_setsid_grandchild(ctx: ToolContext, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(processes, "KILL_GRACE_S", 120)  # so a SIGKILL after the grace period would show
    tag = f"cancel-{os.getpid()}-{time.monotonic_ns()}"
    command = f"export TEST_TAG={tag}; setsid sleep 300 & (sleep 300 &); echo ready; sleep 300"
    task = asyncio.create_task(bash(ctx, command))
    for _ in range(200):
        if "ready" in progress_of(ctx) and len(processes_with_env("TEST_TAG", tag)) >= 3:
            break
        await asyncio.sleep(0.02)
    survivors = processes_with_env("TEST_TAG", tag)
    assert len(survivors) >= 3  # the shell's sleep, the setsid one and the orphaned one
    assert len({os.getsid(p.pid) for p in survivors}) >= 2  # setsid left the shell's session
    started = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - started < 60  # SIGTERM worked: the (long) grace period was not waited out
    assert processes_with_env("TEST_TAG", tag) == []
    assert ctx.services[PARTIAL_OUTPUT_KEY]["toolu_test"] == "ready\n"


async def test_cancel_escalates_to_sigkill_for_a_process_ignoring_sigterm(ctx: ToolContext) -> None:
    tag = f"stubborn-{os.getpid()}-{time.monotonic_ns()}"
    task = asyncio.create_task(bash(ctx, f"export TEST_TAG={tag}; trap '' TERM; echo ready; while :; do sleep 0.05; done"))
    for _ in range(200):
        if "ready" in progress_of(ctx):
            break
        await asyncio.sleep(0.02)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert processes_with_env("TEST_TAG", tag) == []


async def test_every_shell_carries_its_own_marker(ctx: ToolContext) -> None:
    first = text(await bash(ctx, f"echo ${MARKER_ENV}"))
    second = text(await bash(ctx, f"echo ${MARKER_ENV}"))
    assert first and second and first != second


@pytest.mark.parametrize(
    ("command", "read_only"),
    [("ls -la", True), ("git status && git diff", True), ("rm -rf build", False), ("echo x > f", False)],
)
def test_read_only_commands_are_concurrency_safe(command: str, read_only: bool) -> None:
    tool = BashTool()
    parsed = tool.Input.model_validate({"command": command})
    assert tool.is_read_only(parsed) is read_only
    assert tool.is_concurrency_safe(parsed) is read_only


def test_destructive_commands_are_flagged() -> None:
    tool = BashTool()
    assert tool.is_destructive(tool.Input.model_validate({"command": "rm -rf /tmp/x"}))
    assert not tool.is_destructive(tool.Input.model_validate({"command": "ls"}))


def test_summary_is_the_first_line_of_the_command() -> None:
    tool = BashTool()
    assert tool.summarize(tool.Input.model_validate({"command": "make test\necho done"})) == "make test"


def test_result_size_limit_is_30000() -> None:
    assert BashTool.max_result_size_chars == 30_000


async def test_a_glob_that_expands_to_an_option_is_refused_before_it_runs(ctx: ToolContext, workspace: Path) -> None:
    # issue 23: a file named `--files0-from=list` turns `wc -l *` into `wc -l --files0-from=list …`, which
    # reads every file the list names (here one outside the workspace).
    secret = workspace.parent / "secret.txt"
    secret.write_text("private\nlines\n")
    (workspace / "list").write_text(f"{secret}\0")
    (workspace / "--files0-from=list").write_text("")
    (workspace / "a.txt").write_text("x\n")
    out = await bash(ctx, "wc -l *")
    assert out.is_error and "`*` matches the file `--files0-from=list`" in text(out)
    assert "secret.txt" not in text(out)
    # Written so no match can be an option, the same glob runs.
    assert "a.txt" in text(await bash(ctx, "wc -l ./*"))
    assert "a.txt" in text(await bash(ctx, "wc -l -- *"))


async def test_a_relative_path_entry_never_finds_a_repository_program(ctx: ToolContext, workspace: Path, monkeypatch) -> None:
    # issue 23: with `.` (or an empty entry) in PATH, a repository's own `./cat` would run for `cat`.
    fake = workspace / "cat"
    fake.write_text("#!/bin/sh\necho planted\n")
    fake.chmod(0o755)
    (workspace / "f.txt").write_text("real\n")
    monkeypatch.setenv("PATH", ".::" + os.environ["PATH"])
    assert text(await bash(ctx, "cat f.txt")) == "real"
