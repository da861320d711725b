"""Settings files: locations, merging and precedence, command-line rules, malformed files, live reload."""

from __future__ import annotations

from tui_agent.core.permissions import find_project_root, split_rule_list


async def test_files_merge_and_deny_wins(env) -> None:
    env.write(env.user_settings, {"permissions": {"allow": ["Bash(rm *)", "Bash(make *)"]}})
    env.write(env.project_settings, {"permissions": {"deny": ["Bash(rm *)"]}})
    env.write(env.local_settings, {"permissions": {"allow": ["Bash(npm *)"]}})
    env.write(env.home / ".config" / "tui-agent" / "settings.json", {"permissions": {"allow": ["WebFetch"]}})
    extra = env.write(env.outside / "extra.json", {"permissions": {"ask": ["Bash(npm publish *)"]}})
    engine = env.engine(settings_file=extra)
    assert (await engine.decide(env.check("Bash", command="rm x"))).behavior == "deny"
    assert (await engine.decide(env.check("Bash", command="make && npm test"))).behavior == "allow"
    assert (await engine.decide(env.check("Bash", command="npm publish"))).behavior == "ask"
    assert (await engine.decide(env.check("WebFetch"))).behavior == "allow"
    assert set(engine.rules_in_force()) == {
        ("deny", "Bash(rm *)", str(env.project_settings)),
        ("ask", "Bash(npm publish *)", str(extra)),
        ("allow", "Bash(rm *)", str(env.user_settings)),
        ("allow", "Bash(make *)", str(env.user_settings)),
        ("allow", "WebFetch", str(env.home / ".config" / "tui-agent" / "settings.json")),
        ("allow", "Bash(npm *)", str(env.local_settings)),
    }
    assert engine.rules_in_force()[0][0] == "deny"
    decision = await engine.decide(env.check("Bash", command="rm x"))
    assert decision.source == f"Bash(rm *) in {env.project_settings}"


async def test_command_line_rules(env) -> None:
    engine = env.engine(allowed_tools=["Bash(npm run test *),Edit Read"], disallowed_tools=["Bash(git push *)", "WebFetch"])
    assert (await engine.decide(env.check("Bash", command="npm run test --watch"))).behavior == "allow"
    assert (await engine.decide(env.check("Write", file_path="src/x.py"))).behavior == "allow"
    deny = await engine.decide(env.check("Bash", command="git push"))
    assert (deny.behavior, deny.source) == ("deny", "Bash(git push *) in --disallowedTools")
    assert (await engine.decide(env.check("WebFetch"))).behavior == "deny"
    assert ("allow", "Edit", "--allowedTools") in engine.rules_in_force()


def test_split_rule_list() -> None:
    assert split_rule_list("Bash(npm run test),Read  Edit(./src/**), Bash(git log:*)") == [
        "Bash(npm run test)",
        "Read",
        "Edit(./src/**)",
        "Bash(git log:*)",
    ]


async def test_project_root_is_git_root_and_slash_rules_are_relative_to_it(env) -> None:
    sub = env.project / "src"
    assert find_project_root(sub) == env.project
    assert find_project_root(env.outside) == env.outside
    env.write(env.project_settings, {"permissions": {"allow": ["Edit(/src/deep/**)", "Edit(./a.py)"]}})
    engine = env.engine(cwd=sub)
    assert engine.project_dir == env.project
    # `/x` is relative to the project root; `./x` to the working folder (src/).
    assert (await engine.decide(env.check("Edit", file_path=str(sub / "deep" / "x.py")))).behavior == "allow"
    assert (await engine.decide(env.check("Edit", file_path=str(sub / "a.py")))).behavior == "allow"
    assert (await engine.decide(env.check("Edit", file_path=str(env.project / "a.py")))).behavior == "ask"


def test_user_slash_rules_are_relative_to_home_and_additional_directories(env) -> None:
    env.write(env.user_settings, {"permissions": {"allow": ["Edit(/notes/**)"], "additionalDirectories": ["~/notes", "../outside"]}})
    env.write(env.project_settings, {"permissions": {"additionalDirectories": ["../outside"]}})
    engine = env.engine()
    rule = engine.settings.rules("allow")[0]
    assert rule.path_pattern is not None and rule.path_pattern.base == env.home
    assert engine.additional_directories == [env.home / "notes", env.home.parent / "outside"]


async def test_bad_json_file_is_reported_and_ignored(env) -> None:
    env.write(env.project_settings, '{"permissions": {"deny": ["Bash(rm *)"]')
    env.write(env.user_settings, {"permissions": {"allow": ["Bash(make *)"]}})
    engine = env.engine()
    assert len(engine.problems) == 1
    assert str(env.project_settings) in engine.problems[0] and "invalid JSON" in engine.problems[0]
    assert env.warnings() == engine.problems
    assert (await engine.decide(env.check("Bash", command="rm x"))).behavior == "ask"
    assert (await engine.decide(env.check("Bash", command="make"))).behavior == "allow"


async def test_wrong_types_ignore_the_whole_file(env) -> None:
    for data in (
        {"permissions": {"allow": "Bash(make *)"}},
        {"permissions": {"allow": ["Bash(make *)", 3]}},
        {"permissions": {"allow": ["Bash(make *)"], "defaultMode": "yolo"}},
        {"permissions": {"allow": ["Bash(make *)"]}, "hooks": {"PreToolUse": [{"matcher": "(", "hooks": []}]}},
        {"permissions": {"allow": ["Bash(make *)"]}, "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command"}]}]}},
        ["not", "an", "object"],
    ):
        env.notices.clear()
        env.write(env.project_settings, data)
        engine = env.engine()
        assert len(engine.problems) == 1, data
        assert engine.problems[0].startswith(str(env.project_settings)), engine.problems
        assert engine.rules_in_force() == []
        assert (await engine.decide(env.check("Bash", command="make"))).behavior == "ask"


async def test_bad_rule_is_dropped_alone(env) -> None:
    env.write(env.project_settings, {"permissions": {"deny": ["Bash(rm *)", "Bash(oops", "(x)"], "allow": ["Bash(make *)"]}})
    engine = env.engine(allowed_tools=["Bad Rule("])
    problems = engine.problems
    assert any("--allowedTools" in p and "Rule(" in p for p in problems)
    assert any(str(env.project_settings) in p and "'Bash(oops'" in p for p in problems)
    assert any("'(x)'" in p for p in problems)
    assert (await engine.decide(env.check("Bash", command="rm x"))).behavior == "deny"
    assert (await engine.decide(env.check("Bash", command="make"))).behavior == "allow"


def test_unknown_keys_are_kept_quiet(env) -> None:
    env.write(env.project_settings, {"model": "x", "env": {"A": "1"}, "permissions": {"disableBypassPermissionsMode": "disable"}, "hooks": {"PostToolUse": []}})
    assert env.engine().problems == []


async def test_live_reload(env, poll) -> None:
    engine = env.engine()
    check = env.check("Bash", command="make")
    assert (await engine.decide(check)).behavior == "ask"
    await engine.start_watching()
    try:
        # The .claude folder doesn't exist yet: the watcher must notice it being created, then the file.
        env.write(env.project_settings, {"permissions": {"allow": ["Bash(make *)", "Bash(npm *)"]}})

        async def allowed() -> bool:
            return (await engine.decide(check)).behavior == "allow"

        await poll(allowed)
        assert ("info", f"Permissions reloaded from {env.project_settings}: +2 rules / -0 rules") in env.notices
        env.write(env.project_settings, {"permissions": {"deny": ["Bash(make *)"]}})

        async def denied() -> bool:
            return (await engine.decide(check)).behavior == "deny"

        await poll(denied)
        assert ("info", f"Permissions reloaded from {env.project_settings}: +1 rules / -2 rules") in env.notices
        # A file turning malformed is reported and ignored.
        env.write(env.project_settings, "{nope")
        await poll(lambda: any("invalid JSON" in p for p in engine.problems))
        assert (await engine.decide(check)).behavior == "ask"
        # The user file (its folder exists from the start) is watched too.
        env.write(env.user_settings, {"permissions": {"allow": ["Bash(make *)"]}})
        await poll(allowed)
    finally:
        await engine.stop_watching()
    env.write(env.user_settings, {"permissions": {"deny": ["Bash(make *)"]}})
    assert (await engine.decide(check)).behavior == "allow"  # no longer watching


async def test_stop_watching_without_start(env) -> None:
    engine = env.engine()
    await engine.stop_watching()
    await engine.start_watching()
    await engine.start_watching()
    await engine.stop_watching()
    assert engine.problems == []
