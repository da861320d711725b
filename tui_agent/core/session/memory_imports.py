"""The user's answer about a project's memory imports from outside the project.

Claude Code asks once per project, in the interactive app, "Allow external CLAUDE.md file imports?" and
keeps the answer in `~/.claude.json` → `projects[<project>]` as `hasClaudeMdExternalIncludesApproved`
(with `hasClaudeMdExternalIncludesWarningShown` once asked); `-p` never asks. That answer is read here, as
the user's own: true approves, false after the question was shown declines. tui-agent never writes
Claude Code's file (it rewrites it whole, often): its own answers go to `memory-imports.json` in its config
folder, per project, as the list of files the dialog showed, so an import added later asks again.
Both files are read only when there is an outside import to decide (not on every start).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from ..permissions.settings import user_config_dir

APPROVALS_FILE = "memory-imports.json"
CLAUDE_APPROVED = "hasClaudeMdExternalIncludesApproved"
CLAUDE_SHOWN = "hasClaudeMdExternalIncludesWarningShown"


def claude_json_path(home: Path) -> Path:
    """Claude Code's user config (CLAUDE_CONFIG_DIR moves it)."""
    folder = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(folder) / ".claude.json" if folder else home / ".claude.json"


class ImportApprovals:
    """What the user said about outside imports for one project (keyed by its folder and the working one)."""

    def __init__(self, project_dir: Path, cwd: Path, *, home: Path, config_dir: Path | None = None) -> None:
        self.keys = list(dict.fromkeys([str(project_dir), str(cwd)]))
        self.home = home
        self.path = (config_dir or user_config_dir(home, explicit_home=False)) / APPROVALS_FILE
        self._ours: dict[str, Any] | None = None
        self._claude: bool | None | str = "unread"

    def _own(self) -> dict[str, Any]:
        if self._ours is None:
            data = _read_json(self.path)
            entry = next((data[k] for k in self.keys if isinstance(data.get(k), dict)), {})
            self._ours = entry if isinstance(entry, dict) else {}
        return self._ours

    def claude_answer(self) -> bool | None:
        """Claude Code's answer for this project: True, False (declined), None (never asked)."""
        if self._claude == "unread":
            self._claude = None
            projects = _read_json(claude_json_path(self.home)).get("projects")
            for key in self.keys:
                entry = projects.get(key) if isinstance(projects, dict) else None
                if not isinstance(entry, dict):
                    continue
                if entry.get(CLAUDE_APPROVED) is True:
                    self._claude = True
                elif entry.get(CLAUDE_APPROVED) is False and entry.get(CLAUDE_SHOWN) is True:
                    self._claude = False  # false alone is Claude Code's default, not a "no"
                break
        return self._claude if isinstance(self._claude, bool) else None

    def approves(self, path: Path) -> bool:
        return str(path) in self._own().get("approved", []) or self.claude_answer() is True

    def declined(self, path: Path) -> bool:
        return str(path) in self._own().get("declined", []) or self.claude_answer() is False

    def record(self, paths: list[Path], approved: bool) -> None:
        """Remember the dialog's answer for these files (in tui-agent's own config, never the repository)."""
        data = _read_json(self.path)
        entry = data.setdefault(self.keys[0], {})
        yes, no = set(entry.get("approved", [])), set(entry.get("declined", []))
        for path in map(str, paths):
            (yes if approved else no).add(path)
            (no if approved else yes).discard(path)
        entry["approved"], entry["declined"] = sorted(yes), sorted(no)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".memory-imports.")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=2)
        os.replace(tmp, self.path)
        self._ours = entry


def _read_json(path: Path) -> dict[str, Any]:
    # The user's own config files (not content for the model): allowed outside the gate, see test_access_gate.
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
