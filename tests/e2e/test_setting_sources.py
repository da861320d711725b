"""`--setting-sources` and the SDK's `setting_sources` (issue 24 item 6): which settings files, `.mcp.json`
and memory files are read at all. Real processes: `tui-agent -p`, and tui-agent driven by claude-agent-sdk."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from claude_agent_sdk import ResultMessage, query

from tests.e2e.test_headless import env, run_cli, serve  # noqa: F401  (env is a fixture)
from tui_agent.providers.scripted import Reply, Text, ToolUse

HOOK_MARK = "hook-ran.txt"


def hostile_repo(folder: Path) -> Path:
    """A clone whose committed settings allow `touch` and run a hook, and whose CLAUDE.md speaks."""
    (folder / ".git").mkdir(parents=True)
    (folder / ".claude").mkdir()
    hook = {"matcher": "*", "hooks": [{"type": "command", "command": f"touch {folder / HOOK_MARK}"}]}
    (folder / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"allow": ["Bash(touch *)"]}, "hooks": {"PreToolUse": [hook]}}))
    (folder / "CLAUDE.md").write_text("PROJECT-MEMORY-MARK\n")
    return folder


def user_memory(env: dict[str, str]) -> None:
    (Path(env["HOME"]) / ".claude").mkdir(parents=True, exist_ok=True)
    (Path(env["HOME"]) / ".claude" / "CLAUDE.md").write_text("USER-MEMORY-MARK\n")


def first_request_text(server: Any) -> str:
    return json.dumps(server.model.requests[0]["messages"])


TOUCH = [Reply([ToolUse("Bash", {"command": "touch made.txt"}, id="t")]), Reply([Text("done")])]


class TestHeadless:
    def test_by_default_the_folder_is_trusted_for_hooks_and_rules_as_in_claude_code(self, env, tmp_path):
        work = hostile_repo(tmp_path / "work")
        user_memory(env)
        with serve(TOUCH, env) as server:
            proc = run_cli(["-p", "go", "--output-format", "json"], env, work)
        assert proc.returncode == 0, proc.stderr
        assert (work / HOOK_MARK).exists() and (work / "made.txt").exists()
        text = first_request_text(server)
        assert "PROJECT-MEMORY-MARK" in text and "USER-MEMORY-MARK" in text

    @pytest.mark.parametrize("sources", ["user", ""])
    def test_without_project_its_rules_hooks_and_memory_are_not_read(self, env, tmp_path, sources):
        work = hostile_repo(tmp_path / "work")
        user_memory(env)
        with serve(TOUCH, env) as server:
            proc = run_cli(["-p", "go", "--output-format", "json", f"--setting-sources={sources}"], env, work)
        assert proc.returncode == 0, proc.stderr
        assert not (work / HOOK_MARK).exists(), "the repository's hook ran"
        assert not (work / "made.txt").exists(), "the repository's allow rule applied"
        assert [d["tool_name"] for d in json.loads(proc.stdout)["permission_denials"]] == ["Bash"]
        text = first_request_text(server)
        assert "PROJECT-MEMORY-MARK" not in text
        assert ("USER-MEMORY-MARK" in text) == (sources == "user")
        assert "--setting-sources" not in proc.stderr  # no longer "accepted but ignored"

    def test_a_source_claude_code_does_not_know_is_an_error(self, env, tmp_path):
        proc = run_cli(["-p", "go", "--setting-sources", "user,repo"], env, tmp_path)
        assert proc.returncode == 2
        assert "Invalid setting source: repo. Valid options are: user, project, local" in proc.stderr


class TestSdk:
    async def test_setting_sources_empty_reads_no_file_of_the_repository(self, make_run):
        run = make_run(TOUCH)
        hostile_repo(run.work)
        messages = [m async for m in query(prompt="go", options=run.options(setting_sources=[]))]
        result = messages[-1]
        assert isinstance(result, ResultMessage)
        assert not (run.work / HOOK_MARK).exists() and not (run.work / "made.txt").exists()
        assert [d["tool_name"] for d in result.permission_denials or []] == ["Bash"]
        assert "PROJECT-MEMORY-MARK" not in json.dumps(run.requests[0]["messages"])

    async def test_setting_sources_with_project_reads_them(self, make_run):
        run = make_run(TOUCH)
        hostile_repo(run.work)
        [m async for m in query(prompt="go", options=run.options(setting_sources=["project"]))]
        assert (run.work / HOOK_MARK).exists() and (run.work / "made.txt").exists()
        assert "PROJECT-MEMORY-MARK" in json.dumps(run.requests[0]["messages"])
