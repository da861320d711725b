"""Approval of project servers (`.mcp.json`): a cloned repository must not start programs unasked.

A project server runs when the user's own settings allow it (`enableAllProjectMcpServers`,
`enabledMcpjsonServers` in `~/.claude/settings.json`, tui-agent's own, `.claude/settings.local.json` or
`--settings`: core/trust.py; a repository's committed `.claude/settings.json` cannot approve its own
servers) or the user approved it here before; `disabledMcpjsonServers` from any file always wins. An answer
is remembered per project in tui-agent's own config folder, bound to a hash of the server's entry: a
changed entry asks again.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any, Literal

from ..permissions.settings import settings_sources, user_config_dir
from ..trust import claude_json_path, may_set, refusal
from .config import ServerConfig

Verdict = Literal["approved", "rejected", "pending", "disabled"]
Answer = Literal["approve", "approve_all", "reject"]
APPROVALS_FILE = "mcp-approvals.json"


class ProjectApprovals:
    """What settings and earlier answers say about each project server of one project."""

    def __init__(
        self,
        project_dir: Path,
        *,
        home: Path | None = None,
        settings_file: Path | None = None,
        settings_json: dict[str, Any] | None = None,
        setting_sources: list[str] | None = None,
    ) -> None:
        self.project_dir = project_dir.resolve()
        self.home = (home or Path.home()).resolve()
        self._explicit_home = home is not None
        self._settings = (settings_file, settings_json, setting_sources)
        config_dir = user_config_dir(self.home, explicit_home=home is not None)
        self.path = config_dir / APPROVALS_FILE
        self.enable_all = False
        self.enabled: set[str] = set()
        self.disabled: set[str] = set()
        self.problems: list[str] = []
        """Approvals a file tried to give but may not (core/trust.py), for the front end to report."""
        sources = settings_sources(self.home, self.project_dir, config_dir, settings_file, sources=setting_sources)
        # Claude Code keeps the dialog's answers in `~/.claude.json` projects[<project>] (the user's file, read
        # whatever --setting-sources says), then the settings files, then `--settings` JSON.
        claude_json = claude_json_path(self.home)
        project_entry = _read(claude_json).get("projects", {})
        project_entry = project_entry.get(str(self.project_dir)) if isinstance(project_entry, dict) else None
        for path, origin, data in [*([(claude_json, "user", project_entry)] if isinstance(project_entry, dict) else []),
                                   *((s.path, s.origin, _read(s.path)) for s in sources if s.path is not None),
                                   *([(None, "flag", settings_json)] if settings_json else [])]:
            where = str(path) if path is not None else "--settings"
            for key in ("enableAllProjectMcpServers", "enabledMcpjsonServers"):
                if data.get(key) not in (None, False, []) and not may_set(key, origin):
                    self.problems.append(refusal(key, where) + " Its MCP servers still need approval.")
                    data = {k: v for k, v in data.items() if k != key}
            if data.get("enableAllProjectMcpServers") is not None:
                self.enable_all = bool(data["enableAllProjectMcpServers"])
            self.enabled |= {str(n) for n in data.get("enabledMcpjsonServers") or [] if isinstance(n, str)}
            self.disabled |= {str(n) for n in data.get("disabledMcpjsonServers") or [] if isinstance(n, str)}

    def refreshed(self) -> "ProjectApprovals":
        """The same question asked of the files as they are now (after a reload)."""
        settings_file, settings_json, sources = self._settings
        return ProjectApprovals(self.project_dir, home=self.home if self._explicit_home else None,
                                settings_file=settings_file, settings_json=settings_json, setting_sources=sources)

    def _answers(self) -> dict[str, Any]:
        project = _read(self.path).get(str(self.project_dir))
        return project if isinstance(project, dict) else {}

    def verdict(self, server: ServerConfig) -> Verdict:
        if server.scope != "project":
            return "approved"  # only `.mcp.json` servers come from the repository
        if server.name in self.disabled:
            return "disabled"
        if self.enable_all or server.name in self.enabled:
            return "approved"
        answer = self._answers().get(server.name)
        if isinstance(answer, dict) and answer.get("hash") == server.entry_hash:
            return "approved" if answer.get("approved") else "rejected"
        return "pending"

    def record(self, servers: list[ServerConfig], approved: bool) -> None:
        """Remember an answer for these servers (bound to their entries as they are now)."""
        data = _read(self.path)
        project = data.setdefault(str(self.project_dir), {})
        for server in servers:
            project[server.name] = {"hash": server.entry_hash, "approved": approved}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".mcp-approvals.")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=2)
        os.replace(tmp, self.path)

    @staticmethod
    def how_to_allow(name: str) -> str:
        return (
            f'add "{name}" to enabledMcpjsonServers in .claude/settings.local.json '
            "(or approve it once in the app)"
        )


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return {}
    return data if isinstance(data, dict) else {}
