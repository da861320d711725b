"""The app's start: the first frame needs no validation, no core and no SDK; the settings are validated
right after it, and settings that do not validate end the app with the error, as the command line would."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tui_agent import gc_pause
from tui_agent.config import AgentSettings
from tui_agent.raw_settings import RawSettings
from tui_agent.ui.app import make_app
from tui_agent.ui.start_up import SETTINGS_ERROR_EXIT, report_start_error

from tests.ui.app_support import isolate, project_at, wait_until
from tests.ui.app_support import type_keys


def test_nothing_but_the_app_is_imported_before_its_first_frame_is_painted(tmp_path: Path) -> None:
    # A fresh interpreter; the list is taken when the first frame has been painted (the app's
    # after-first-frame step starts), before that step imports anything.
    code = (
        "import asyncio, sys\n"
        "from tui_agent.raw_settings import RawSettings\n"
        "from tui_agent.ui import start_up\n"
        "from tui_agent.ui.app import make_app\n"
        "LATE = ('pydantic', 'tui_agent.config', 'tui_agent.factory', 'tui_agent.core.loop', 'tui_agent.core.session',\n"
        "        'anthropic', 'bashlex', 'rich.markdown', 'pygments')\n"
        "seen = []\n"
        "real = start_up.after_first_frame\n"
        "def after_first_frame(app):\n"
        "    seen.append(sorted(m for m in LATE if m in sys.modules))\n"
        "    real(app)\n"
        "start_up.after_first_frame = after_first_frame\n"
        "async def main():\n"
        "    app = make_app(RawSettings.from_env(cwd='.', demo=True))\n"
        "    async with app.run_test(size=(80, 24)) as pilot:\n"
        "        while not seen:\n"
        "            await pilot.pause(0.01)\n"
        "        print(seen[0], type(app.settings).__name__)\n"
        "asyncio.run(main())\n"
    )
    env = {**os.environ, "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data")}
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["[]", "AgentSettings"], out.stdout


@pytest.mark.parametrize("overrides", [
    {},
    {"demo": True, "permission_mode": "plan"},
    {"model": "claude-opus-4-1", "cwd": "/tmp"},
])
@pytest.mark.parametrize("environ", [{}, {"ANTHROPIC_MODEL": "from-env", "ANTHROPIC_BASE_URL": "http://127.0.0.1:1"}])
def test_the_first_frame_reads_what_the_validated_settings_will_say(monkeypatch: Any, overrides: dict[str, Any], environ: dict[str, str]) -> None:
    for name in ("ANTHROPIC_MODEL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    raw, settings = RawSettings.from_env(**overrides), AgentSettings.from_env(**overrides)
    assert raw.validate() == settings
    assert (raw.model, raw.demo, raw.has_endpoint, raw.permission_mode, raw.cwd) == (
        settings.model, settings.demo, settings.has_endpoint, settings.permission_mode, settings.cwd)


async def test_the_settings_are_validated_and_collection_resumed_right_after_the_first_frame(tmp_path: Path, monkeypatch: Any) -> None:
    isolate(monkeypatch, tmp_path)
    project = project_at(tmp_path / "project")
    app = make_app(RawSettings.from_env(cwd=project, demo=True, permission_mode="plan"))
    gc_pause.pause()  # as the command line does
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            assert await wait_until(lambda: app.ready)
            assert isinstance(app.settings, AgentSettings) and app.settings.cwd == project
            assert gc.isenabled()
            assert app.status.state.mode == "plan"
            await type_keys(pilot, *"hello there", "enter")
            assert await wait_until(lambda: not app.running and len(app.agent.history) >= 2)
            # In plan mode the prompt carries plan mode's system-reminder after it (core/plan_reminder.py).
            assert app.agent.history[0]["content"][0] == {"type": "text", "text": "hello there"}
    finally:
        gc_pause.resume()
        gc.enable()


async def test_settings_that_do_not_validate_end_the_app_with_the_error(tmp_path: Path, monkeypatch: Any, capsys: Any) -> None:
    isolate(monkeypatch, tmp_path)
    project = project_at(tmp_path / "project")
    app = make_app(RawSettings({"cwd": str(project), "max_turns": "many"}))
    async with app.run_test(size=(100, 30)):
        assert await wait_until(lambda: app.return_code is not None)
    assert app.return_code == SETTINGS_ERROR_EXIT
    assert not app.ready
    report_start_error(app)
    err = capsys.readouterr().err
    assert err.startswith("tui-agent: error: ") and "max_turns" in err and "\n" not in err.rstrip("\n")


def test_the_app_updates_its_screen_up_to_120_times_a_second_unless_textual_fps_says_otherwise(monkeypatch) -> None:
    import textual.screen

    from tui_agent.ui.start_up import use_frame_rate

    monkeypatch.setattr(textual.screen, "UPDATE_PERIOD", 1 / 60)
    monkeypatch.delenv("TEXTUAL_FPS", raising=False)
    use_frame_rate()
    assert textual.screen.UPDATE_PERIOD == 1 / 120
    monkeypatch.setattr(textual.screen, "UPDATE_PERIOD", 1 / 60)
    monkeypatch.setenv("TEXTUAL_FPS", "30")
    use_frame_rate()
    assert textual.screen.UPDATE_PERIOD == 1 / 60, "the person's TEXTUAL_FPS wins"
