"""Permission rules, modes, settings files and PreToolUse hooks; `PermissionEngine` is the loop's policy."""

from .engine import PLAN_MODE_MESSAGE, PermissionEngine
from .hooks import HookOutcome, HookSpec
from .rules import Rule, RuleError, parse_rule, split_rule_list
from .settings import SettingsError, find_project_root

__all__ = [
    "PLAN_MODE_MESSAGE",
    "HookOutcome",
    "HookSpec",
    "PermissionEngine",
    "Rule",
    "RuleError",
    "SettingsError",
    "find_project_root",
    "parse_rule",
    "split_rule_list",
]
