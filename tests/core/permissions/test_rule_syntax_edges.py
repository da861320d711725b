"""The edges of Claude Code's rule syntax and of rules that remove a tool (core/permissions/rules.py,
mcp_rules.py), and Shift+Tab from a mode outside the cycle: each pinned by a mutant that survived the
other tests (docs/testing/mutation.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.core.permissions.conftest import Env
from tui_agent.core.permissions.mcp_rules import denied_whole
from tui_agent.core.permissions.rules import (
    Rule,
    RuleError,
    compile_bash_pattern,
    parse_rule,
    split_rule_list,
)


def rule(text: Any, tmp_path: Path) -> Rule:
    return parse_rule(text, source="test", rule_dir=tmp_path, cwd=tmp_path, home=tmp_path / "home")


@pytest.mark.parametrize("text", ["Bash()", "Bash(*)", "Bash( * )"])
def test_an_empty_or_star_specifier_is_the_whole_tool(text: str, tmp_path: Path) -> None:
    parsed = rule(text, tmp_path)
    assert parsed.specifier is None and parsed.matches_command("rm -rf build")


def test_a_rule_that_is_not_a_string_or_not_a_rule_says_why(tmp_path: Path) -> None:
    with pytest.raises(RuleError, match=r"^a rule must be a string, got int$"):
        rule(3, tmp_path)
    with pytest.raises(RuleError, match=r"^'Bash\(ls' is not a rule: expected Tool or Tool\(specifier\)$"):
        rule("Bash(ls", tmp_path)


def test_a_star_pattern_matches_a_command_spanning_lines() -> None:
    # a deny rule must still match when the command goes on over several lines
    assert compile_bash_pattern("rm *").fullmatch("rm -rf build \\\n  dist") is not None
    assert compile_bash_pattern("echo *x").fullmatch("echo a\nx") is not None


def test_a_word_prefix_may_be_written_with_several_spaces_before_the_star() -> None:
    pattern = compile_bash_pattern("ls   *")
    assert pattern.fullmatch("ls") and pattern.fullmatch("ls -la") and not pattern.fullmatch("lsof")


def test_an_escaped_space_before_the_star_is_no_word_prefix() -> None:
    pattern = compile_bash_pattern("echo \\ *")
    assert pattern.fullmatch("echo \\ x") and not pattern.fullmatch("echo \\")


def test_nested_parentheses_keep_their_commas_and_spaces_in_an_allowed_tools_list() -> None:
    assert split_rule_list("Bash(echo (a) b,c) Read") == ["Bash(echo (a) b,c)", "Read"]


def test_a_folder_pattern_matches_a_file_only_when_asked_about_a_folder(tmp_path: Path) -> None:
    parsed = rule("Read(/build/)", tmp_path)
    assert not parsed.matches_path(tmp_path / "build")
    assert parsed.matches_path(tmp_path / "build", is_dir=True)


class _Rules:
    def __init__(self, *rules: tuple[str, str]) -> None:
        self._rules = rules

    def rules_in_force(self) -> list[tuple[str, str, str]]:
        return [(kind, text, "test") for kind, text in self._rules]


def test_only_a_bare_deny_rule_removes_a_tool_from_the_request() -> None:
    policy = _Rules(("deny", "Bash(rm -rf:*)"), ("deny", "mcp__github__create_issue(x)"), ("allow", "mcp__git"))
    assert not denied_whole(policy, "Bash")
    assert not denied_whole(policy, "mcp__github__create_issue")
    assert not denied_whole(policy, "mcp__git__status")
    assert denied_whole(_Rules(("deny", " mcp__git ")), "mcp__git__status")
    assert not denied_whole(object(), "Bash")  # a policy without rules (a subagent's stand-in) removes nothing


def test_shift_tab_from_a_mode_outside_the_cycle_goes_to_default(env: Env) -> None:
    engine = env.engine(mode="dontAsk")
    assert [engine.cycle_mode() for _ in range(3)] == ["default", "acceptEdits", "plan"]
