"""Putting the sandbox on an agent: the service tools and front ends use, the engine's auto-allow hook, and
what happens when it is enabled but cannot start (Claude Code's `failIfUnavailable`: exit with the reason;
otherwise one warning, and no command is auto-allowed on the sandbox's account)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable

from ...tools.shell_sandbox import SERVICE_KEY
from .policy import SandboxPolicy, merge_policy
from .session import Sandbox

BWRAP_ENV = "TUI_AGENT_BWRAP"
"""An explicit bwrap binary (Claude Code's `bwrapPath`, which only managed settings may set; we have none)."""


class SandboxUnavailable(SystemExit):
    """`failIfUnavailable` and the sandbox cannot start: the run ends with this message (exit status 1)."""


def install_sandbox(agent: Any, policy: Any, tell: Callable[[str, str], None]) -> Sandbox | None:
    """Attach the session's sandbox (None when the policy has no settings store: an SDK's own policy)."""
    store = getattr(policy, "settings", None)
    if store is None or not hasattr(store, "sandbox_layers"):
        return None
    workspace = agent.context.workspace
    sandbox = Sandbox(policy_source(store, workspace), workspace.root, bwrap=os.environ.get(BWRAP_ENV) or None)
    agent.context.services[SERVICE_KEY] = sandbox
    policy.sandbox = sandbox
    mcp = agent.context.services.get("mcp")
    if mcp is not None and hasattr(mcp, "connections"):  # a project's stdio MCP servers run inside too
        mcp.sandbox = sandbox
        for connection in mcp.connections.values():
            connection.sandbox = sandbox
    current = sandbox.policy
    for note in current.notes:
        tell("info", f"Sandbox: {note}")
    if current.enabled:
        found = sandbox.availability()
        if not found.ok:
            if current.fail_if_unavailable:
                raise SandboxUnavailable(f"tui-agent: the sandbox is required (sandbox.failIfUnavailable) but cannot start: {found.why_not}")
            tell("warning", f"The sandbox is enabled but cannot start: {found.why_not}. Commands run unsandboxed, "
                            "and every command that needs permission asks.")
    return sandbox


def policy_source(store: Any, workspace: Any) -> Callable[[bool], SandboxPolicy]:
    """The merged policy of the settings as they are now, merged again only when a file or the folders change.
    Its argument: the sandbox is switched on for the session (the rules' globs are walked only when in use).
    Thread-safe: the app's lanes ask `will_sandbox` from the UI thread while the core's thread runs commands, so
    the key and its policy are kept as one pair (never a new key beside the old policy)."""
    cache: dict[str, Any] = {}

    def current(in_use: bool = False) -> SandboxPolicy:
        layers = store.sandbox_layers
        allow, deny = store.rules("allow"), store.rules("deny")
        roots: tuple[Path, ...] = tuple(workspace.roots)
        key = (tuple(map(id, layers)), tuple(r.text for r in allow), tuple(r.text for r in deny), roots, in_use)
        entry = cache.get("entry")
        if entry is None or entry[0] != key:
            entry = cache["entry"] = (key, merge_policy(layers, workspace_roots=roots, allow_rules=allow, deny_rules=deny, in_use=in_use))
        policy: SandboxPolicy = entry[1]
        return policy

    return current
