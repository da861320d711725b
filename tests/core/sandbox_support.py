"""Shared by the sandbox tests: bwrap must be here (a test that needs it fails with the install hint, never
skips), settings files, a folder outside the workspace that the sandbox shows read-only, process lookups."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Iterator

import psutil
import pytest

from tui_agent.core.sandbox import availability

INSTALL_HINT = "bwrap (bubblewrap) is needed for the sandbox tests: install it with `apt-get install -y bubblewrap` (as root)"


def need_bwrap() -> None:
    found = availability.check()
    if not found.ok:
        pytest.fail(f"{INSTALL_HINT} ({found.why_not})")


def write_json(path: Path, data: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def user_settings(tmp_path: Path, data: dict[str, Any]) -> Path:
    """`~/.claude/settings.json` of the test's HOME (the data_home fixture)."""
    return write_json(tmp_path / "home" / ".claude" / "settings.json", data)


def outside_folder() -> Iterator[Path]:
    """A real folder outside both the workspace and /tmp (the sandbox's /tmp is private): it exists inside,
    read-only, so writing there fails with the OS's own "Read-only file system"."""
    folder = Path(tempfile.mkdtemp(prefix="tui-agent-sbx-test-", dir="/var/tmp"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def processes_with(needle: str) -> list[psutil.Process]:
    """Live processes whose environment holds `needle` (a `NAME=value` the command exported)."""
    found = []
    key = needle.encode()
    for proc in psutil.process_iter():
        try:
            with open(f"/proc/{proc.pid}/environ", "rb") as f:
                if key in f.read() and proc.status() != psutil.STATUS_ZOMBIE:
                    found.append(proc)
        except (OSError, psutil.Error):
            continue
    return [p for p in found if p.pid != os.getpid()]
