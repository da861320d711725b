"""How a shell tool asks the core to run its command in the OS sandbox (tools never import core/).

The core puts an object with `launch(...)` in `ToolContext.services[SERVICE_KEY]` (core/sandbox/session.py).
It answers None when the command runs as it is (no sandbox, an excluded command, `dangerouslyDisableSandbox`
where allowed), or a `Launch`: run `[*prefix, "bash", "-c", command]` with `env` added. It raises
ToolError when the command was allowed on the sandbox's account and the sandbox cannot run it now.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from .base import ToolContext

SERVICE_KEY = "sandbox"
DATA_KEY = "sandboxed"
"""The key in a shell tool's `ToolOutput.data` saying the command ran in the sandbox (lanes mark it)."""


@dataclass(frozen=True, slots=True)
class Launch:
    prefix: list[str]
    env: dict[str, str] = field(default_factory=dict)


class ShellSandbox(Protocol):
    async def launch(self, command: str, *, tool_use_id: str | None, disable_requested: bool) -> Launch | None: ...


async def launch_for(ctx: ToolContext, command: str, disable_requested: bool = False) -> Launch | None:
    """The sandbox launch for `command` in this call, None to run it unsandboxed."""
    sandbox = ctx.services.get(SERVICE_KEY)
    if sandbox is None:
        return None
    launched: Launch | None = await sandbox.launch(command, tool_use_id=ctx.tool_use_id, disable_requested=disable_requested)
    return launched
