"""Paths outside the working folders are a permission question decided by the rules, not refused before
permissions are consulted: `Read(//abs/**)`, `Read(~/x/**)`, `--add-dir` and `additionalDirectories` allow,
deny wins, the app asks, headless denies what nothing allows (issue 10, finding 7)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.core.support import assert_history_valid
from tui_agent.core.permission_types import PermissionAnswer, PermissionRequest
from tui_agent.providers.scripted import Reply, Text, ToolUse
from tui_agent.tools.base import Workspace
from tui_agent.tools.registry import default_tools

R, G, GL, W = "Read", "Grep", "Glob", "Write"

# (id, mode, {"allow"|"deny"|"ask": [rules]}, tool, input, expected). `{outside}` / `{home}` are filled in.
CASES: list[tuple[str, str, dict[str, list[str]], str, dict[str, Any], str]] = [
    ("read-outside-asks", "default", {}, R, {"file_path": "{outside}/f"}, "ask"),
    ("read-outside-abs-rule", "default", {"allow": ["Read(/{outside}/**)"]}, R, {"file_path": "{outside}/f"}, "allow"),
    ("read-outside-abs-rule-other-folder", "default", {"allow": ["Read(/{outside}/sub/**)"]}, R, {"file_path": "{outside}/f"}, "ask"),
    ("read-home-rule", "default", {"allow": ["Read(~/notes/**)"]}, R, {"file_path": "{home}/notes/x.md"}, "allow"),
    ("read-home-rule-elsewhere", "default", {"allow": ["Read(~/notes/**)"]}, R, {"file_path": "{home}/.ssh/id_rsa"}, "ask"),
    ("read-whole-tool-rule", "default", {"allow": ["Read"]}, R, {"file_path": "{outside}/f"}, "allow"),
    ("deny-beats-allow", "default", {"allow": ["Read(/{outside}/**)"], "deny": ["Read(/{outside}/f)"]}, R, {"file_path": "{outside}/f"}, "deny"),
    ("ask-rule-beats-allow", "default", {"allow": ["Read(/{outside}/**)"], "ask": ["Read(/{outside}/**)"]}, R, {"file_path": "{outside}/f"}, "ask"),
    ("symlink-out-asks", "default", {}, R, {"file_path": "out_link/f"}, "ask"),
    ("dotdot-out-asks", "default", {}, R, {"file_path": "src/../../outside/f"}, "ask"),
    ("grep-outside-asks", "default", {}, G, {"path": "{outside}"}, "ask"),
    ("grep-outside-rule", "default", {"allow": ["Read(/{outside}/**)"]}, G, {"path": "{outside}"}, "allow"),
    ("glob-outside-asks", "default", {}, GL, {"path": "{outside}"}, "ask"),
    ("read-inside-allows", "default", {}, R, {"file_path": "src/a.py"}, "allow"),
    ("plan-read-inside", "plan", {}, R, {"file_path": "src/a.py"}, "allow"),
    ("plan-read-outside-asks", "plan", {}, R, {"file_path": "{outside}/f"}, "ask"),
    ("plan-read-outside-rule", "plan", {"allow": ["Read(/{outside}/**)"]}, R, {"file_path": "{outside}/f"}, "allow"),
    ("plan-write-outside-denied", "plan", {}, W, {"file_path": "{outside}/f"}, "deny"),
    ("accept-edits-read-outside-asks", "acceptEdits", {}, R, {"file_path": "{outside}/f"}, "ask"),
    ("accept-edits-write-outside-asks", "acceptEdits", {}, W, {"file_path": "{outside}/f"}, "ask"),
    ("bypass-read-outside", "bypassPermissions", {}, R, {"file_path": "{outside}/f"}, "allow"),
    ("bypass-deny-still-wins", "bypassPermissions", {"deny": ["Read(/{outside}/**)"]}, R, {"file_path": "{outside}/f"}, "deny"),
]


@pytest.mark.parametrize("mode, rules, tool, fields, expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
async def test_outside_path_table(env, mode, rules, tool, fields, expected) -> None:
    def fill(s: str) -> str:
        return s.replace("{outside}", str(env.outside)).replace("{home}", str(env.home))

    env.write(env.project_settings, {"permissions": {k: [fill(r) for r in v] for k, v in rules.items()}})
    engine = env.engine(mode=mode)
    decision = await engine.decide(env.check(tool, **{k: fill(v) for k, v in fields.items()}))
    assert decision.behavior == expected, decision
    assert env.warnings() == []


async def test_an_added_folder_is_workspace(env) -> None:
    env.workspace = Workspace.at(env.project, (env.outside,))
    decision = await env.engine().decide(env.check("Read", file_path=f"{env.outside}/f"))
    assert decision.behavior == "allow"


async def test_asking_to_read_outside_suggests_that_folder(env) -> None:
    decision = await env.engine().decide(env.check("Read", file_path=f"{env.outside}/f"))
    assert decision.behavior == "ask" and "outside the workspace" in decision.message
    assert decision.suggestions == (f"Read(/{env.outside}/**)",)


# ----- through the loop -------------------------------------------------------------------------------


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    (folder / "notes.txt").write_text("the secret word is tangerine\n")
    return folder


def _read_script(path: Path) -> list[Any]:
    return [Reply([ToolUse("Read", {"file_path": str(path)}, id="rd")]), Reply([Text("ok")])]


def _result(history: list[dict[str, Any]]) -> dict[str, Any]:
    return next(b for m in history if isinstance(m["content"], list) for b in m["content"] if b.get("tool_use_id") == "rd")


async def test_headless_denies_a_read_outside_and_lists_it(make_harness, outside) -> None:
    h = make_harness(_read_script(outside / "notes.txt"), tools=default_tools())
    ended = await h.agent.run("read it")
    assert [d["tool_name"] for d in ended.permission_denials] == ["Read"]
    result = _result(h.agent.history)
    assert result["is_error"] is True and "tangerine" not in json.dumps(h.requests[1])
    assert_history_valid(h.agent.history)


@pytest.mark.parametrize("how", ["allow-rule", "add-dir", "additional-directories", "home-rule"])
async def test_headless_reads_outside_when_something_allows_it(make_harness, outside, tmp_path, how) -> None:
    settings: dict[str, Any] = {}
    target = outside / "notes.txt"
    if how == "allow-rule":
        settings["allowed_tools"] = [f"Read(/{outside}/**)"]
    elif how == "add-dir":
        settings["add_dirs"] = [outside]
    elif how == "additional-directories":
        file = tmp_path / "settings.json"
        file.write_text(json.dumps({"permissions": {"additionalDirectories": [str(outside)]}}))
        settings["settings_file"] = file
    else:
        target = tmp_path / "home" / "notes" / "n.txt"
        target.parent.mkdir(parents=True)
        target.write_text("the secret word is tangerine\n")
        settings["allowed_tools"] = ["Read(~/notes/**)"]
    h = make_harness(_read_script(target), tools=default_tools(), **settings)
    ended = await h.agent.run("read it")
    assert ended.permission_denials == ()
    assert "tangerine" in json.dumps(_result(h.agent.history))


async def test_deny_wins_over_an_added_folder(make_harness, outside) -> None:
    h = make_harness(
        _read_script(outside / "notes.txt"), tools=default_tools(), add_dirs=[outside], disallowed_tools=[f"Read(/{outside}/notes.txt)"]
    )
    ended = await h.agent.run("read it")
    assert [d["tool_name"] for d in ended.permission_denials] == ["Read"]
    assert "tangerine" not in json.dumps(_result(h.agent.history))


async def test_the_app_asks_and_a_yes_reads_it(make_harness, outside) -> None:
    asked: list[PermissionRequest] = []

    async def ask(request: PermissionRequest) -> PermissionAnswer:
        asked.append(request)
        return PermissionAnswer("allow_once")

    h = make_harness(_read_script(outside / "notes.txt"), tools=default_tools(), ask=ask)
    await h.agent.run("read it")
    assert [r.tool_name for r in asked] == ["Read"] and asked[0].read_only
    assert f"Read(/{outside}/**)" in asked[0].suggestions
    assert "tangerine" in json.dumps(_result(h.agent.history))
