"""The trust question (issue 24 item 8): a new folder is asked about before anything it configures runs —
its hooks, its committed allow rules and added directories, its MCP servers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.ui.app_support import build, isolate, project_at, transcript_text, until, until_idle
from tests.ui.app_support import type_keys
from tui_agent.core.trust import TRUST_FILE, folder_trusted
from tui_agent.providers.scripted import Reply, Text, ToolUse
from tui_agent.ui.screens.trust import TrustScreen

HOOK_MARK = "hook-ran.txt"


@pytest.fixture
def clone(tmp_path: Path, monkeypatch: Any) -> Path:
    """A fresh clone in a scratch home nobody trusted: committed hooks, an allow rule, an added directory."""
    isolate(monkeypatch, tmp_path, trusted=False)
    repo = project_at(tmp_path / "clone")
    (repo / ".git").mkdir()
    (repo / ".claude").mkdir()
    hook = {"matcher": "*", "hooks": [{"type": "command", "command": f"touch {repo / HOOK_MARK}"}]}
    (repo / ".claude" / "settings.json").write_text(json.dumps({
        "permissions": {"allow": ["Bash(ls *)"], "additionalDirectories": [str(tmp_path)]},
        "hooks": {"PreToolUse": [hook], "PostToolUse": [hook]},
    }))
    return repo


def config_dir(tmp_path: Path) -> Path:
    return tmp_path / "home" / ".config" / "tui-agent"


def shown(app: Any) -> str:
    return " ".join(str(s.render()) for s in app.screen.query("Static"))


async def asked(pilot: Any, app: Any) -> str:
    """Wait until the trust dialog is on screen and composed (its buttons hold the focus); return its text."""
    await until(pilot, lambda: isinstance(app.screen, TrustScreen) and "Quick safety check" in shown(app))
    return shown(app)


LS = [Reply([ToolUse("Bash", {"command": "ls ."}, id="ls")]), Reply([Text("listed")])]


class TestTheQuestion:
    async def test_a_new_folder_is_asked_about_first_and_nothing_it_configures_applies_before(self, clone, tmp_path):
        app, model = build(clone, LS)
        async with app.run_test(size=(120, 40)) as pilot:
            text = await asked(pilot, app)
            assert str(clone.resolve()) in text and "Quick safety check" in text
            assert "This folder pre-approves 1 tool permission in .claude/settings.json: Bash(ls *)" in text
            assert "hooks that can run commands without asking" in text and "adds 1 directory" in text
            app.submit("list the files")  # typed while it asks: waits for the answer
            await pilot.pause(0.3)
            assert not app.ready and model.requests == []  # no agent: no hook, rule or server of the folder yet
            await pilot.press("down", "enter")  # "Yes, I trust this folder"
            await until(pilot, lambda: app.ready)
            await until_idle(pilot, app)
            await app.action_quit()
        assert (clone / HOOK_MARK).exists()  # trusted: its hooks run
        assert len(model.requests) == 2 and "listed" in transcript_text(app)  # the prompt typed meanwhile ran, `ls` allowed by the now-trusted rule
        assert folder_trusted(clone, home=tmp_path / "home", config_dir=config_dir(tmp_path))  # asked once

    async def test_a_trusted_folder_is_not_asked_again(self, clone, tmp_path):
        (config_dir(tmp_path)).mkdir(parents=True)
        (config_dir(tmp_path) / TRUST_FILE).write_text(json.dumps({"projects": {str(clone.resolve()): {"hasTrustDialogAccepted": True}}}))
        app, _ = build(clone, [Reply([Text("hi")])])
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: app.ready)
            assert not isinstance(app.screen, TrustScreen)
            await app.action_quit()

    async def test_claude_codes_trust_counts(self, clone, tmp_path):
        (tmp_path / "home").mkdir(exist_ok=True)
        (tmp_path / "home" / ".claude.json").write_text(json.dumps({"projects": {str(clone.resolve()): {"hasTrustDialogAccepted": True}}}))
        app, _ = build(clone, [Reply([Text("hi")])])
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: app.ready)
            assert not isinstance(app.screen, TrustScreen)
            await app.action_quit()

    @pytest.mark.parametrize("keys, code", [(("enter",), 1), (("escape",), 0)])
    async def test_no_exits_without_running_anything(self, clone, tmp_path, keys, code):
        app, model = build(clone, LS)
        async with app.run_test(size=(80, 24)) as pilot:
            await asked(pilot, app)
            await type_keys(pilot, *keys)  # "No, exit" has the focus, as in Claude Code; Esc leaves too
            await until(pilot, lambda: app.return_code is not None)
        assert app.return_code == code
        assert not app.ready and model.requests == [] and not (clone / HOOK_MARK).exists()
        assert not (config_dir(tmp_path) / TRUST_FILE).exists()

    async def test_the_home_folder_is_asked_every_time_and_never_saved(self, tmp_path, monkeypatch):
        isolate(monkeypatch, tmp_path, trusted=False)
        home = project_at(tmp_path / "home")
        app, _ = build(home, [Reply([Text("hi")])])
        async with app.run_test(size=(120, 40)) as pilot:
            assert "This is your home folder, so Yes lasts for this session only." in await asked(pilot, app)
            await pilot.press("down", "enter")
            await until(pilot, lambda: app.ready)
            await app.action_quit()
        assert not (config_dir(tmp_path) / TRUST_FILE).exists()
