"""What each answer to a permission question leaves behind (`PermissionEngine.remember`): a deny records the
denial and allows nothing; "don't ask again" saves every part's rule of a compound line; a question the engine
did not raise itself (a hook's ask) grants the first, narrowest suggestion only."""

from __future__ import annotations

import json
from dataclasses import replace

from tui_agent.core.permission_types import PermissionAnswer

from tests.core.permissions.test_permission_remember import request_for


async def test_a_deny_records_the_denial_and_allows_nothing_whatever_the_request_suggests(env) -> None:
    engine = env.engine()
    check = env.check("Bash", command="make && npm test > log")
    decision = await engine.decide(check)
    assert decision.behavior == "ask" and decision.suggestions
    engine.remember(request_for(check, decision), PermissionAnswer("deny", rule="Bash(make *)"))
    assert engine.denials == [{"tool_name": "Bash", "tool_use_id": check.tool_use_id, "tool_input": check.raw_input}]
    assert engine.session_rules() == [] and not env.local_settings.exists()
    assert (await engine.decide(env.check("Bash", "toolu_2", command="make && npm test > log"))).behavior == "ask"


async def test_dont_ask_again_for_a_compound_line_saves_every_parts_rule(env) -> None:
    engine = env.engine()
    check = env.check("Bash", command="make && npm test > log")
    decision = await engine.decide(check)
    engine.remember(request_for(check, decision), PermissionAnswer("allow_always"))
    saved = json.loads(env.local_settings.read_text())["permissions"]["allow"]
    assert saved == ["Bash(make *)", "Bash(npm test *)", "Edit(./**)"]
    assert engine.session_rules() == []
    assert (await engine.decide(env.check("Bash", "toolu_2", command="make && npm test > log"))).behavior == "allow"


async def test_a_question_the_engine_did_not_raise_grants_only_the_narrowest_suggestion(env) -> None:
    engine = env.engine()
    decided = await engine.decide(env.check("Bash", "toolu_decided", command="npm run test --watch"))
    assert decided.suggestions == ("Bash(npm run test *)", "Bash(npm run *)", "Bash(npm *)")
    # A PreToolUse hook's "ask" for another call: the same suggestions, no grants of the engine's own.
    asked = replace(request_for(env.check("Bash", "toolu_hook", command="npm run test --watch"), decided), tool_use_id="toolu_hook")
    engine.remember(asked, PermissionAnswer("allow_session"))
    assert engine.session_rules() == ["Bash(npm run test *)"]
    assert (await engine.decide(env.check("Bash", "toolu_3", command="npm run build"))).behavior == "ask"


async def test_a_rule_the_user_wrote_saves_with_its_folder_meaning_and_says_so_once(env) -> None:
    """`/src/**` is the project's src (the settings file's project), `~/notes/**` the home's notes; saving says
    "Saved", and the settings reload it causes is not reported again as a change."""
    engine = env.engine()
    check = env.check("Write", file_path="src/deep/x.py")
    decision = await engine.decide(check)
    engine.remember(request_for(check, decision), PermissionAnswer("allow_always", rule="Edit(/src/**)"))
    engine.remember(request_for(check, decision), PermissionAnswer("allow_always", rule="Read(~/notes/**)"))
    assert json.loads(env.local_settings.read_text())["permissions"]["allow"] == ["Edit(/src/**)", "Read(~/notes/**)"]
    saved = [f"Saved {rule} to {env.local_settings}" for rule in ("Edit(/src/**)", "Read(~/notes/**)")]
    assert [text for level, text in env.notices if level == "info"] == saved
    assert env.warnings() == []
    assert (await engine.decide(env.check("Read", "toolu_4", file_path=str(env.home / "notes" / "n.txt")))).behavior == "allow"
    assert (await engine.decide(env.check("Write", "toolu_2", file_path="src/other.py"))).behavior == "allow"
    assert (await engine.decide(env.check("Write", "toolu_3", file_path="top.py"))).behavior == "ask"


async def test_session_rules_the_user_wrote_keep_their_folder_meaning(env) -> None:
    engine = env.engine()
    note = env.home / "notes" / "n.txt"
    check = env.check("Read", file_path=str(note))
    decision = await engine.decide(check)
    assert decision.behavior == "ask"
    engine.remember(request_for(check, decision), PermissionAnswer("allow_session", rule="Read(~/notes/**)"))
    engine.remember(request_for(check, decision), PermissionAnswer("allow_session", rule="Edit(/src/**)"))
    assert engine.session_rules() == ["Read(~/notes/**)", "Edit(/src/**)"] and env.warnings() == []
    assert (await engine.decide(env.check("Read", "toolu_2", file_path=str(note)))).behavior == "allow"
    assert (await engine.decide(env.check("Write", "toolu_3", file_path="src/deep/y.py"))).behavior == "allow"
