"""The session's sandbox: its state for the front ends, the choice per command, and the launches.

Which commands run inside is Claude Code's `shouldUseSandbox`: the sandbox is on and can start, the call did
not set `dangerouslyDisableSandbox` where `allowUnsandboxedCommands` lets it, and no `excludedCommands`
pattern matches. A call the permission engine allowed only because it runs inside (`autoAllowBashIfSandboxed`)
is remembered by its tool_use_id: if the sandbox is switched off or breaks before it starts, it does not run
at all rather than run unsandboxed unasked.

Lives on the agent as `agent.context.services["sandbox"]`; `state()` is what `/sandbox` shows, `set_enabled`
switches it for the session (None: back to the settings).
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from ...tools.base import ToolError
from ...tools.shell_sandbox import Launch
from . import availability
from .bwrap import MaskFiles, bwrap_argv, mask_files, runtime_dir
from .policy import SandboxPolicy

PolicySource = Callable[[bool], SandboxPolicy]
"""The merged policy; its argument says the session switched the sandbox on (install.py `policy_source`)."""


@dataclass(frozen=True, slots=True)
class SandboxState:
    """What `/sandbox` shows. `active`: commands run inside now (enabled and available)."""

    enabled: bool
    available: bool
    why_not: str | None
    auto_allow: bool
    allow_unsandboxed: bool
    writable: tuple[str, ...]
    deny_write: tuple[str, ...]
    deny_read: tuple[str, ...]
    allow_read: tuple[str, ...]
    allowed_domains: tuple[str, ...]
    denied_domains: tuple[str, ...]
    excluded_commands: tuple[str, ...]
    switched: bool
    """True when the session switch, not the settings, decides `enabled`."""

    @property
    def active(self) -> bool:
        return self.enabled and self.available


class Sandbox:
    def __init__(self, policy: PolicySource, cwd: Path, *, bwrap: str | None = None, path: str | None = None) -> None:
        """`bwrap`: an explicit binary; `path`: the PATH it is looked up on (default ours)."""
        self._policy = policy
        self._cwd = cwd
        self._bwrap = bwrap
        self._path = path
        self._override: bool | None = None
        self._promised: set[str] = set()
        self._plan: Any = None
        self._plan_key: tuple[tuple[str, ...], tuple[str, ...]] | None = None
        self._plan_lock = asyncio.Lock()
        self._mask: MaskFiles | None = None

    # --- state

    @property
    def policy(self) -> SandboxPolicy:
        return self._policy(self._override is True)

    def enabled(self) -> bool:
        return self._override if self._override is not None else self.policy.enabled

    def availability(self) -> availability.Availability:
        return availability.check(self._path, self._bwrap)

    def active(self) -> bool:
        """Commands run inside now: enabled, and the sandbox can start (probed once, only when enabled)."""
        return self.enabled() and self.availability().ok

    def set_enabled(self, on: bool | None) -> SandboxState:
        """Switch the sandbox for this session (None: as the settings say)."""
        self._override = on
        return self.state()

    def state(self) -> SandboxState:
        p = self.policy
        enabled = self.enabled()
        found = self.availability() if enabled else None
        return SandboxState(
            enabled=enabled,
            available=found.ok if found is not None else self.availability().ok,
            why_not=found.why_not if found is not None else None,
            auto_allow=p.auto_allow,
            allow_unsandboxed=p.allow_unsandboxed,
            writable=(*map(str, p.writable), "/tmp (private)"),
            deny_write=tuple(map(str, p.deny_write)),
            deny_read=tuple(map(str, p.deny_read)),
            allow_read=tuple(map(str, p.allow_read)),
            allowed_domains=p.allowed_domains,
            denied_domains=p.denied_domains,
            excluded_commands=p.excluded_commands,
            switched=self._override is not None,
        )

    # --- per command

    def will_sandbox(self, command: str, disable_requested: bool = False) -> bool:
        p = self.policy
        if not self.active():
            return False
        if disable_requested and p.allow_unsandboxed:
            return False
        return not p.is_excluded(command)

    def auto_allows(self, tool_use_id: str, command: str, disable_requested: bool = False) -> bool:
        """Whether a Bash call that would ask runs unasked because the sandbox holds it (and remember that)."""
        if not (self.policy.auto_allow and self.will_sandbox(command, disable_requested)):
            return False
        if tool_use_id:
            self._promised.add(tool_use_id)
        return True

    async def launch(self, command: str, *, tool_use_id: str | None, disable_requested: bool) -> Launch | None:
        promised = bool(tool_use_id) and tool_use_id in self._promised
        self._promised.discard(tool_use_id or "")
        if promised and not self.active():
            why = self.availability().why_not or "it was switched off"
            raise ToolError(f"This command was allowed to run only inside the sandbox, which cannot run it now ({why}); it was not run.")
        if not (promised or self.will_sandbox(command, disable_requested)):
            return None
        try:
            return await self._launch_inner(["bash", "-c"])
        except (OSError, ValueError) as exc:
            raise ToolError(f"The sandbox could not be set up ({exc}); the command was not run.") from None

    def program_argv(self, argv: Sequence[str], cwd: Path) -> tuple[list[str], dict[str, str]] | None:
        """A program's argv wrapped in the sandbox and the variables to add (a project's stdio MCP server), None
        when the sandbox is off. Called from the MCP loop's thread, so it starts no proxy: the session's, when
        already running for the same domains, is reused, else the program gets no network."""
        if not self.active():
            return None
        found, policy, plan = self.availability(), self.policy, self._plan
        assert found.bwrap is not None
        if plan is None or self._plan_key != (policy.allowed_domains, policy.denied_domains):
            return bwrap_argv(found.bwrap, policy, self._masks(), cwd, ["--unshare-net"], list(argv)), {}
        return bwrap_argv(found.bwrap, policy, self._masks(), cwd, plan.bwrap_args, plan.wrap(argv)), dict(plan.env)

    def _masks(self) -> MaskFiles:
        if self._mask is None or not os.path.exists(self._mask.file):  # a /tmp cleaner may have taken them
            self._mask = mask_files(runtime_dir())
        return self._mask

    async def _launch_inner(self, inner: list[str]) -> Launch:
        found = self.availability()
        assert found.bwrap is not None
        policy = self.policy
        plan = await self._network(policy)
        argv = bwrap_argv(found.bwrap, policy, self._masks(), self._cwd, plan.bwrap_args, plan.wrap(inner))
        # The tool runs `[*prefix, "bash", "-c", command]`: the prefix is everything before those words.
        return Launch(argv[:-len(inner)], dict(plan.env))

    async def _network(self, policy: SandboxPolicy) -> Any:
        """The network plan for the policy's domains: one proxy per session, replaced when the lists change."""
        key = (policy.allowed_domains, policy.denied_domains)
        async with self._plan_lock:
            if self._plan is None or key != self._plan_key:
                if self._plan is not None:  # first: the new proxy listens on the same socket path
                    await self._plan.close()
                    self._plan = None
                plan = _plan_network(policy, runtime_dir() / f"s{os.getpid()}-{id(self) % 100000}")
                await plan.start()
                self._plan, self._plan_key = plan, key
            return self._plan

    async def close(self) -> None:
        if self._plan is not None:
            await self._plan.close()
            self._plan = None


def _plan_network(policy: SandboxPolicy, folder: Path) -> Any:
    from .network import plan_network  # the proxy's modules load only when a command runs sandboxed

    folder.mkdir(mode=0o700, exist_ok=True)
    return plan_network(policy, folder)
