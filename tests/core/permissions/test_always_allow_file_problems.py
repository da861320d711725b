""""Yes, and don't ask again" saves the rule to `.claude/settings.local.json`: the file keeps the two-space
layout a person reads and edits; a file the rule can't be added to is left as it was, the rule holds for the
session, and the notice says what is wrong with the file."""

from __future__ import annotations

import json

import pytest

from tui_agent.core.permission_types import PermissionAnswer, PermissionRequest


def request_for(check, decision) -> PermissionRequest:
    return PermissionRequest(
        id="req1", tool_use_id=check.tool_use_id, tool_name=check.tool.name, input=check.raw_input,
        summary=check.tool.summarize(check.input), read_only=check.read_only, reason=decision.message,
        suggestions=decision.suggestions,
    )


async def test_the_saved_file_is_indented_for_people_and_ends_with_a_newline(env) -> None:
    env.write(env.local_settings, {"model": "keep-me"})
    engine = env.engine()
    check = env.check("Bash", command="make")
    engine.remember(request_for(check, await engine.decide(check)), PermissionAnswer("allow_always"))
    expected = {"model": "keep-me", "permissions": {"allow": ["Bash(make *)"]}}
    assert env.local_settings.read_text(encoding="utf-8") == json.dumps(expected, indent=2) + "\n"


@pytest.mark.parametrize("content, why", [
    ("{broken", "the file is not valid JSON"),
    ("[]", "the file is not a settings object"),
    ('{"permissions": ["Bash(ls *)"]}', "the file is not a settings object"),
    ('{"permissions": {"allow": "Bash(ls *)"}}', "permissions.allow is not a list"),
], ids=["not-json", "a-list", "permissions-a-list", "allow-not-a-list"])
async def test_a_file_the_rule_cannot_be_added_to_is_kept_and_the_notice_says_why(env, content, why) -> None:
    env.write(env.local_settings, content)
    engine = env.engine()
    check = env.check("Bash", command="make")
    engine.remember(request_for(check, await engine.decide(check)), PermissionAnswer("allow_always"))
    assert env.local_settings.read_text() == content, "the file is left as it was"
    assert engine.session_rules() == ["Bash(make *)"], "the rule holds for this session"
    saved = [p for p in engine.problems if p.startswith("Could not save 'Bash(make *)'")]
    assert len(saved) == 1 and f"{env.local_settings}: cannot add a rule, {why}" in saved[0], engine.problems
    assert saved[0].endswith("; allowed for this session only.")
