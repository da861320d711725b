"""Helpers for driving the real app on a ScriptedModel: a settable clock, a project folder, screen text.

A plain module (not conftest.py) so the e2e tests can import it too."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any, Callable

from textual.pilot import Pilot

from tui_agent.config import AgentSettings
from tui_agent.providers.scripted import ScriptedModel, Handler, Step
from tui_agent.ui.app import TuiAgentApp, make_app


class FakeClock:
    """The app's clock in snapshots: time moves only when the test says so."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def isolate(monkeypatch: Any, root: Path, *, trusted: bool = True) -> None:
    """Keep sessions and user settings out of the real home; the test's folders are trusted in the scratch
    home's config, as a user who said Yes once would have them (else the trust question waits)."""
    monkeypatch.setenv("HOME", str(root / "home"))
    monkeypatch.setenv("XDG_DATA_HOME", str(root / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(root / "home" / ".config"))
    if trusted:
        trust_for_tests(root / "home", root)


def trust_for_tests(home: Path, *folders: Path) -> None:
    """Mark `folders` (and everything below them outside a repository) trusted in `home`'s tui-agent config."""
    from tui_agent.core.trust import remember_trust

    for folder in folders:
        folder.mkdir(parents=True, exist_ok=True)
        remember_trust(folder, home=home, config_dir=home / ".config" / "tui-agent")


def project_at(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "README.md").write_text("# Demo project\nhello\n")
    (folder / "app.py").write_text("def main():\n    return 1\n")
    return folder


def build(
    cwd: Path,
    script: list[Step] | Handler,
    *,
    clock: Callable[[], float] = time.monotonic,
    **settings: Any,
) -> tuple[TuiAgentApp, ScriptedModel]:
    model = ScriptedModel(script)
    app = make_app(AgentSettings(cwd=cwd, **settings), scripted=model, clock=clock)
    return app, model


async def until(pilot: Pilot[Any], predicate: Callable[[], bool], timeout: float = 30.0, step: float = 0.01) -> None:
    """Wait for a state; `timeout` is only a safety net (tests must not depend on the machine's speed).

    It polls with a plain sleep: the app runs on meanwhile (its messages, timers and screen updates). Polling
    with `pilot.pause` posted a message to every widget on the screen and forced a screen update 100 times a
    second (work the test does not need: ~2 % of a profiled sample of UI tests); it is done once, when the
    state is reached, so what the state brought (a screen just pushed, its widgets) has been handled before
    the test looks. A failure of the app ends the wait at once."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if pilot.app._exception is not None:
            raise AssertionError("the app failed while waiting") from pilot.app._exception
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {getattr(predicate, '__name__', predicate)}")
        await asyncio.sleep(step)
    await pilot.pause(0)


async def until_idle(pilot: Pilot[Any], app: TuiAgentApp, timeout: float = 30.0) -> None:
    await until(pilot, lambda: not app.running, timeout)
    await pilot.pause()


def transcript_text(app: TuiAgentApp) -> str:
    """Every line of the conversation, scrolled off or not (flushes pending drawing first)."""
    transcript = app.transcript
    transcript.flush()
    lines = []
    for drawing in transcript._drawings:
        lines.extend(drawing.line(i).text.rstrip() for i in range(drawing.height))  # draws dropped lines again
    return "\n".join(lines)


def lanes_text(app: TuiAgentApp) -> str:
    """The lane panel's content now (whatever height the layout has given it so far)."""
    return str(app.lanes.render())


def sleep_processes(marker: str) -> list[Any]:
    """This test process's descendants whose command line holds `marker` (other tests running on the
    same machine at the same time must not count)."""
    import psutil

    found = []
    for proc in psutil.Process().children(recursive=True):
        try:
            if marker in " ".join(proc.cmdline()) and proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc)
        except psutil.Error:
            pass
    return found


async def wait_until(predicate: Callable[[], bool], timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.005)
    return True


async def past_the_guard(pilot: Pilot[Any], app: TuiAgentApp) -> None:
    """Wait until the permission dialog on screen takes keys: its guard (keys ignored for a moment after it opens)
    is over once its hint shows the keys ("enter choose", "enter send") instead of "…"."""
    from tui_agent.ui.screens.permission import PermissionScreen

    def answerable() -> bool:
        screen = app.screen
        hint = screen.query("#hint") if isinstance(screen, PermissionScreen) and screen.is_mounted else None
        return bool(hint) and "enter " in str(hint.first().render())

    await until(pilot, answerable)


async def type_keys(pilot: Pilot[Any], *keys: str) -> None:
    """Keys as a fast typist's burst (or a terminal's buffered input) sends them: all queued at once, then one
    wait until the app has handled them. `pilot.press` waits for the app to go idle twice after every key
    (40 ms at least each), which made typing most of a UI test's time; the order and the handling are the same."""
    from textual import events
    from textual.keys import _character_to_key

    app = pilot.app
    driver = app._driver
    assert driver is not None
    for key in keys:
        if len(key) == 1 and not key.isalnum():
            key = _character_to_key(key)
        char = keys_char(key)
        driver.send_message(events.Key(key, char))
    await settle(pilot)


async def settle(pilot: Pilot[Any], rounds: int = 100) -> None:
    """Until every message the keys caused, and the messages those caused, has been handled.

    `pilot.pause()` alone decides the app is idle when this process's CPU time stops advancing; on a loaded
    machine the process is simply not scheduled, so it returned with a key's Submitted message still queued.
    Each `_wait_for_screen` handles what was queued when it began; the loop ends when no queue of the app or
    its screen has anything left (work in the agent's own tasks is waited for with `until`)."""
    app = pilot.app
    for _ in range(rounds):
        await pilot._wait_for_screen()
        pumps = [app, *app.screen.walk_children(with_self=True)]
        if all(pump._message_queue.empty() for pump in pumps):
            break
    await pilot.pause()


def keys_char(key: str) -> str | None:
    """The character a key name types, as Textual's pilot works it out (None for keys like "enter")."""
    import unicodedata

    from textual.keys import REPLACED_KEYS, _get_unicode_name_from_key

    try:
        return unicodedata.lookup(_get_unicode_name_from_key(REPLACED_KEYS.get(key, key)))
    except KeyError:
        return key if len(key) == 1 else None
