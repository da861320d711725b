"""Read-only git that runs nothing a repository configures.

A repository's own `.git/config` can name programs that git runs during harmless-looking reads: `git
status` runs `core.fsmonitor` and the clean filter of every changed file, `git diff` runs `diff.external`
and diff drivers, `git log -p` / `git show` / `git blame` run textconv drivers. A line the classifier
passed as read-only therefore runs with, for that one process tree:
  - `GIT_CONFIG_COUNT` / `GIT_CONFIG_KEY_n` / `GIT_CONFIG_VALUE_n` (the highest-priority config scope)
    switching off what has an off value: fsmonitor, pager, hooks, signature checks (gpg) and submodule
    recursion (a submodule's own drivers), and turning every textconv and filter driver that the
    repositories in play define into `cat` (an identity: the text is the file as stored);
  - `--no-ext-diff --no-textconv` after `git diff|log|show` and `--no-textconv` after `git blame` (an external
    diff program has no "off" value; a textconv driver, even `cat`, has git write each blob to /tmp first).
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

_STATIC: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),
    ("core.pager", "cat"),
    ("core.hooksPath", "/dev/null"),
    ("log.showSignature", "false"),
    ("gpg.program", "false"),
    ("gpg.openpgp.program", "false"),
    ("gpg.x509.program", "false"),
    ("gpg.ssh.program", "false"),
    ("status.submoduleSummary", "false"),
    ("diff.ignoreSubmodules", "dirty"),
)
# Driver keys whose value is a program; each one found is neutralised.
_DRIVER_KEYS = r"^(diff|filter)\..+\.(textconv|clean|smudge|process)$"
_NEUTRAL = {"textconv": "cat", "clean": "cat", "smudge": "cat", "process": ""}
_SCAN_TIMEOUT_S = 5.0


async def safe_git_env(dirs: list[Path]) -> dict[str, str]:
    """Environment additions that disable repository-configured programs for git run in `dirs`."""
    pairs = list(_STATIC)
    for key in await _driver_keys(dirs):
        pairs.append((key, _NEUTRAL[key.rsplit(".", 1)[1]]))
    base = int(os.environ.get("GIT_CONFIG_COUNT", "0") or 0)  # keep the user's own entries
    env = {"GIT_CONFIG_COUNT": str(base + len(pairs)), "GIT_PAGER": "cat", "GIT_OPTIONAL_LOCKS": "0"}
    for i, (key, value) in enumerate(pairs, start=base):
        env[f"GIT_CONFIG_KEY_{i}"] = key
        env[f"GIT_CONFIG_VALUE_{i}"] = value
    return env


def with_safety_flags(command: str, insertions: list[tuple[int, str]]) -> str:
    """`command` with each (offset, flags) inserted just after a diff/log/show/blame word."""
    for at, flags in sorted(set(insertions), reverse=True):
        command = f"{command[:at]} {flags}{command[at:]}"
    return command


async def _driver_keys(dirs: list[Path]) -> list[str]:
    keys: list[str] = []
    for folder in dict.fromkeys(dirs):
        if not folder.is_dir():
            continue
        for key in await _configured(folder):
            if key not in keys:
                keys.append(key)
    return keys


async def _configured(folder: Path) -> list[str]:
    """Names of the driver keys set for git run in `folder` (all scopes, includes followed)."""
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_PAGER": "cat"}
    try:
        proc = await asyncio.create_subprocess_exec(
            "git", "config", "--null", "--name-only", "--get-regexp", _DRIVER_KEYS,
            cwd=folder, env=env, stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
        )
    except OSError:
        return []  # no git: nothing it could run either
    try:
        out, _ = await asyncio.wait_for(proc.communicate(), _SCAN_TIMEOUT_S)
    except (TimeoutError, asyncio.CancelledError):
        proc.kill()
        await proc.wait()
        raise
    return [k for k in out.decode("utf-8", "replace").split("\0") if k]
