"""Stopping the settings watch (the session ends, `-p` finishes) leaves no watcher running behind it."""

from __future__ import annotations

import asyncio


def running_watchers() -> list[asyncio.Task]:
    return [t for t in asyncio.all_tasks() if t.get_name() == "settings-watch" and not t.done()]


async def test_stopping_the_watch_ends_the_watcher_task(env) -> None:
    engine = env.engine()
    await engine.start_watching()
    assert len(running_watchers()) == 1
    await engine.stop_watching()
    assert running_watchers() == []
    # and it can be started again afterwards
    await engine.start_watching()
    assert len(running_watchers()) == 1
    await engine.stop_watching()
    assert running_watchers() == []
