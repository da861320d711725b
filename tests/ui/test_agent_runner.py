"""The core on its own thread: commands reach it from the UI thread, a busy core never blocks the UI."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from tui_agent.config import AgentSettings
from tui_agent.core.permission_types import PermissionAnswer, PermissionRequest
from tui_agent.factory import build_agent
from tui_agent.providers.scripted import Reply, ScriptedModel, Text, ToolUse
from tui_agent.ui.agent_runner import AgentRunner

from tests.ui.app_support import build, isolate, project_at, transcript_text, trust_for_tests, until, until_idle
from tests.ui.app_support import type_keys


@pytest.fixture
def project(tmp_path: Path, monkeypatch: Any) -> Path:
    isolate(monkeypatch, tmp_path)
    return project_at(tmp_path / "project")


async def test_an_abort_sent_before_the_run_has_begun_still_stops_it(project: Path) -> None:
    runner = AgentRunner()
    try:
        script = [Reply([Text("word " * 5000)], chunk=5, delay=0.01)]
        runner.build(lambda: build_agent(AgentSettings(cwd=project), scripted=ScriptedModel(script))).result(60)
        run = runner.run("go")
        runner.abort()  # typically lands before the run's first step
        ended = await asyncio.wait_for(asyncio.wrap_future(run), 60)
        assert ended.reason == "aborted"
    finally:
        await runner.shutdown(5)


async def test_an_ask_is_answered_on_the_ui_loop_and_withdrawn_when_the_core_stops_waiting(project: Path) -> None:
    runner = AgentRunner()
    ui_loop = asyncio.get_running_loop()
    seen: list[tuple[str, bool]] = []
    asked = asyncio.Event()
    withdrawn = asyncio.Event()

    async def ask(request: PermissionRequest) -> PermissionAnswer:
        seen.append((request.id, asyncio.get_running_loop() is ui_loop))
        if request.id == "slow":
            asked.set()
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                withdrawn.set()
                raise
        return PermissionAnswer("allow_once")

    handler = runner.ask_on(ui_loop, ask)
    request = PermissionRequest(id="r1", tool_use_id="t1", tool_name="Bash", input={"command": "ls"}, summary="ls", read_only=False)
    try:
        assert (await asyncio.wrap_future(runner.submit(handler(request)))) == PermissionAnswer("allow_once")
        slow = runner.submit(handler(PermissionRequest(id="slow", tool_use_id="t2", tool_name="Bash", input={"command": "ls"}, summary="ls", read_only=False)))
        await asyncio.wait_for(asked.wait(), 60)
        slow.cancel()  # the core's task gave up (an abort): the UI side's wait ends too
        await asyncio.wait_for(withdrawn.wait(), 60)
        assert seen == [("r1", True), ("slow", True)]
    finally:
        await runner.shutdown(5)


async def test_keys_echo_and_esc_shows_interrupted_while_the_core_thread_is_stuck(project: Path) -> None:
    script = [Reply([Text("Working.\n\n"), ToolUse("Bash", {"command": "sleep 300"})])]
    app, _ = build(project, script, permission_mode="bypassPermissions")
    async with app.run_test(size=(100, 30)) as pilot:
        await type_keys(pilot, *"go", "enter")
        await until(pilot, lambda: any(c.phase == "running" for c in app.calls.calls.values()))
        assert app.runner._thread is not threading.current_thread()
        release = threading.Event()
        app.runner.call(release.wait, 60)  # a synchronous step of the core that takes its time
        await type_keys(pilot, *"typed meanwhile")
        assert app.prompt.text == "typed meanwhile", "keys are echoed while the core is busy"
        await pilot.press("escape")
        assert "Interrupted" in transcript_text(app), "ESC shows at once, whatever the core is doing"
        release.set()
        await until_idle(pilot, app)
        assert all(c.phase == "cancelled" for c in app.calls.calls.values())


def test_the_first_answer_finds_its_drawing_modules_already_imported(tmp_path: Path) -> None:
    # A fresh interpreter (this one has imported everything already): no prompt is ever sent, yet the
    # modules that drawing an answer needs arrive, imported on the core's thread while the app idles.
    code = (
        "import asyncio, sys\n"
        "from tui_agent.config import AgentSettings\n"
        "from tui_agent.ui.app import make_app\n"
        "NEEDED = ('rich.markdown', 'markdown_it', 'linkify_it', 'pygments.lexers.python', 'pygments.lexers._mapping')\n"
        "async def main():\n"
        "    app = make_app(AgentSettings(cwd='.', demo=True))\n"
        "    async with app.run_test(size=(80, 24)) as pilot:\n"
        "        assert 'rich.markdown' not in sys.modules, 'imported on the way to the first frame'\n"
        "        for _ in range(6000):\n"
        "            if all(m in sys.modules for m in NEEDED):\n"
        "                print('warm'); return\n"
        "            await pilot.pause(0.01)\n"
        "        print('missing', [m for m in NEEDED if m not in sys.modules])\n"
        "asyncio.run(main())\n"
    )
    env = {**os.environ, "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CONFIG_HOME": str(tmp_path / ".config")}
    work = tmp_path / "work"
    trust_for_tests(tmp_path, work)  # not the home folder, which asks the trust question on every start
    out = subprocess.run([sys.executable, "-c", code], cwd=work, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["warm"], out.stdout


async def test_the_core_thread_does_not_take_the_gil_from_the_ui_more_often_than_the_switch_interval() -> None:
    from tui_agent.ui.agent_runner import SWITCH_INTERVAL

    before = sys.getswitchinterval()
    sys.setswitchinterval(0.005)  # Python's default
    runner = AgentRunner()
    try:
        assert sys.getswitchinterval() == SWITCH_INTERVAL
    finally:
        await runner.shutdown(5)
        sys.setswitchinterval(before)
