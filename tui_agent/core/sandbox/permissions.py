"""`autoAllowBashIfSandboxed`: a Bash call that would ask runs unasked when the sandbox will hold it.

Only the engine's own default ask is lifted (nothing allowed the command yet): a deny (rules, plan mode) stays
a deny, an ask rule stays an ask (its decision names the rule in `source`), and a PreToolUse hook's ask is
applied after this. A command that will not run inside (an excluded one, `dangerouslyDisableSandbox` where
`allowUnsandboxedCommands` honours it, a sandbox that cannot start) asks as without a sandbox.
"""

from __future__ import annotations

from typing import Any

from ..permission_types import PermissionCheck, PermissionDecision

AUTO_ALLOW_SOURCE = "sandbox (autoAllowBashIfSandboxed)"


def with_sandbox(sandbox: Any, check: PermissionCheck, decision: PermissionDecision) -> PermissionDecision:
    if sandbox is None or check.tool.name != "Bash" or decision.behavior != "ask" or decision.source:
        return decision
    command = getattr(check.input, "command", "")
    disable = bool(getattr(check.input, "dangerouslyDisableSandbox", False))
    if sandbox.auto_allows(check.tool_use_id, command, disable):
        return PermissionDecision("allow", source=AUTO_ALLOW_SOURCE)
    return decision
