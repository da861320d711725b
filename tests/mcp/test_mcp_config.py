"""Claude Code's MCP config files: where servers come from, which one wins, and what a bad entry does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.mcp.conftest import write_mcp_json
from tui_agent.core.mcp.approval import ProjectApprovals
from tui_agent.core.mcp.config import HttpServerConfig, McpConfigError, StdioServerConfig, load_mcp_configs


def write_claude_json(home: Path, data: dict) -> None:
    (home / ".claude.json").write_text(json.dumps(data))


class TestPrecedence:
    def test_local_beats_project_beats_user_and_the_winner_replaces_the_entry_whole(self, home, work):
        write_claude_json(home, {
            "mcpServers": {"db": {"command": "user-db", "env": {"A": "1"}}, "only-user": {"command": "u"}},
            "projects": {str(work.resolve()): {"mcpServers": {"git": {"command": "local-git"}}}},
        })
        write_mcp_json(work, {"db": {"command": "project-db"}, "git": {"command": "project-git", "args": ["x"]}})
        configs = load_mcp_configs(work)
        s = configs.servers
        assert (s["db"].scope, s["db"].entry.command, s["db"].entry.env) == ("project", "project-db", {})
        assert (s["git"].scope, s["git"].entry.command, s["git"].entry.args) == ("local", "local-git", [])
        assert s["only-user"].scope == "user"

    def test_the_deeper_mcp_json_wins_over_a_parent_folder(self, home, work):
        deeper = work / "sub"
        deeper.mkdir()
        write_mcp_json(work, {"a": {"command": "outer"}, "b": {"command": "outer-b"}})
        write_mcp_json(deeper, {"a": {"command": "inner"}})
        s = load_mcp_configs(deeper).servers
        assert s["a"].entry.command == "inner"
        assert s["b"].entry.command == "outer-b"

    def test_mcp_config_flags_take_files_and_json_and_strict_uses_only_them(self, home, work):
        write_mcp_json(work, {"a": {"command": "project"}})
        file = work / "extra.json"
        file.write_text(json.dumps({"mcpServers": {"web": {"type": "http", "url": "http://127.0.0.1:9/mcp", "headers": {"X": "1"}}}}))
        inline = json.dumps({"mcpServers": {"a": {"command": "dynamic"}}})
        s = load_mcp_configs(work, mcp_config=[str(file), inline]).servers
        assert s["a"].entry.command == "dynamic" and s["a"].scope == "dynamic"
        assert isinstance(s["web"].entry, HttpServerConfig) and s["web"].entry.headers == {"X": "1"}
        assert set(load_mcp_configs(work, mcp_config=[inline], strict=True).servers) == {"a"}

    def test_a_bad_mcp_config_value_is_a_clear_error(self, home, work):
        with pytest.raises(McpConfigError, match="no such file"):
            load_mcp_configs(work, mcp_config=["missing.json"])
        with pytest.raises(McpConfigError, match="not valid JSON"):
            load_mcp_configs(work, mcp_config=["{nope"])


class TestEntries:
    def test_variables_expand_with_defaults_and_missing_ones_are_named(self, home, work):
        write_mcp_json(work, {
            "ok": {"command": "${TOOL_BIN}", "args": ["--db", "${DB:-local.db}"], "env": {"TOKEN": "${TOKEN}"}},
            "web": {"type": "streamable-http", "url": "${BASE:-http://127.0.0.1:1}/mcp"},
            "broken": {"command": "run", "env": {"K": "${NOT_SET_ANYWHERE}"}},
        })
        s = load_mcp_configs(work, env={"TOOL_BIN": "/bin/srv", "TOKEN": "t0k"}).servers
        assert isinstance(s["ok"].entry, StdioServerConfig)
        assert (s["ok"].entry.command, s["ok"].entry.args, s["ok"].entry.env) == ("/bin/srv", ["--db", "local.db"], {"TOKEN": "t0k"})
        assert s["web"].entry.url == "http://127.0.0.1:1/mcp" and s["web"].transport == "http"
        assert s["broken"].error == "missing environment variables: NOT_SET_ANYWHERE"

    def test_invalid_entries_and_files_are_reported_and_the_rest_still_load(self, home, work):
        write_mcp_json(work, {"good": {"command": "x"}, "bad": {"type": "http"}, "worse": 3})
        configs = load_mcp_configs(work)
        assert configs.servers["good"].error == ""
        assert "url" in configs.servers["bad"].error
        assert configs.servers["worse"].error
        assert len(configs.problems) == 2
        (home / ".claude.json").write_text("{not json")
        assert any("not valid JSON" in p for p in load_mcp_configs(work).problems)


class TestApproval:
    def test_project_servers_need_an_answer_bound_to_the_entry(self, home, work):
        write_mcp_json(work, {"a": {"command": "one"}, "b": {"command": "two"}})
        approvals = ProjectApprovals(work)
        s = load_mcp_configs(work).servers
        assert approvals.verdict(s["a"]) == "pending"
        approvals.record([s["a"]], True)
        approvals.record([s["b"]], False)
        assert ProjectApprovals(work).verdict(s["a"]) == "approved"
        assert ProjectApprovals(work).verdict(s["b"]) == "rejected"
        write_mcp_json(work, {"a": {"command": "one", "args": ["--changed"]}, "b": {"command": "two"}})
        changed = load_mcp_configs(work).servers
        assert ProjectApprovals(work).verdict(changed["a"]) == "pending"  # a changed entry asks again

    def test_settings_enable_and_disable_project_servers_and_disabled_wins(self, home, work):
        write_mcp_json(work, {"a": {"command": "one"}, "b": {"command": "two"}, "c": {"command": "three"}})
        (work / ".claude").mkdir()
        (work / ".claude" / "settings.local.json").write_text(json.dumps({"enabledMcpjsonServers": ["a", "b"], "disabledMcpjsonServers": ["b"]}))
        s = load_mcp_configs(work).servers
        approvals = ProjectApprovals(work)
        assert [approvals.verdict(s[n]) for n in "abc"] == ["approved", "disabled", "pending"]
        (work / ".claude" / "settings.local.json").write_text(json.dumps({"enableAllProjectMcpServers": True}))
        assert ProjectApprovals(work).verdict(s["c"]) == "approved"

    def test_a_committed_settings_file_cannot_approve_the_repositorys_servers(self, home, work):
        """Issue 24 item 3: `.claude/settings.json` is the repository's; only the user's own files approve."""
        write_mcp_json(work, {"a": {"command": "one"}, "b": {"command": "two"}})
        (work / ".claude").mkdir()
        (work / ".claude" / "settings.json").write_text(json.dumps({"enableAllProjectMcpServers": True, "enabledMcpjsonServers": ["a"], "disabledMcpjsonServers": ["b"]}))
        s = load_mcp_configs(work).servers
        approvals = ProjectApprovals(work)
        assert [approvals.verdict(s[n]) for n in "ab"] == ["pending", "disabled"]  # taking away still works
        assert len(approvals.problems) == 2 and all("committed settings cannot decide" in p for p in approvals.problems)
        (home / ".claude").mkdir()
        (home / ".claude" / "settings.json").write_text(json.dumps({"enabledMcpjsonServers": ["a"]}))
        assert ProjectApprovals(work).verdict(s["a"]) == "approved"
        assert ProjectApprovals(work, settings_json={"enableAllProjectMcpServers": True}).enable_all  # --settings is the user's

    def test_setting_sources_choose_which_files_approve_and_whether_mcp_json_is_read(self, home, work):
        write_mcp_json(work, {"a": {"command": "one"}})
        (work / ".claude").mkdir()
        (work / ".claude" / "settings.local.json").write_text(json.dumps({"enabledMcpjsonServers": ["a"]}))
        s = load_mcp_configs(work).servers
        assert ProjectApprovals(work, setting_sources=["user", "project"]).verdict(s["a"]) == "pending"
        assert ProjectApprovals(work, setting_sources=["local"]).verdict(s["a"]) == "approved"
        assert load_mcp_configs(work, project=False).servers == {}

    def test_user_and_dynamic_servers_need_no_approval(self, home, work):
        write_claude_json(home, {"mcpServers": {"u": {"command": "x"}}})
        s = load_mcp_configs(work, mcp_config=[json.dumps({"mcpServers": {"d": {"command": "y"}}})]).servers
        assert ProjectApprovals(work).verdict(s["u"]) == "approved"
        assert ProjectApprovals(work).verdict(s["d"]) == "approved"


class TestApprovalsFile:
    def test_an_answer_is_saved_when_the_temporary_folder_is_on_another_filesystem(self, work, tmp_path, monkeypatch):
        """The approvals file is replaced atomically by a file written beside it: a temporary file made in the
        system's temporary folder could not be renamed onto a home on another filesystem (EXDEV)."""
        import os
        import shutil
        import tempfile

        if not Path("/dev/shm").is_dir():
            pytest.skip("no /dev/shm here to be the other filesystem")
        other = Path(tempfile.mkdtemp(dir="/dev/shm", prefix="tui-agent-home-"))
        try:
            if os.stat(other).st_dev == os.stat(tmp_path).st_dev:
                pytest.skip("/dev/shm is on the same filesystem as the temporary folder here")
            monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the system's temporary folder: not the home's
            write_mcp_json(work, {"a": {"command": "one"}})
            server = load_mcp_configs(work).servers["a"]
            ProjectApprovals(work, home=other).record([server], True)
            approvals = ProjectApprovals(work, home=other)
            assert approvals.verdict(server) == "approved"
            assert [p.name for p in approvals.path.parent.iterdir()] == [approvals.path.name]  # no temporary file left
        finally:
            shutil.rmtree(other, ignore_errors=True)
