"""A rule is checked against every command a line runs — also those hidden in a redirect's target
(`cat < $(rm x)`), an unquoted here-document body, or behind a leading redirect (`> f FOO=1 rm x`) — and
the rule offered for a wrapper never names the wrapper alone (`env -`, `env --`, `sudo FOO=1`, `flock L`,
`watch --`): accepting it would allow any command after it."""

from __future__ import annotations

import pytest

from tui_agent.core.permission_types import PermissionCheck
from tui_agent.tools.bash import BashTool


def bash(env, command: str) -> PermissionCheck:
    """A check of the real Bash tool (its real read-only classifier, not the table tests' stand-in)."""
    tool = BashTool()
    inp = tool.Input(command=command)
    return PermissionCheck(tool, inp, inp.model_dump(exclude_none=True), "toolu_1", env.workspace, tool.is_read_only(inp))

# With `Bash(cat *)` accepted, each of these runs `rm` too: it must still ask.
HIDDEN_RM = [
    "cat < $(rm -rf build)",
    "cat < <(rm -rf build)",
    "cat < `rm -rf build`",
    "cat <<EOF\n$(rm -rf build)\nEOF",
    "cat <<EOF\n`rm -rf build`\nEOF",
    "cat <<-EOF\n\t$(rm -rf build)\nEOF",
    "cat <<XEND\n$(rm -rf build)\nXEND",  # any unquoted delimiter, whatever its letters
]


@pytest.mark.parametrize("command", HIDDEN_RM, ids=["command substitution", "process substitution", "backquotes", "here-document $()", "here-document backquotes", "here-document <<-", "here-document XEND"])
async def test_an_allowed_cat_does_not_allow_a_command_hidden_in_its_input(env, command) -> None:
    engine = env.engine(allowed_tools=["Bash(cat *)"])
    assert (await engine.decide(bash(env, command))).behavior == "ask"


@pytest.mark.parametrize("command", ["cat < $(rm -rf build)", "cat < <(rm -rf build)"])
async def test_a_denied_command_in_a_redirect_target_is_denied(env, command) -> None:
    engine = env.engine(allowed_tools=["Bash(cat *)"], disallowed_tools=["Bash(rm *)"])
    assert (await engine.decide(bash(env, command))).behavior == "deny"


@pytest.mark.parametrize("command", [
    "cat <<'EOF'\n$(rm -rf build)\nEOF",  # a quoted delimiter: the body is text, nothing runs
    'cat <<"EOF"\n`rm -rf build`\nEOF',
    "cat <<\\EOF\n$(rm -rf build)\nEOF",
    "cat <<EOF\nhome is $HOME\nEOF",  # a parameter expansion runs nothing
    "cat < notes.txt",
], ids=["single-quoted delimiter", "double-quoted delimiter", "escaped delimiter", "parameter expansion", "input file"])
async def test_a_here_document_or_input_that_runs_nothing_is_allowed_by_the_cat_rule(env, command) -> None:
    engine = env.engine(allowed_tools=["Bash(cat *)"])
    assert (await engine.decide(bash(env, command))).behavior == "allow"


async def test_an_assignment_after_a_leading_redirect_does_not_hide_a_denied_command(env) -> None:
    engine = env.engine(disallowed_tools=["Bash(rm *)"])
    decision = await engine.decide(bash(env, "> /dev/null FOO=1 rm -rf build"))
    assert decision.behavior == "deny"


@pytest.mark.parametrize("command, expected", [
    ("env - PATH=/bin make", "Bash(env - PATH=/bin make *)"),
    ("env -- A=1 make", "Bash(env -- A=1 make *)"),
    ("sudo FOO=1 make", "Bash(sudo FOO=1 make *)"),
    ("flock /tmp/x.lock make", "Bash(flock /tmp/x.lock make *)"),
    ("flock -w 5 L make", "Bash(flock -w 5 L make *)"),
    ("flock -n L -c make", "Bash(flock -n L -c make)"),  # -c runs a shell line: only the line as written
    ("flock L --command=make", "Bash(flock L --command=make)"),
    ("watch -- ls", "Bash(watch -- ls)"),  # watch runs a shell line, after `--` too
])
async def test_the_rule_offered_for_a_wrapper_names_the_command_it_runs(env, command, expected) -> None:
    decision = await env.engine().decide(bash(env, command))
    assert decision.behavior == "ask" and decision.suggestions[0] == expected, decision.suggestions


@pytest.mark.parametrize("offered_for, other", [
    ("env - PATH=/bin make", "env - rm -rf build"),
    ("sudo FOO=1 make", "sudo FOO=1 rm -rf build"),
    ("flock /tmp/x.lock make", "flock /tmp/x.lock rm -rf build"),
    ("watch -- ls", "watch -- ls ';rm -rf build'"),
])
async def test_accepting_the_offered_rule_does_not_allow_another_command(env, offered_for, other) -> None:
    offered = (await env.engine().decide(bash(env, offered_for))).suggestions
    engine = env.engine(allowed_tools=list(offered))
    assert (await engine.decide(bash(env, offered_for))).behavior == "allow"
    assert (await engine.decide(bash(env, other))).behavior == "ask"
