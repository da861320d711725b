"""`sandbox.credentials` from real settings files, through the whole agent: a Bash call the model makes
and a `!` command the user types print their environment, and what reaches the next request has no API
key, no name the settings deny, and the credential the user's own settings let through (issue 23)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tui_agent.core.shell_mode import ShellCommand
from tui_agent.providers.scripted import Reply, Text, ToolUse
from tui_agent.tools.registry import default_tools


@pytest.fixture(autouse=True)
def credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "fake-key")
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "fake-token")
    monkeypatch.setenv("MY_SECRET", "fake-secret")


def write_settings(path: Path, credentials: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"sandbox": {"credentials": credentials}}))


def user_settings(tmp_path: Path) -> Path:
    return tmp_path / "home" / ".claude" / "settings.json"  # HOME of the test (the data_home fixture)


async def printed_env(make_harness) -> str:
    """What the model gets back from `env` run by the Bash tool (allowed, so it runs headless)."""
    script = [Reply([ToolUse("Bash", {"command": "env; echo done"}, id="b")]), Reply([Text("ok")])]
    h = make_harness(script, tools=default_tools(), allowed_tools=["Bash"])
    ended = await h.agent.run("show the environment")
    assert ended.permission_denials == ()
    sent = json.dumps(h.requests[1])
    assert "done" in sent
    return sent


async def test_no_settings_the_key_is_withheld(make_harness) -> None:
    sent = await printed_env(make_harness)
    assert "fake-key" not in sent and "fake-token" not in sent
    assert "MY_SECRET=fake-secret" in sent


async def test_claude_code_env_vars_deny_and_our_allow(make_harness, tmp_path) -> None:
    write_settings(user_settings(tmp_path), {
        "envVars": [{"name": "MY_SECRET", "mode": "deny"}],
        "allowEnvVars": ["ANTHROPIC_AUTH_TOKEN"],
    })
    sent = await printed_env(make_harness)
    assert "fake-secret" not in sent
    assert "ANTHROPIC_AUTH_TOKEN=fake-token" in sent
    assert "fake-key" not in sent


async def test_a_project_cannot_pass_the_key_but_can_deny(make_harness, tmp_path) -> None:
    project = tmp_path / "work" / ".claude" / "settings.json"
    write_settings(project, {"envVars": [{"name": "MY_SECRET", "mode": "deny"}], "allowEnvVars": ["ANTHROPIC_API_KEY"]})
    sent = await printed_env(make_harness)
    assert "fake-key" not in sent and "fake-secret" not in sent


async def test_a_bad_entry_is_reported_and_the_rest_of_the_file_applies(make_harness, tmp_path) -> None:
    path = user_settings(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({
        "permissions": {"deny": ["Bash(rm:*)"]},
        "sandbox": {"credentials": {"envVars": [{"name": "MY_SECRET", "mode": "mask"}]}},
    }))
    script = [Reply([Text("ok")])]
    h = make_harness(script, tools=default_tools())
    problems = h.agent.policy.problems
    assert any("sandbox.credentials.envVars" in p and "NOT withheld" in p for p in problems)
    assert [r.text for r in h.agent.policy.settings.rules("deny")] == ["Bash(rm:*)"]


async def test_a_bang_command_does_not_see_the_key(make_harness) -> None:
    h = make_harness([Reply([Text("ok")])], tools=default_tools())
    await ShellCommand(h.agent, "printenv ANTHROPIC_API_KEY; env; echo done").run()
    sent = json.dumps(h.requests[0])
    assert "<bash-input>" in sent and "done" in sent
    assert "fake-key" not in sent and "fake-token" not in sent
