"""Read-only shell commands through the whole loop, headless (`-p` default mode: no one to ask): a reader of
a file outside the working folder is denied and listed, and its contents never reach the model; `git status`
in a repository that configures an fsmonitor runs without running it (issue 10, finding 9)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.core.support import assert_history_valid
from tests.tools.test_git_safety import _hostile_repo
from tui_agent.providers.scripted import Reply, Text, ToolUse
from tui_agent.tools.registry import default_tools

KEY = "-----BEGIN OPENSSH PRIVATE KEY----- not-a-real-key"


def _home_key(tmp_path: Path) -> None:
    ssh = tmp_path / "home" / ".ssh"  # HOME of the test (see the data_home fixture)
    ssh.mkdir(parents=True)
    (ssh / "id_rsa").write_text(KEY + "\n")


async def test_reading_a_key_outside_with_a_read_only_command_is_denied_headless(make_harness, tmp_path) -> None:
    _home_key(tmp_path)
    commands = ["cat ~/.ssh/id_rsa", "ls ~/.ssh", "grep -r BEGIN ~/.ssh", "cd ~/.ssh && cat id_rsa", "echo $(cat ~/.ssh/id_rsa)"]
    script = [Reply([ToolUse("Bash", {"command": c}, id=f"b{i}") for i, c in enumerate(commands)]), Reply([Text("ok")])]
    h = make_harness(script, tools=default_tools())
    ended = await h.agent.run("show me the key")
    assert [d["tool_input"]["command"] for d in ended.permission_denials] == commands
    assert "not-a-real-key" not in json.dumps(h.requests[1])
    assert_history_valid(h.agent.history)


async def test_a_read_rule_lets_the_same_command_run(make_harness, tmp_path) -> None:
    _home_key(tmp_path)
    script = [Reply([ToolUse("Bash", {"command": "cat ~/.ssh/id_rsa"}, id="b")]), Reply([Text("ok")])]
    h = make_harness(script, tools=default_tools(), allowed_tools=["Read(~/.ssh/**)"])
    ended = await h.agent.run("show me the key")
    assert ended.permission_denials == ()
    assert "not-a-real-key" in json.dumps(h.requests[1])


async def test_git_status_in_a_hostile_repository_runs_without_its_programs(make_harness, tmp_path) -> None:
    markers = tmp_path / "markers"
    markers.mkdir()
    work = _hostile_repo(tmp_path / "work", markers)
    script = [Reply([ToolUse("Bash", {"command": "git status && git diff"}, id="g")]), Reply([Text("ok")])]
    h = make_harness(script, tools=default_tools())
    assert h.agent.workspace.root == work.resolve()
    ended = await h.agent.run("what changed?")
    assert ended.permission_denials == ()
    assert "+changed" in json.dumps(h.requests[1])
    assert sorted(p.name for p in markers.iterdir()) == []
