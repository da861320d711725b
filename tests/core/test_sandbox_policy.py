"""How the sandbox settings merge (Claude Code's rules: the last file to set a scalar wins, lists add up, Edit/Read
rules feed the filesystem lists) and what an untrusted repository's file may decide."""

from __future__ import annotations

import json
from pathlib import Path

from tui_agent.core.permissions import PermissionEngine
from tui_agent.core.sandbox.install import policy_source
from tui_agent.tools.base import Workspace


def _write(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def _engine(tmp_path: Path, trusted: bool = True) -> tuple[PermissionEngine, Workspace]:
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir(exist_ok=True)
    home.mkdir(exist_ok=True)
    engine = PermissionEngine(work, home=home, project_dir=work, config_dir=home / ".config" / "tui-agent", trusted=trusted)
    return engine, Workspace.at(work)


def test_scalars_last_wins_lists_add_up_and_rules_feed_the_lists(tmp_path: Path) -> None:
    home, work = tmp_path / "home", tmp_path / "work"
    (work / "dist").mkdir(parents=True)
    (home / "cache").mkdir(parents=True)
    _write(home / ".claude" / "settings.json", {
        "sandbox": {"enabled": True, "autoAllowBashIfSandboxed": False, "excludedCommands": ["docker *"],
                    "filesystem": {"allowWrite": ["~/cache"], "denyRead": ["~/.aws"]},
                    "network": {"allowedDomains": ["example.com"]}},
        "permissions": {"deny": ["Read(~/.ssh/**)", "Edit(./dist/**)"], "allow": ["Edit(//opt/data/**)", "Edit(*.txt)"]},
    })
    _write(work / ".claude" / "settings.local.json", {
        "sandbox": {"autoAllowBashIfSandboxed": True, "excludedCommands": ["make"], "credentials": {"files": [{"path": "secrets.env", "mode": "deny"}]},
                    "network": {"allowedDomains": ["pypi.org"], "deniedDomains": ["evil.example.com"]}},
    })
    engine, ws = _engine(tmp_path)
    policy = policy_source(engine.settings, ws)()
    assert policy.enabled and policy.auto_allow and policy.allow_unsandboxed and not policy.fail_if_unavailable
    assert policy.excluded_commands == ("docker *", "make")
    assert policy.allowed_domains == ("example.com", "pypi.org") and policy.denied_domains == ("evil.example.com",)
    assert home / "cache" in policy.writable and work.resolve() in policy.writable
    assert Path("/opt/data") not in policy.writable  # allowWrite of a folder that does not exist: nothing to bind
    assert {home.resolve() / ".aws", home.resolve() / ".ssh", work / "secrets.env"} <= set(policy.deny_read)
    assert work.resolve() / "dist" in policy.deny_write and work.resolve() / ".git" / "hooks" in policy.deny_write
    assert any("Edit(*.txt)" in n for n in policy.notes)
    assert policy.is_excluded("FOO=1 docker ps") and policy.is_excluded("cd x && make") and not policy.is_excluded("make test")


def test_an_untrusted_repository_only_takes_away(tmp_path: Path) -> None:
    work = tmp_path / "work"
    _write(work / ".claude" / "settings.json", {"sandbox": {
        "enabled": True, "autoAllowBashIfSandboxed": True, "allowUnsandboxedCommands": True, "excludedCommands": ["curl *"],
        "filesystem": {"allowWrite": ["/"], "denyRead": ["keys"]}, "network": {"allowedDomains": ["evil.example.com"]},
    }})
    _write(tmp_path / "home" / ".claude" / "settings.json", {"sandbox": {"autoAllowBashIfSandboxed": False, "allowUnsandboxedCommands": False}})
    engine, ws = _engine(tmp_path, trusted=False)
    policy = policy_source(engine.settings, ws)()
    assert policy.enabled and not policy.auto_allow and not policy.allow_unsandboxed
    assert policy.excluded_commands == () and policy.allowed_domains == ()
    assert Path("/") not in policy.writable and work.resolve() / "keys" in policy.deny_read

    engine, ws = _engine(tmp_path, trusted=True)
    trusted = policy_source(engine.settings, ws)()
    assert trusted.auto_allow and trusted.excluded_commands == ("curl *",)


def test_a_bad_value_is_reported_and_the_rest_applies(tmp_path: Path) -> None:
    _write(tmp_path / "home" / ".claude" / "settings.json", {"sandbox": {
        "enabled": "yes", "failIfUnavailable": True, "filesystem": {"denyRead": "~/.ssh"},
        "credentials": {"files": [{"path": "~/.aws", "mode": "mask"}]}}})
    engine, ws = _engine(tmp_path)
    policy = policy_source(engine.settings, ws)()
    assert not policy.enabled and policy.fail_if_unavailable
    problems = " ".join(engine.problems)
    assert "sandbox.enabled" in problems and "sandbox.filesystem.denyRead" in problems and "NOT protected" in problems
