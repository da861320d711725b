"""Background shells (Bash with run_in_background) and the tools that read and stop them.

A background shell outlives the turn that started it: its output is collected in memory (the most
recent part, bounded) by a task of its own, and `BashOutput` hands out what is new since the last
read. The shells belong to the session (`ctx.services["background_shells"]`); `close_all()` stops
them at session end, and processes.py stops any left when the interpreter exits.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import ClassVar, Sequence

from pydantic import Field

from . import processes
from .base import Tool, ToolContext, ToolError, ToolInput, ToolOutput
from .env_filter import EnvFilter
from .os_names import decode_output

SERVICE_KEY = "background_shells"
KEEP_BYTES = 1_000_000
_DRAIN_AFTER_EXIT_S = 0.1


class _RecentOutput:
    """The last KEEP_BYTES of a stream, addressed by absolute byte offsets so readers can resume."""

    def __init__(self, keep: int = KEEP_BYTES) -> None:
        self._keep = keep
        self._buf = bytearray()
        self._start = 0  # absolute offset of _buf[0]

    @property
    def end(self) -> int:
        return self._start + len(self._buf)

    def write(self, data: bytes) -> None:
        self._buf += data
        if len(self._buf) > 2 * self._keep:  # trim in batches: amortised O(1) per byte
            drop = len(self._buf) - self._keep
            del self._buf[:drop]
            self._start += drop

    def read_from(self, pos: int, whole_lines: bool) -> tuple[bytes, int, int]:
        """(data from `pos`, the new position, bytes lost before it). With `whole_lines`, stop after
        the last newline so a line still being written is returned whole next time."""
        dropped = max(self._start - pos, 0)
        pos = max(pos, self._start)
        data = bytes(self._buf[pos - self._start :])
        if whole_lines:
            cut = data.rfind(b"\n") + 1
            data = data[:cut]
        return data, pos + len(data), dropped


class BackgroundShell:
    def __init__(self, shell_id: str, command: str, shell: processes.Shell) -> None:
        self.id = shell_id
        self.command = command
        self.shell = shell
        self.killed = False
        self._output = _RecentOutput()
        self._read_pos = 0
        self._reader = asyncio.create_task(self._collect())

    async def _collect(self) -> None:
        while chunk := await self.shell.stdout.read(1 << 16):
            self._output.write(chunk)

    @property
    def status(self) -> str:
        if self.killed:
            return "killed"
        if self.shell.returncode is None:
            return "running"
        return "completed" if self.shell.returncode == 0 else "failed"

    @property
    def active(self) -> bool:
        """Running, or finished but a child it left behind still writes to its output."""
        return self.status == "running" or (not self.killed and not self._reader.done())

    async def read_new(self) -> tuple[str, int]:
        """Output since the last read (whole lines while running), and how many bytes were lost."""
        if self.shell.returncode is not None and not self._reader.done():
            # The exit can be seen before the last output is read: give the pipe a moment to drain
            # (not forever: a child the shell left behind may hold it open).
            await asyncio.wait([self._reader], timeout=_DRAIN_AFTER_EXIT_S)
        data, self._read_pos, dropped = self._output.read_from(self._read_pos, whole_lines=self.status == "running")
        return decode_output(data), dropped

    async def kill(self) -> None:
        self.killed = True
        await self.shell.kill()
        await self.shell.wait_exit()
        self._reader.cancel()
        self.shell.close()


class BackgroundShells:
    def __init__(self) -> None:
        self._shells: dict[str, BackgroundShell] = {}
        self._count = 0

    @classmethod
    def of(cls, ctx: ToolContext) -> "BackgroundShells":
        shells = ctx.services.get(SERVICE_KEY)
        if shells is None:
            shells = ctx.services[SERVICE_KEY] = cls()
        return shells

    async def start(
        self, command: str, cwd: Path, env: dict[str, str] | None = None, env_filter: EnvFilter | None = None,
        prefix: Sequence[str] = (),
    ) -> BackgroundShell:
        """`prefix`: what runs the shell (the sandbox's bwrap command line), empty to run it as it is."""
        self._count += 1
        spawned = await processes.spawn_shell(command, cwd, env, env_filter=env_filter, prefix=prefix)
        shell = BackgroundShell(f"bash_{self._count}", command, spawned)
        self._shells[shell.id] = shell
        return shell

    def get(self, shell_id: str) -> BackgroundShell | None:
        return self._shells.get(shell_id)

    async def close_all(self) -> None:
        """Stop every shell still running, and what finished shells left running (at session end)."""
        await asyncio.gather(*(s.kill() for s in self._shells.values() if s.active))


class BashOutputInput(ToolInput):
    bash_id: str = Field(description="The ID of the background shell to retrieve output from")
    filter: str | None = Field(
        None,
        description=(
            "Optional regular expression to filter the output lines. Only lines matching this regex will be "
            "included in the result. Any lines that do not match will no longer be available to read."
        ),
    )


class BashOutputTool(Tool[BashOutputInput]):
    name = "BashOutput"
    Input = BashOutputInput
    bookkeeping = True
    description: ClassVar[str] = """- Retrieves output from a running or completed background bash shell
- Takes a shell_id parameter identifying the shell
- Always returns only new output since the last check
- Returns stdout and stderr output (combined) along with shell status
- Supports optional regex filtering to show only lines matching a pattern
- Use this tool when you need to monitor or check the output of a long-running shell
- Shell IDs are returned by Bash when run_in_background is true"""

    def is_read_only(self, input: BashOutputInput) -> bool:
        return True

    def summarize(self, input: BashOutputInput) -> str:
        return input.bash_id

    async def validate_input(self, input: BashOutputInput, ctx: ToolContext) -> str | None:
        if input.filter is not None:
            try:
                re.compile(input.filter)
            except re.error as e:
                return f"Invalid regular expression in filter: {e}"
        if BackgroundShells.of(ctx).get(input.bash_id) is None:
            return f"No shell found with ID: {input.bash_id}"
        return None

    async def call(self, input: BashOutputInput, ctx: ToolContext) -> ToolOutput:
        shell = BackgroundShells.of(ctx).get(input.bash_id)
        if shell is None:
            raise ToolError(f"No shell found with ID: {input.bash_id}")
        text, dropped = await shell.read_new()
        if input.filter is not None:
            pattern = re.compile(input.filter)
            text = "\n".join(line for line in text.splitlines() if pattern.search(line))
        parts = [f"<status>{shell.status}</status>"]
        if shell.shell.returncode is not None and not shell.killed:
            parts.append(f"<exit_code>{shell.shell.returncode}</exit_code>")
        if dropped:
            parts.append(f"<note>{dropped} bytes of older output were discarded before this read.</note>")
        if text.strip():
            parts.append(f"<stdout>\n{text.rstrip()}\n</stdout>")
        return ToolOutput(
            "\n\n".join(parts),
            data={"type": "background_shell", "id": shell.id, "status": shell.status},
        )


class KillShellInput(ToolInput):
    shell_id: str = Field(description="The ID of the background shell to kill")


class KillShellTool(Tool[KillShellInput]):
    name = "KillShell"
    Input = KillShellInput
    bookkeeping = True  # validate_input makes sure it is one of this session's own shells
    description: ClassVar[str] = """- Kills a running background bash shell by its ID
- Takes a shell_id parameter identifying the shell to kill
- Returns a success or failure status
- Use this tool when you need to terminate a long-running shell
- Shell IDs are returned by Bash when run_in_background is true"""

    def summarize(self, input: KillShellInput) -> str:
        return input.shell_id

    async def validate_input(self, input: KillShellInput, ctx: ToolContext) -> str | None:
        shell = BackgroundShells.of(ctx).get(input.shell_id)
        if shell is None:
            return f"No shell found with ID: {input.shell_id}"
        if shell.status != "running":
            return f"Shell {input.shell_id} is not running, so cannot be killed (status: {shell.status})"
        return None

    async def call(self, input: KillShellInput, ctx: ToolContext) -> ToolOutput:
        shell = BackgroundShells.of(ctx).get(input.shell_id)
        if shell is None:
            raise ToolError(f"No shell found with ID: {input.shell_id}")
        if shell.status != "running":
            raise ToolError(f"Shell {input.shell_id} is not running, so cannot be killed (status: {shell.status})")
        await shell.kill()
        return ToolOutput(f"Successfully killed shell: {shell.id} ({shell.command})")
