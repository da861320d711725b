"""Bash: run a shell command in the workspace, streaming its output; stop its whole tree on timeout or cancel."""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar, Coroutine

from pydantic import Field

from pathlib import Path

from . import bash_readonly, git_safety, processes
from .bash_paths import link_targets, option_like_matches, resolve_named_paths
from .background import BackgroundShells
from .base import Tool, ToolContext, ToolError, ToolInput, ToolOutput
from .env_filter import env_filter
from .partial_output import PARTIAL_OUTPUT_KEY, Kept, kept_outputs  # noqa: F401  (PARTIAL_OUTPUT_KEY: re-exported)
from .shell_output import OutputCapture, ProgressLines
from .shell_sandbox import DATA_KEY as SANDBOXED, launch_for

DEFAULT_TIMEOUT_MS = 120_000
MAX_TIMEOUT_MS = 600_000
# After the shell exits or is killed, how long to wait for the rest of its output: it comes as soon as every
# writer is gone, at once unless the machine is busy (0.1 s lost a stopped command's last lines under load). A
# child it left running in the background may hold the pipe open forever; its later output is not this command's.
_DRAIN_AFTER_EXIT_S = 1.0


class BashInput(ToolInput):
    command: str = Field(description="The command to execute")
    timeout: int | None = Field(
        None, ge=1, le=MAX_TIMEOUT_MS, description=f"Optional timeout in milliseconds (max {MAX_TIMEOUT_MS})"
    )
    description: str | None = Field(
        None,
        description=(
            "Clear, concise description of what this command does in 5-10 words, in active voice. Examples:\n"
            "Input: ls\nOutput: List files in current directory\n\n"
            "Input: git status\nOutput: Show working tree status\n\n"
            "Input: npm install\nOutput: Install package dependencies"
        ),
    )
    run_in_background: bool = Field(
        False,
        description=(
            "Set to true to run this command in the background. Use BashOutput to read the output later."
        ),
    )
    dangerouslyDisableSandbox: bool | None = Field(
        None,
        description="Set this to true to dangerously override sandbox mode and run commands without sandboxing.",
    )


class BashTool(Tool[BashInput]):
    name = "Bash"
    Input = BashInput
    max_result_size_chars = 30_000
    description: ClassVar[str] = f"""Executes a given bash command with an optional timeout, in the working directory of the session.

Before executing the command, please follow these steps:

1. Directory Verification:
   - If the command will create new directories or files, first use `ls` to verify the parent directory exists and is the correct location

2. Command Execution:
   - Always quote file paths that contain spaces with double quotes (e.g., cd "path with spaces/file.txt")
   - After ensuring proper quoting, execute the command.
   - Capture the output of the command.

Usage notes:
  - The command argument is required.
  - You can specify an optional timeout in milliseconds (up to {MAX_TIMEOUT_MS}ms / {MAX_TIMEOUT_MS // 60000} minutes). If not specified, commands will timeout after {DEFAULT_TIMEOUT_MS}ms ({DEFAULT_TIMEOUT_MS // 60000} minutes).
  - It is very helpful if you write a clear, concise description of what this command does in 5-10 words.
  - Each command runs in a fresh `bash -c` in the working directory: `cd` and variables do not carry over to the next call. Use absolute paths or `cd DIR && ...` within one command.
  - stdin is closed: interactive commands (editors, `git rebase -i`, prompts) will not work. Pagers are disabled.
  - stdout and stderr are combined. A non-zero exit status is reported as "Exit code N" after the output. Very long output is truncated in the middle, and the full output is saved to a file.
  - You can use the `run_in_background` parameter to run the command in the background, which allows you to continue working while the command runs. You can monitor the output using the BashOutput tool as it becomes available, and stop it with KillShell. Never use `run_in_background` to run 'sleep' as it will return immediately. You do not need to use '&' at the end of the command when using this parameter.
  - Read-only commands run without asking: {", ".join(bash_readonly.READER_NAMES)} (git only for {", ".join(bash_readonly.GIT_READER_NAMES)}), alone or combined with pipes, `&&`, `||`, `;` and `cd`, when every word is literal (quotes are fine; no `$VAR`, `$(...)`, backquotes, `<(...)`, brace expansion or unquoted here-documents), every option only changes what is printed (not one that writes, such as `sort -o` or `--output`, runs a program, such as `find -exec`, `sort --compress-program` or `git --ext-diff`, or reads a list of further files, such as `--files0-from` or `grep -f`), and every file and folder they name is inside the working directories. Reading anywhere else, writing, the environment (`env`, `printenv`) and every other command ask the user first (and are refused when no one can be asked), so prefer the Read, Grep and Glob tools.
  - VERY IMPORTANT: You MUST avoid using search commands like `find` and `grep`. Instead use Grep and Glob to search. You MUST avoid read tools like `cat`, `head`, `tail`, and `ls`, and use Read to read files.
  - When issuing multiple commands:
    - If the commands are independent and can run in parallel, make multiple Bash tool calls in a single message.
    - If the commands depend on each other and must run sequentially, use a single Bash call with '&&' to chain them together.
    - Use ';' only when you need to run commands sequentially but don't care if earlier commands fail.
    - DO NOT use newlines to separate commands (newlines are ok in quoted strings).
  - Never update the git config, never run destructive git commands (push --force, reset --hard) unless the user explicitly asks, and never commit changes unless the user explicitly asks you to."""

    def is_read_only(self, input: BashInput) -> bool:
        return bash_readonly.is_read_only(input.command)

    def read_paths(self, input: BashInput, cwd: Path) -> list[Path]:
        found = bash_readonly.analyse(input.command)
        if found is None:
            return []
        return [*resolve_named_paths(found.paths, cwd), *link_targets(found.follows, cwd)]

    def is_destructive(self, input: BashInput) -> bool:
        return bash_readonly.is_destructive(input.command)

    async def validate_input(self, input: BashInput, ctx: ToolContext) -> str | None:
        if not input.command.strip():
            return "The command is empty."
        found = bash_readonly.analyse(input.command)
        if found is not None:
            # A glob that expands to a file named like an option would hand a reader an option nobody wrote
            # (`wc -l *` with a file `--files0-from=list`), in a line that runs unasked or that a rule allows
            # for another of its parts: refuse before anything runs.
            matches = option_like_matches(found.option_globs, ctx.workspace.root)
            if matches:
                pattern, name = matches[0]
                return (f"The glob `{pattern}` matches the file `{name}`, which the command would take as an "
                        "option. Put `--` before the file operands, or write the glob as `./" + pattern + "`.")
        return None

    async def call(self, input: BashInput, ctx: ToolContext) -> ToolOutput:
        command, env = await _hardened(input.command, ctx.workspace.root)
        withheld = env_filter(ctx)  # the settings of the moment: no credential reaches the shell
        # In the OS sandbox when the session has one on (core/sandbox): its argv prefix and proxy variables.
        launch = await launch_for(ctx, input.command, bool(input.dangerouslyDisableSandbox))
        prefix = launch.prefix if launch is not None else ()
        if launch is not None:
            env = {**(env or {}), **launch.env}
        if input.run_in_background:
            shell = await BackgroundShells.of(ctx).start(command, ctx.workspace.root, env, withheld, prefix=prefix)
            return ToolOutput(
                f"Command running in background with ID: {shell.id}",
                data={"type": "background_shell", "id": shell.id, SANDBOXED: launch is not None},
            )
        timeout_s = (input.timeout or DEFAULT_TIMEOUT_MS) / 1000
        shell, stopped_starting = await _start(processes.spawn_shell(command, ctx.workspace.root, env, foreground=True, env_filter=withheld, prefix=prefix))
        data = {"type": "bash", SANDBOXED: True} if launch is not None else None
        capture = OutputCapture(ctx.tool_results_dir / f"{ctx.tool_use_id or f'bash-{shell.pid}'}.txt", owned_from=ctx.session_dir)
        lines = ProgressLines(ctx.progress)
        pump = asyncio.create_task(_pump(shell.stdout, capture, lines))
        # The output so far, for the "interrupted" result (partial_output.py): read live by an executor that
        # gives up on a call that does not stop; the final text once this one is stopped.
        kept: dict[str, Kept] = kept_outputs(ctx.services) if ctx.tool_use_id else {}
        kept[ctx.tool_use_id] = capture.text
        timed_out = stopped = False
        try:
            try:
                if stopped_starting:  # stopped as it started: what it printed meanwhile is kept like any stop's
                    raise asyncio.CancelledError
                await asyncio.wait_for(shell.wait_exit(), timeout_s)
            except TimeoutError:
                timed_out = True
                await shell.kill()
            await _drain(pump)
        except asyncio.CancelledError:
            stopped = True
            await processes.through_cancels(asyncio.ensure_future(shell.kill()))
            # What the command prints as it is stopped (a test runner's summary) is often its most useful part.
            await processes.through_cancels(asyncio.ensure_future(_drain(pump)))
            lines.flush()
            if ctx.tool_use_id in kept:  # not already taken by an executor that gave up on this call
                kept[ctx.tool_use_id] = capture.text()
            raise
        finally:
            shell.close()
            capture.close()
            if not stopped:  # it ends with its own result
                kept.pop(ctx.tool_use_id, None)
        lines.flush()

        output = capture.text().rstrip("\n")
        full_path = capture.spill_path if capture.spilled else None
        if timed_out:
            note = f"Command timed out after {timeout_s:g}s"
            return ToolOutput(f"{output}\n{note}" if output else note, is_error=True, data=data, full_output_path=full_path)
        code = shell.returncode or 0
        if code < 0:  # killed by a signal: report it as the shell would
            code = 128 - code
        if code != 0:
            note = f"Exit code {code}"
            return ToolOutput(f"{output}\n{note}" if output else note, is_error=True, data=data, full_output_path=full_path)
        # Empty output stays empty: the results pipeline says "(Bash completed with no output)".
        return ToolOutput(output, data=data, full_output_path=full_path)


async def _hardened(command: str, root: Path) -> tuple[str, dict[str, str] | None]:
    """A read-only line that runs git runs it with every program its repositories configure disabled."""
    found = bash_readonly.analyse(command)
    if found is None or not found.read_only or not found.git_dirs:
        return command, None
    try:
        env = await git_safety.safe_git_env([(root / d).resolve() for d in found.git_dirs])
    except TimeoutError:
        raise ToolError("Could not read the repository's git configuration in time; the command was not run.") from None
    return git_safety.with_safety_flags(command, found.git_flag_at), env


async def _start(spawning: Coroutine[Any, Any, processes.Shell]) -> tuple[processes.Shell, bool]:
    """The started shell, and whether the call was cancelled while it started. The shell runs before the
    spawn returns, so a stop in that window (ESC under load) lets the start finish, then stops it as a
    running command is stopped, keeping what it already printed (spawn_shell alone would only kill it)."""
    task = asyncio.ensure_future(spawning)
    try:
        return await asyncio.shield(task), False
    except asyncio.CancelledError:
        await processes.through_cancels(task)
        if task.cancelled() or task.exception() is not None:
            raise
        return task.result(), True


async def _pump(stream: asyncio.StreamReader, capture: OutputCapture, lines: ProgressLines) -> None:
    while chunk := await stream.read(1 << 20):
        capture.write(chunk)
        lines.feed(chunk)


async def _drain(pump: asyncio.Task[None]) -> None:
    try:
        await asyncio.wait_for(asyncio.shield(pump), _DRAIN_AFTER_EXIT_S)
    except TimeoutError:
        pump.cancel()
