"""Where sessions live: ours under the user data dir, Claude Code's under ~/.claude/projects.

Both use Claude Code's layout: `projects/<project slug>/<session id>.jsonl`, with the session's side files
(`tool-results/`) in `projects/<project slug>/<session id>/`.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
from pathlib import Path

MAX_SLUG = 200


def data_home() -> Path:
    """The user data dir's parent (`$XDG_DATA_HOME` or `~/.local/share` on Linux)."""
    import platformdirs  # not on the way to the first frame

    return Path(platformdirs.user_data_dir()).expanduser()


def sessions_root() -> Path:
    """Our `projects/` folder: one subfolder per working directory."""
    return data_home() / "tui-agent" / "projects"


def claude_projects_root() -> Path:
    """Claude Code's `projects/` folder (honours CLAUDE_CONFIG_DIR as Claude Code does). Only ever read."""
    config = os.environ.get("CLAUDE_CONFIG_DIR")
    return (Path(config).expanduser() if config else Path.home() / ".claude") / "projects"


def project_slug(cwd: Path) -> str:
    """The working folder as one folder name, as Claude Code makes it: every non-alphanumeric
    character becomes "-" (`/home/me/my_app` -> `-home-me-my-app`); very long ones keep a hash. A name
    that is not UTF-8 is read as Node reads it (one U+FFFD per bad sequence), so the folder is Claude Code's."""
    name = os.fsencode(cwd).decode("utf-8", "replace")
    slug = re.sub(r"[^A-Za-z0-9]", "-", name)
    if len(slug) <= MAX_SLUG:
        return slug
    return slug[:MAX_SLUG] + "-" + hashlib.sha256(name.encode()).hexdigest()[:8]


def project_dir(cwd: Path, root: Path | None = None) -> Path:
    return (root if root is not None else sessions_root()) / project_slug(cwd.resolve())


def git_branch(cwd: Path) -> str:
    """The current branch for the `gitBranch` field ("" outside a repository or without git)."""
    # symbolic-ref also names the branch of a repository without commits yet. It exits 1 on a detached HEAD, which
    # rev-parse names; outside a repository (128) there is nothing to ask rev-parse, so one process is enough.
    for command in (["git", "symbolic-ref", "--short", "-q", "HEAD"], ["git", "rev-parse", "--abbrev-ref", "HEAD"]):
        try:
            done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=5)
        except (OSError, subprocess.SubprocessError):
            return ""
        if done.returncode == 0 and done.stdout.strip():
            return done.stdout.strip()
        if done.returncode != 1:
            return ""
    return ""
