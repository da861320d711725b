"""The four modes, their precedence against rules, live switching and Shift+Tab cycling."""

from __future__ import annotations

from tui_agent.core.permissions import PLAN_MODE_MESSAGE


async def test_default_mode(env) -> None:
    engine = env.engine()
    assert engine.mode == "default"
    assert (await engine.decide(env.check("Read", file_path="src/a.py"))).behavior == "allow"
    assert (await engine.decide(env.check("Edit", file_path="src/a.py"))).behavior == "ask"
    assert (await engine.decide(env.check("Bash", command="rm x"))).behavior == "ask"
    assert (await engine.decide(env.check("Bash", command="ls"))).behavior == "allow"
    assert engine.denials == []


async def test_accept_edits_mode(env) -> None:
    engine = env.engine(mode="acceptEdits")
    inside = await engine.decide(env.check("Write", file_path="src/new.py"))
    assert (inside.behavior, inside.source) == ("allow", "mode acceptEdits")
    assert (await engine.decide(env.check("Edit", file_path="src/a.py"))).behavior == "allow"
    # Outside the workspace (also through a symlink) it still asks; shell commands still ask.
    assert (await engine.decide(env.check("Write", file_path=f"{env.outside}/f"))).behavior == "ask"
    assert (await engine.decide(env.check("Write", file_path="out_link/f"))).behavior == "ask"
    assert (await engine.decide(env.check("Bash", command="rm x"))).behavior == "ask"
    # A redirect into the workspace is an edit, so only the command itself still needs allowing.
    env.write(env.project_settings, {"permissions": {"allow": ["Bash(make *)"]}})
    engine = env.engine(mode="acceptEdits")
    assert (await engine.decide(env.check("Bash", command="make > build.log"))).behavior == "allow"


async def test_accept_edits_does_not_beat_deny_or_ask(env) -> None:
    env.write(env.project_settings, {"permissions": {"deny": ["Edit(./secrets/**)"], "ask": ["Edit(*.lock)"]}})
    engine = env.engine(mode="acceptEdits")
    assert (await engine.decide(env.check("Edit", file_path="secrets/k"))).behavior == "deny"
    assert (await engine.decide(env.check("Edit", file_path="src/x.lock"))).behavior == "ask"


async def test_plan_mode(env) -> None:
    env.write(env.project_settings, {"permissions": {"allow": ["Bash(make *)", "Edit"]}})
    engine = env.engine(mode="plan")
    assert (await engine.decide(env.check("Read", file_path="src/a.py"))).behavior == "allow"
    assert (await engine.decide(env.check("Grep", path="src"))).behavior == "allow"
    assert (await engine.decide(env.check("Bash", command="ls | grep x"))).behavior == "allow"
    for check in (
        env.check("Edit", "t1", file_path="src/a.py"),
        env.check("Bash", "t2", command="make"),
        env.check("Bash", "t3", command='echo "x'),
        env.check("WebFetch", "t4"),
    ):
        decision = await engine.decide(check)
        assert decision.behavior == "deny"
        assert decision.message == PLAN_MODE_MESSAGE and "Plan mode" in decision.message
        assert decision.source == "mode plan"
    assert [d["tool_use_id"] for d in engine.denials] == ["t1", "t2", "t3", "t4"]
    assert engine.denials[0] == {"tool_name": "Edit", "tool_use_id": "t1", "tool_input": {"file_path": "src/a.py"}}


async def test_bypass_mode_allows_all_but_deny_rules(env) -> None:
    env.write(env.project_settings, {"permissions": {"deny": ["Bash(rm *)"], "ask": ["Bash(git push *)"]}})
    engine = env.engine(mode="bypassPermissions")
    assert (await engine.decide(env.check("Bash", command="curl x | sh"))).behavior == "allow"
    assert (await engine.decide(env.check("Write", file_path=f"{env.outside}/f"))).behavior == "allow"
    assert (await engine.decide(env.check("Bash", command='echo "x'))).behavior == "allow"
    assert (await engine.decide(env.check("Bash", command="ls && rm -rf x"))).behavior == "deny"
    assert (await engine.decide(env.check("Bash", command="git push"))).behavior == "ask"


async def test_mode_switches_live(env) -> None:
    engine = env.engine()
    check = env.check("Edit", file_path="src/a.py")
    assert (await engine.decide(check)).behavior == "ask"
    engine.mode = "acceptEdits"
    assert (await engine.decide(check)).behavior == "allow"
    engine.mode = "plan"
    assert (await engine.decide(check)).behavior == "deny"
    engine.mode = "default"
    assert (await engine.decide(check)).behavior == "ask"


def test_cycle_mode(env) -> None:
    engine = env.engine()
    assert [engine.cycle_mode() for _ in range(4)] == ["acceptEdits", "plan", "default", "acceptEdits"]
    bypass = env.engine(mode="bypassPermissions")
    assert [bypass.cycle_mode() for _ in range(4)] == ["default", "acceptEdits", "plan", "bypassPermissions"]


def test_default_mode_from_settings_and_flag_precedence(env) -> None:
    env.write(env.user_settings, {"permissions": {"defaultMode": "plan"}})
    assert env.engine().mode == "plan"
    env.write(env.local_settings, {"permissions": {"defaultMode": "acceptEdits"}})
    assert env.engine().mode == "acceptEdits"  # the more specific file wins
    assert env.engine(mode="default").mode == "default"  # the flag wins over files


def test_bypass_from_settings_is_refused(env) -> None:
    env.write(env.project_settings, {"permissions": {"defaultMode": "bypassPermissions"}})
    engine = env.engine()
    assert engine.mode == "default"
    assert any("bypassPermissions" in p for p in engine.problems)
    assert any("bypassPermissions" in t for t in env.warnings())
