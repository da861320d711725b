"""The bubblewrap command line for a policy, after Claude Code's Linux sandbox (sandbox-runtime,
linux-sandbox-utils.js `wrapCommandWithSandboxLinux` / `generateFilesystemArgs`):

- `--ro-bind / /`, then a private `/tmp` and an empty `/run`, then the writable roots bound read-write over it, then what must
  stay read-only inside them (denyWrite, the protected files) bound read-only over those;
- denyRead (and credential files): a file gets an empty mode-000 file bound over it, a folder an empty
  mode-000 tmpfs, so reading fails ("Permission denied") rather than quietly reading nothing. allowRead
  lifts a deny on the same path and re-exposes a path inside a denied folder;
- `--dev /dev`, `--proc /proc` (a fresh one: the new PID namespace's), the network plan's arguments last
  (network.py: `--unshare-net`, and the proxy socket when domains are allowed);
- `--unshare-pid --unshare-user --cap-drop ALL` (as sandbox-runtime's capabilityArgs: run as root without a
  user namespace, bwrap keeps every capability and `mount -o remount,rw /` undoes the read-only root —
  measured here), `--die-with-parent`.
- No `--new-session` (sandbox-runtime has it, against TIOCSTI on the terminal): our shells already start
  in a session of their own without a terminal, and staying in bwrap's process group lets ESC's group
  signal reach the command at once (tools/processes.py); the PID namespace takes the rest down with it.
- Not done: sandbox-runtime's seccomp filter against socket(AF_UNIX). Here /tmp and /run are hidden (where
  host service sockets live); a socket file elsewhere (say ~/.docker/run/docker.sock) stays connectable.
- Missing denyWrite paths are not held (sandbox-runtime binds at the first missing component); only `.claude`
  and `.git/hooks` get a place-holder, an empty folder bwrap leaves behind in the workspace.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from .policy import SandboxPolicy

_NEVER_BIND = ("/proc", "/dev", "/sys")


@dataclass(frozen=True, slots=True)
class MaskFiles:
    """An empty unreadable file and an empty unreadable folder to bind over what must not be seen."""

    file: Path
    folder: Path


def runtime_dir() -> Path:
    """A private folder of this user for the masks and the proxy socket (short: a Unix socket lives here)."""
    path = Path(tempfile.gettempdir()) / f"tui-agent-sbx-{os.getuid()}"
    path.mkdir(mode=0o700, exist_ok=True)
    if path.is_symlink() or path.stat().st_uid != os.getuid():
        raise OSError(f"{path} is not this user's own folder; refusing to keep sandbox files there")
    os.chmod(path, 0o700)
    return path


def mask_files(folder: Path) -> MaskFiles:
    file, empty = folder / "masked-file", folder / "masked-folder"
    if not file.exists():
        file.touch()
    empty.mkdir(exist_ok=True)
    os.chmod(file, 0)
    os.chmod(empty, 0)
    return MaskFiles(file, empty)


def filesystem_args(policy: SandboxPolicy, masks: MaskFiles) -> list[str]:
    """Everything about files, in the order bwrap must apply it (a later mount covers an earlier one)."""
    # /run holds the host's service sockets (docker.sock, the D-Bus buses, ssh and gpg agents under /run/user):
    # connect() to a socket works through a read-only mount, so they are hidden, as /tmp's are by its tmpfs.
    # (sandbox-runtime blocks socket(AF_UNIX) with seccomp instead; see the module notes.)
    args = ["--ro-bind", "/", "/", "--tmpfs", "/tmp", "--tmpfs", "/run"]
    # allowRead wins over what hides a path, the private /tmp and /run included (a tool's venv under /tmp).
    for path in _existing(policy.allow_read):
        if _under_any(path, ["/tmp", "/run"]):
            args += ["--ro-bind", path, path]
    writable = _existing(policy.writable)
    for path in writable:
        if not _under_any(path, _NEVER_BIND):
            args += ["--bind", path, path]
    pinned: set[str] = set()
    for path in _existing(policy.deny_write):
        if _under_any(path, writable):  # elsewhere it is read-only already
            # Its folders below the writable root become mount points too (bound onto themselves), which
            # rename(2) refuses to move: else `mv .git x; mkdir -p .git/hooks` would leave the read-only
            # `hooks` behind in `x` and plant an unprotected one (sandbox-runtime pins ancestors the same way).
            for folder in _ancestors_below(path, writable):
                if folder not in pinned:
                    pinned.add(folder)
                    args += ["--bind", folder, folder]
            args += ["--ro-bind", path, path]
    workspaces = set(_existing(policy.workspace_roots))  # only they get place-holders, not a cache folder
    for name in (".claude", ".git/hooks"):
        # Missing, a command could create it and plant settings or a hook that runs unsandboxed later:
        # hold its place with an empty read-only folder (bwrap makes the mount point, an empty folder).
        for root in writable:
            path, parent = os.path.join(root, name), os.path.dirname(os.path.join(root, name))
            if not os.path.lexists(path) and os.path.isdir(parent) and root in workspaces:
                args += ["--ro-bind", str(masks.folder), path]
    allow_read = [os.path.realpath(p) for p in policy.allow_read]
    for path in _existing(policy.deny_read):
        if path in allow_read:
            continue
        if os.path.isdir(path):
            args += ["--perms", "0000", "--tmpfs", path, "--remount-ro", path]
            for lifted in allow_read:
                if _under_any(lifted, [path]) and lifted != path and os.path.exists(lifted):
                    args += ["--bind" if _under_any(lifted, writable) else "--ro-bind", lifted, lifted]
        else:
            args += ["--ro-bind", str(masks.file), path]
    return [*args, "--dev", "/dev", "--proc", "/proc"]


def bwrap_argv(
    bwrap: str, policy: SandboxPolicy, masks: MaskFiles, cwd: Path, network_args: Sequence[str], inner: Sequence[str]
) -> list[str]:
    """The whole argv: bwrap, its arguments, `--`, then `inner` (the bridge, if any, and `bash -c ...`)."""
    return [
        bwrap,
        *filesystem_args(policy, masks),
        *network_args,
        "--unshare-pid", "--unshare-user", "--cap-drop", "ALL", "--die-with-parent",
        "--chdir", str(cwd),
        "--",
        *inner,
    ]


def _existing(paths: Sequence[Path]) -> list[str]:
    """Real paths (a mount lands where the path really resolves), existing ones only, in order, once."""
    found: dict[str, None] = {}
    for p in paths:
        real = os.path.realpath(p)
        if os.path.lexists(real):
            found.setdefault(real, None)
    return list(found)


def _ancestors_below(path: str, roots: Sequence[str]) -> list[str]:
    """The folders between the writable root holding `path` and `path` (root and path excluded), outermost first."""
    root = max((r for r in roots if _under_any(path, [r]) and r != path), key=len, default=None)
    if root is None:
        return []
    found, folder = [], os.path.dirname(path)
    while folder != root and _under_any(folder, [root]):
        found.append(folder)
        folder = os.path.dirname(folder)
    return found[::-1]


def _under_any(path: str, roots: Sequence[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)
