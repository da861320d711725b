"""The ask channel: suggestions, session grants, always-allow rules saved to settings.local.json, denials."""

from __future__ import annotations

import json

from tui_agent.core.permission_types import PermissionAnswer, PermissionRequest


def request_for(check, decision) -> PermissionRequest:
    return PermissionRequest(
        id="req1",
        tool_use_id=check.tool_use_id,
        tool_name=check.tool.name,
        input=check.raw_input,
        summary=check.tool.summarize(check.input),
        read_only=check.read_only,
        reason=decision.message,
        suggestions=decision.suggestions,
    )


async def test_suggestions(env) -> None:
    engine = env.engine(allowed_tools=["Bash(make *)"])
    cases = {
        ("Bash", "npm run test --watch"): ("Bash(npm run test *)", "Bash(npm run *)", "Bash(npm *)"),
        ("Bash", "rm -rf build"): ("Bash(rm *)",),
        ("Bash", "FOO=1 timeout 5 git commit -m 'x y'"): ("Bash(git commit *)", "Bash(git *)"),
        ("Bash", "make && rm x | tee out"): ("Bash(rm x *)", "Bash(rm *)", "Bash(tee out *)", "Bash(tee *)"),
        ("Bash", 'echo "x'): (),
    }
    for (tool, command), expected in cases.items():
        decision = await engine.decide(env.check(tool, command=command))
        assert decision.behavior == "ask"
        assert decision.suggestions == expected, command
    edit = await engine.decide(env.check("Edit", file_path="src/deep/x.py"))
    assert edit.suggestions == ("Edit(./src/deep/**)", "Edit(./src/**)")
    top = await engine.decide(env.check("Write", file_path="new.txt"))
    assert top.suggestions == ("Edit(./**)",)
    outside = await engine.decide(env.check("Write", file_path=f"{env.outside}/f"))
    assert outside.suggestions == (f"Edit(/{env.outside}/**)",)
    assert "outside the workspace" in outside.message
    assert (await engine.decide(env.check("WebFetch"))).suggestions == ("WebFetch",)
    redirect = await engine.decide(env.check("Bash", command="make > out/log.txt"))
    assert redirect.suggestions == ("Edit(./out/**)",)


async def test_allow_session(env) -> None:
    engine = env.engine()
    check = env.check("Bash", command="npm run test --watch")
    decision = await engine.decide(check)
    engine.remember(request_for(check, decision), PermissionAnswer("allow_session"))
    assert engine.session_rules() == ["Bash(npm run test *)"]
    assert (await engine.decide(env.check("Bash", command="npm run test"))).behavior == "allow"
    assert (await engine.decide(env.check("Bash", command="npm run build"))).behavior == "ask"
    assert ("allow", "Bash(npm run test *)", "session") in engine.rules_in_force()
    assert not env.local_settings.exists()
    # An edited, broader rule.
    engine.remember(request_for(check, decision), PermissionAnswer("allow_session", rule="Bash(npm *)"))
    assert (await engine.decide(env.check("Bash", command="npm run build"))).behavior == "allow"
    assert engine.revoke_session_rule("Bash(npm *)") is True
    assert engine.revoke_session_rule("Bash(npm *)") is False
    assert (await engine.decide(env.check("Bash", command="npm run build"))).behavior == "ask"
    # A new engine (a new session) starts without them.
    assert env.engine().session_rules() == []


async def test_allow_session_for_compound_grants_every_part(env) -> None:
    engine = env.engine()
    check = env.check("Bash", command="make && npm test > log")
    decision = await engine.decide(check)
    engine.remember(request_for(check, decision), PermissionAnswer("allow_session"))
    assert engine.session_rules() == ["Bash(make *)", "Bash(npm test *)", "Edit(./**)"]
    assert (await engine.decide(check)).behavior == "allow"


async def test_allow_always_writes_local_settings_and_applies_at_once(env) -> None:
    env.write(env.local_settings, {"model": "keep-me", "permissions": {"allow": ["Bash(ls *)"], "deny": ["Read(./secrets/**)"]}})
    engine = env.engine()
    check = env.check("Bash", command="npm run test --watch")
    decision = await engine.decide(check)
    engine.remember(request_for(check, decision), PermissionAnswer("allow_always"))
    data = json.loads(env.local_settings.read_text())
    assert data == {
        "model": "keep-me",
        "permissions": {"allow": ["Bash(ls *)", "Bash(npm run test *)"], "deny": ["Read(./secrets/**)"]},
    }
    allowed = await engine.decide(env.check("Bash", command="npm run test"))
    assert (allowed.behavior, allowed.source) == ("allow", f"Bash(npm run test *) in {env.local_settings}")
    assert engine.session_rules() == []
    assert ("info", f"Saved Bash(npm run test *) to {env.local_settings}") in env.notices
    # Saving the same rule twice doesn't duplicate it; a new engine (next session) still has it.
    engine.remember(request_for(check, decision), PermissionAnswer("allow_always", rule="Bash(npm run test *)"))
    assert json.loads(env.local_settings.read_text())["permissions"]["allow"].count("Bash(npm run test *)") == 1
    assert (await env.engine().decide(env.check("Bash", command="npm run test"))).behavior == "allow"


async def test_allow_always_creates_the_file(env) -> None:
    engine = env.engine()
    check = env.check("Edit", file_path="src/a.py")
    decision = await engine.decide(check)
    engine.remember(request_for(check, decision), PermissionAnswer("allow_always"))
    assert json.loads(env.local_settings.read_text()) == {"permissions": {"allow": ["Edit(./src/**)"]}}
    assert (await engine.decide(env.check("Write", file_path="src/b.py"))).behavior == "allow"


async def test_allow_always_into_a_broken_file_falls_back_to_session(env) -> None:
    env.write(env.local_settings, "{broken")
    engine = env.engine()
    check = env.check("Bash", command="make")
    decision = await engine.decide(check)
    engine.remember(request_for(check, decision), PermissionAnswer("allow_always"))
    assert env.local_settings.read_text() == "{broken"
    assert engine.session_rules() == ["Bash(make *)"]
    assert any("Could not save" in p for p in engine.problems)
    assert (await engine.decide(check)).behavior == "allow"


async def test_bad_edited_rule_is_reported(env) -> None:
    engine = env.engine()
    check = env.check("Bash", command="make")
    decision = await engine.decide(check)
    engine.remember(request_for(check, decision), PermissionAnswer("allow_session", rule="Bash(make"))
    assert engine.session_rules() == []
    assert any("Bash(make" in p for p in engine.problems)


async def test_allow_once_keeps_nothing(env) -> None:
    engine = env.engine()
    check = env.check("Bash", command="make")
    decision = await engine.decide(check)
    engine.remember(request_for(check, decision), PermissionAnswer("allow_once"))
    assert engine.session_rules() == [] and engine.denials == []
    assert (await engine.decide(check)).behavior == "ask"


async def test_user_deny_is_recorded_once(env) -> None:
    engine = env.engine()
    check = env.check("Bash", "toolu_9", command="rm -rf x")
    decision = await engine.decide(check)
    engine.remember(request_for(check, decision), PermissionAnswer("deny", words="no"))
    engine.record_denial("Bash", "toolu_9", {"command": "rm -rf x"})
    assert engine.denials == [{"tool_name": "Bash", "tool_use_id": "toolu_9", "tool_input": {"command": "rm -rf x"}}]


async def test_rule_denials_are_recorded(env) -> None:
    env.write(env.project_settings, {"permissions": {"deny": ["Bash(rm *)"]}})
    engine = env.engine()
    decision = await engine.decide(env.check("Bash", "toolu_2", command="FOO=1 rm -rf x"))
    assert decision.behavior == "deny" and "Bash(rm *)" in decision.message
    assert engine.denials == [{"tool_name": "Bash", "tool_use_id": "toolu_2", "tool_input": {"command": "FOO=1 rm -rf x"}}]


async def test_ask_rule_offers_no_allow_rule(env) -> None:
    env.write(env.project_settings, {"permissions": {"ask": ["Bash(git push *)"]}})
    decision = await env.engine().decide(env.check("Bash", command="git push"))
    assert decision.behavior == "ask" and decision.suggestions == ()
    assert decision.source == f"Bash(git push *) in {env.project_settings}"
