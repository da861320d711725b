"""`PermissionEngine.decide_read`: the one path check behind every read made for the model (core/access.py:
`@file` mentions, CLAUDE.md imports, the paths a shell reader names). Deny rules first, then ask rules, then
allow rules, then the working folders; outside them it asks. Each answer names the rule that decided, in the
words the model and the dialog show."""

from __future__ import annotations

from pathlib import Path

from tui_agent.core.access import WORKSPACE_SOURCE


def _rule_for(path: Path) -> str:
    return f"//{path.as_posix().lstrip('/')}/**"


def test_a_deny_rule_wins_over_every_allow_and_says_which_rule(env) -> None:
    engine = env.engine(allowed_tools=["Read"], disallowed_tools=["Read(./secrets/**)"])
    target = env.project / "secrets" / "key"
    decision = engine.decide_read(target, env.workspace)
    assert (decision.behavior, decision.source) == ("deny", "Read(./secrets/**) in --disallowedTools")
    assert decision.message == f"Reading {target} is denied by rule Read(./secrets/**) in --disallowedTools."


def test_an_ask_rule_asks_even_inside_the_working_folder_and_over_an_allow(env) -> None:
    env.write(env.project_settings, {"permissions": {"ask": ["Read(./src/**)"], "allow": ["Read(./src/**)"]}})
    engine = env.engine()
    target = env.project / "src" / "a.py"
    decision = engine.decide_read(target, env.workspace)
    where = f"Read(./src/**) in {env.project_settings}"
    assert (decision.behavior, decision.source) == ("ask", where)
    assert decision.message == f"{where} asks before {target} is read."


def test_an_allow_rule_lets_a_read_outside_the_working_folder_through_and_is_named(env) -> None:
    rule = f"Read({_rule_for(env.outside)})"
    engine = env.engine(allowed_tools=[rule])
    decision = engine.decide_read(env.outside / "f", env.workspace)
    assert (decision.behavior, decision.source, decision.message) == ("allow", f"{rule} in --allowedTools", "")


def test_the_whole_read_tool_allowed_covers_any_path(env) -> None:
    decision = env.engine(allowed_tools=["Read"]).decide_read(env.outside / "f", env.workspace)
    assert (decision.behavior, decision.source) == ("allow", "Read in --allowedTools")


def test_rules_of_other_tools_do_not_decide_a_read(env) -> None:
    other = f"Edit({_rule_for(env.outside)})"
    engine = env.engine(allowed_tools=[other, "Bash"], disallowed_tools=["Edit(./src/**)", "Write"])
    assert engine.decide_read(env.outside / "f", env.workspace).behavior == "ask"
    assert engine.decide_read(env.project / "src" / "a.py", env.workspace).source == WORKSPACE_SOURCE


def test_inside_the_working_folder_reads_are_allowed_by_no_rule_and_outside_they_ask(env) -> None:
    engine = env.engine()
    inside = engine.decide_read(env.project / "src" / "a.py", env.workspace)
    assert (inside.behavior, inside.source, inside.message) == ("allow", WORKSPACE_SOURCE, "")
    target = env.outside / "f"
    outside = engine.decide_read(str(target), env.workspace)  # a string path is the same path
    assert (outside.behavior, outside.source, outside.message) == ("ask", "", f"{target} is outside the workspace.")


def test_a_read_rule_for_a_file_is_not_taken_for_a_write(env) -> None:
    """The path is checked as a read: a deny on writing it (Edit) leaves reading it alone."""
    engine = env.engine(disallowed_tools=["Edit(./src/**)"])
    assert engine.decide_read(env.project / "src" / "a.py", env.workspace).behavior == "allow"


def test_an_allow_rule_sees_where_a_link_leads_and_a_deny_rule_sees_the_link_too(env) -> None:
    """`out_link` inside the project points at the outside folder. An allow rule written for the link's path
    does not let the model read where it leads (allow rules match the resolved path only); a deny or ask rule
    written for it holds whichever way the file is named."""
    through_link = env.project / "out_link" / "f"
    allowed = env.engine(allowed_tools=["Read(./out_link/**)"]).decide_read(through_link, env.workspace)
    assert (allowed.behavior, allowed.source) == ("ask", "")
    assert allowed.message == f"{env.outside / 'f'} is outside the workspace."
    denied = env.engine(allowed_tools=["Read"], disallowed_tools=["Read(./out_link/**)"]).decide_read(through_link, env.workspace)
    assert (denied.behavior, denied.source) == ("deny", "Read(./out_link/**) in --disallowedTools")


def test_the_whole_read_tool_asked_for_asks_for_every_path_even_inside(env) -> None:
    env.write(env.project_settings, {"permissions": {"ask": ["Read"]}})
    engine = env.engine(allowed_tools=["Read(./src/**)"])
    target = env.project / "src" / "a.py"
    decision = engine.decide_read(target, env.workspace)
    assert (decision.behavior, decision.source) == ("ask", f"Read in {env.project_settings}")
    assert decision.message == f"Read in {env.project_settings} asks before {target} is read."


def test_a_rule_for_the_files_in_a_folder_does_not_cover_the_folder_itself(env) -> None:
    """`Read(./.*)` keeps the model from the project's top-level dotfiles; it does not forbid searching the
    project folder itself (only a pattern for everything below, `./**`, covers the folder)."""
    engine = env.engine(disallowed_tools=["Read(./.*)"])
    assert engine.decide_read(env.project / ".env", env.workspace).behavior == "deny"
    assert engine.decide_read(env.project, env.workspace).behavior == "allow"
    everything = env.engine(disallowed_tools=["Read(./**)"])
    assert everything.decide_read(env.project, env.workspace).behavior == "deny"
