"""Where a setting came from, what each source may decide, which sources are read, and folder trust.

A repository is untrusted until the user trusts it: what it contains can ask, only the user's own files,
flags, SDK options and answers can allow. So every setting that lets a folder run a program or widen what
tools get declares the origins that may set it (`MAY_SET`); a file of another origin is reported and its
value ignored. `.claude/settings.local.json` counts as the user's (Claude Code makes it untracked and
per-user: "local" in its settings scopes).

`--setting-sources user,project,local` (and the SDK's `setting_sources`, which it passes as that flag)
decides which files are read at all: settings (rules, hooks, MCP approvals, every other key), `.mcp.json`
(project) and memory files (user: `~/.claude/CLAUDE.md`; project: `CLAUDE.md`, `.claude/rules`; local:
`CLAUDE.local.md`). `--settings`, the SDK's own options and `~/.claude.json` are read whatever it says, as
in Claude Code ("Managed policy settings and the global ~/.claude.json config are read regardless").

Folder trust is Claude Code's: `projects[<git root, else the folder>].hasTrustDialogAccepted` in
`~/.claude.json`, or in an enclosing folder's entry up to the repository root. Only read from Claude Code's
file (it rewrites it often, under its own lock; a second writer loses the user's state), written to
tui-agent's own `trusted-folders.json`, same shape. The home folder is trusted for one run only, never
saved, as Claude Code does. Only the standard library: the app checks this right after its first frame.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path
from typing import Any, Collection, Literal, get_args

Origin = Literal["user", "project", "local", "flag", "sdk", "policy"]
"""user: ~/.claude/settings.json and tui-agent's own; project: a repository's committed .claude/settings.json;
local: .claude/settings.local.json; flag: --settings and the rule flags; sdk: options of a driving program;
policy: managed settings (not read by tui-agent yet)."""
SourceName = Literal["user", "project", "local"]
"""What `--setting-sources` names."""
SOURCE_NAMES: tuple[SourceName, ...] = get_args(SourceName)
EVERY_ORIGIN: frozenset[Origin] = frozenset(get_args(Origin))
USER_OWNED: frozenset[Origin] = EVERY_ORIGIN - {"project"}

MAY_SET: dict[str, frozenset[Origin]] = {
    # Run a program the repository names, or give tools more than the user chose: the user's own only.
    "enableAllProjectMcpServers": USER_OWNED,
    "enabledMcpjsonServers": USER_OWNED,
    "sandbox.credentials.allowEnvVars": USER_OWNED,
    "apiKeyHelper": USER_OWNED,  # not implemented by tui-agent: declared so an implementation inherits it
    "statusLine": USER_OWNED,  # a program the app runs after every turn (ui/status_line.py): the user's own only
    # Only take away: anyone.
    "disabledMcpjsonServers": EVERY_ORIGIN,
    "sandbox.credentials.envVars": EVERY_ORIGIN,
    "permissions.deny": EVERY_ORIGIN,
    "permissions.ask": EVERY_ORIGIN,
    # Widen or run, but only once the folder is trusted (the app asks before it reads them; -p and the SDK
    # protocol treat the folder as trusted, as Claude Code does): anyone.
    "permissions.allow": EVERY_ORIGIN,
    "permissions.additionalDirectories": EVERY_ORIGIN,
    "permissions.defaultMode": EVERY_ORIGIN,  # bypassPermissions is refused from every file (engine.py)
    "hooks": EVERY_ORIGIN,
}
"""Which origins may set each setting that matters; a key not listed here is open to every origin."""
NEEDS_TRUST = frozenset({"permissions.allow", "permissions.additionalDirectories", "permissions.defaultMode", "hooks",
                         # The sandbox's widening keys (core/sandbox/settings.py `until_trusted`; `enabled` when false).
                         "sandbox.enabled", "sandbox.autoAllowBashIfSandboxed", "sandbox.allowUnsandboxedCommands",
                         "sandbox.excludedCommands", "sandbox.filesystem.allowWrite", "sandbox.filesystem.allowRead",
                         "sandbox.network.allowedDomains", "sandbox.network.allowLocalBinding"})
"""What a repository's committed settings decide only once the user trusts the folder (the app does not build
the agent before; an engine built for an untrusted folder, `PermissionEngine(trusted=False)`, leaves them out)."""

TRUST_FILE = "trusted-folders.json"


def may_set(key: str, origin: str) -> bool:
    return origin in MAY_SET.get(key, EVERY_ORIGIN)


def refusal(key: str, path: str) -> str:
    """The problem reported when a file whose origin may not set `key` sets it."""
    return (
        f"{path}: ignored {key}: a repository's committed settings cannot decide this "
        "(put it in ~/.claude/settings.json or .claude/settings.local.json)."
    )


# --- --setting-sources


class SettingSourcesError(ValueError):
    """A `--setting-sources` value naming something other than user, project, local."""


def parse_setting_sources(text: str | None) -> list[SourceName] | None:
    """`"user,project"` → those sources; `""` → none; None (flag not given) → None, meaning all."""
    if text is None:
        return None
    names = [n.strip() for n in text.split(",") if n.strip()]
    for name in names:
        if name not in SOURCE_NAMES:
            # Claude Code's words.
            raise SettingSourcesError(f"Invalid setting source: {name}. Valid options are: {', '.join(SOURCE_NAMES)}")
    return list(dict.fromkeys(names))  # type: ignore[arg-type]


def reads(sources: Collection[str] | None, origin: Origin) -> bool:
    """Whether files of this origin are read at all under `--setting-sources` (None: every source)."""
    if origin not in SOURCE_NAMES or sources is None:
        return True  # flags, SDK options and policy are not files the flag selects
    return origin in sources


def committed(path: Path) -> bool:
    """Whether git tracks `path`: a `.claude/settings.local.json` that came with the clone is the repository's,
    not the user's (Claude Code creates it git-ignored). Asked only when the file exists; git is told to run
    nothing the repository configures."""
    if not path.is_file():
        return False
    try:
        done = subprocess.run(
            ["git", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "ls-files", "--error-unmatch", "--", path.name],
            cwd=path.parent, env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"}, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=5,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False  # no git: nothing can be tracked
    return done.returncode == 0


# --- folder trust


def project_root(cwd: Path) -> Path:
    """The git root above `cwd` (a `.git` folder or file), or `cwd` itself outside a repository."""
    for folder in (cwd, *cwd.parents):
        if (folder / ".git").exists():
            return folder
    return cwd


def claude_json_path(home: Path) -> Path:
    """Claude Code's global config (`$CLAUDE_CONFIG_DIR/.claude.json` when set)."""
    configured = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(configured) / ".claude.json" if configured else home / ".claude.json"


def _projects(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    projects = data.get("projects") if isinstance(data, dict) else None
    return projects if isinstance(projects, dict) else {}


def _accepted(projects: dict[str, Any], folder: Path) -> bool:
    entry = projects.get(str(folder))
    return isinstance(entry, dict) and entry.get("hasTrustDialogAccepted") is True


def is_home(folder: Path, home: Path) -> bool:
    return folder.resolve() == home.resolve()


def folder_trusted(cwd: Path, *, home: Path, config_dir: Path) -> bool:
    """Trusted in Claude Code's config or ours: this folder, or an enclosing one up to the repository root
    (anywhere up outside a repository). A home-folder entry never counts: trust there is per run."""
    cwd, home = cwd.resolve(), home.resolve()
    root = project_root(cwd)
    inside_repo = root != cwd or (cwd / ".git").exists()
    tables = [_projects(claude_json_path(home)), _projects(config_dir / TRUST_FILE)]
    for folder in (cwd, *cwd.parents):
        if folder != home and any(_accepted(t, folder) for t in tables):
            return True
        if inside_repo and folder == root:
            return False
    return False


def remember_trust(cwd: Path, *, home: Path, config_dir: Path) -> bool:
    """Save the user's yes for the project (the git root, else the folder); False for the home folder,
    which is trusted for this run only."""
    cwd = cwd.resolve()
    key = project_root(cwd)
    if is_home(key, home) or is_home(cwd, home):
        return False
    path = config_dir / TRUST_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        data = {}
    if not isinstance(data, dict) or not isinstance(data.get("projects"), dict):
        data = {"projects": {}}
    data["projects"].setdefault(str(key), {})["hasTrustDialogAccepted"] = True
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".trusted-folders.")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2)
    os.replace(tmp, path)  # whole or absent
    return True


def what_the_folder_configures(cwd: Path) -> list[str]:
    """Lines for the trust question: what would apply without asking once the folder is trusted (Claude
    Code's dialog lists the same: pre-approved tools, added directories, hooks, MCP servers)."""
    cwd = cwd.resolve()
    root = project_root(cwd)
    lines: list[str] = []
    for name in ("settings.json", "settings.local.json"):  # the files the engine reads: the project root's
        lines.extend(_settings_lines(root / ".claude" / name, cwd))
    mcp = [f for f in (cwd, *cwd.parents) if (f / ".mcp.json").is_file()]
    if mcp:
        lines.append(".mcp.json here or above (MCP servers)")
    return lines


def _settings_lines(path: Path, cwd: Path) -> list[str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return []
    if not isinstance(data, dict):
        return []
    shown = os.path.relpath(path, cwd)
    out: list[str] = []
    perms = data.get("permissions") if isinstance(data.get("permissions"), dict) else {}
    allow = [str(r) for r in perms.get("allow") or [] if isinstance(r, str)] if isinstance(perms.get("allow"), list) else []
    if allow:
        out.append(f"This folder pre-approves {len(allow)} tool permission{'s' * (len(allow) != 1)} in {shown}: {', '.join(allow[:8])}")
    dirs = [str(d) for d in perms.get("additionalDirectories") or [] if isinstance(d, str)] if isinstance(perms.get("additionalDirectories"), list) else []
    if dirs:
        out.append(f"This folder adds {len(dirs)} director{'ies' if len(dirs) != 1 else 'y'} to the workspace in {shown}: {', '.join(dirs[:6])}")
    if isinstance(data.get("hooks"), dict) and data["hooks"]:
        out.append(f"This folder configures hooks that can run commands without asking, declared in {shown}")
    return out
