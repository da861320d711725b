"""The settings watch follows a `.claude/` folder created while it runs: the project's settings file, written
into the new folder, is picked up, and so is every later edit of it (the watch moves into the new folder),
without the watch ever failing and retrying on the way."""

from __future__ import annotations


async def test_a_claude_folder_created_while_watching_is_watched_from_then_on(env, poll) -> None:
    (env.home / ".claude").mkdir()
    engine = env.engine()
    check = env.check("Bash", command="make")

    def behavior_is(expected: str):
        async def check_now() -> bool:
            return (await engine.decide(check)).behavior == expected
        return check_now

    await engine.start_watching()
    try:
        # the watch is running: an edit of the user's file (its folder exists) is picked up
        env.write(env.user_settings, {"permissions": {"allow": ["Bash(make *)"]}})
        await poll(behavior_is("allow"))
        # the project's .claude/ does not exist yet: creating it with a file in it is noticed ...
        assert not env.project_settings.parent.exists()
        env.write(env.project_settings, {"permissions": {"deny": ["Bash(make *)"]}})
        await poll(behavior_is("deny"))
        # ... and the file's later edits too, now that the watch is in the new folder
        env.write(env.project_settings, {"permissions": {"ask": ["Bash(make *)"]}})
        await poll(behavior_is("ask"))
        env.write(env.project_settings, {"permissions": {}})
        await poll(behavior_is("allow"))
    finally:
        await engine.stop_watching()
    assert env.warnings() == [], "each folder watched is one that exists: no failed watch, no retries"
