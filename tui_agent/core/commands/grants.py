"""A command's or skill's `allowed-tools`, allowed while it runs (Claude Code: "tools Claude can use without
asking permission when this skill is active"): session allow rules added when it starts (typed `/name`, or the
Skill tool) and revoked when the run ends. Rules already in force are left alone."""

from __future__ import annotations

from typing import Any

GRANTS_KEY = "command_grants"  # ToolContext.services: the rules to revoke when the run ends
POLICY_KEY = "command_policy"  # ToolContext.services: the policy the Skill tool widens while a skill runs


def grant(agent_or_ctx: Any, policy: Any, allowed_tools: tuple[str, ...]) -> None:
    services = agent_or_ctx.services
    add = getattr(policy, "_add_session_rule", None)
    if add is None or not allowed_tools:
        return  # a policy without session rules (a test's, a program's own): nothing to widen
    pending: list[str] = services.setdefault(GRANTS_KEY, [])
    for rule in allowed_tools:
        if rule not in policy.session_rules():
            add(rule)
            pending.append(rule)


def revoke_all(services: dict[str, Any], policy: Any) -> None:
    for rule in services.pop(GRANTS_KEY, []):
        policy.revoke_session_rule(rule)
