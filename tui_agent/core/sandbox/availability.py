"""Can the sandbox start here? One cheap probe (bwrap found on PATH, then one real `bwrap ... true` with the
namespaces a command gets), cached per bwrap path for the process: a few milliseconds, once."""

from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import dataclass

INSTALL_HINT = "install it with `sudo apt-get install bubblewrap` (Debian/Ubuntu) or your distribution's `bubblewrap` package"
_PROBE_TIMEOUT_S = 5.0


@dataclass(frozen=True, slots=True)
class Availability:
    bwrap: str | None
    why_not: str | None = None
    """None when available; else what is missing and how to get it, in words for the user."""

    @property
    def ok(self) -> bool:
        return self.why_not is None


_cache: dict[tuple[str | None, str | None], Availability] = {}


def check(path: str | None = None, bwrap: str | None = None) -> Availability:
    """Whether a sandbox can start. `path`: the PATH to look in (default ours); `bwrap`: an explicit binary."""
    key = (path, bwrap)
    if key not in _cache:
        _cache[key] = _probe(path, bwrap)
    return _cache[key]


def _probe(path: str | None, explicit: str | None) -> Availability:
    if not sys.platform.startswith("linux"):
        return Availability(None, f"the sandbox needs Linux with bubblewrap; {sys.platform} is not supported yet")
    found = explicit if explicit is not None else shutil.which("bwrap", path=path)
    if found is None or not shutil.which(found):
        where = f"at {explicit}" if explicit else "on PATH"
        return Availability(None, f"bubblewrap (`bwrap`) was not found {where}: {INSTALL_HINT}")
    argv = [found, "--ro-bind", "/", "/", "--unshare-user", "--unshare-pid", "--cap-drop", "ALL", "--", "true"]
    try:
        done = subprocess.run(argv, capture_output=True, timeout=_PROBE_TIMEOUT_S, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Availability(found, f"bubblewrap at {found} could not run ({exc})")
    if done.returncode != 0:
        said = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no message"]
        return Availability(found, (
            f"bubblewrap at {found} cannot create a sandbox here ({said[0]}): unprivileged user namespaces must be "
            "enabled (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04 also "
            "kernel.apparmor_restrict_unprivileged_userns=0)"))
    return Availability(found)


def forget() -> None:
    """Probe again next time (tests that change PATH)."""
    _cache.clear()
