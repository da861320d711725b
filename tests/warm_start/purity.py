"""What importing a program's modules read from the machine: the proof that a warm start is a fresh one.

A zygote imports a program's modules once and forks a child for each start. That child behaves as a fresh
process would only if nothing the imports did depends on what differs between starts: the environment, the
working folder and the files on disk. `record_imports()` watches the imports for exactly those reads:

- environment variables read (`os.environ[...]`, `.get`, `in`, `os.getenv`), with the value seen; reading the
  whole environment (iterating it, copying it) is noted as such;
- the working folder asked for (`os.getcwd`), with the module that asked;
- files opened (the `open` audit event, which C code raises too) outside the Python installation and the
  program's own source.

The zygote then sends a start whose environment differs on a variable read back to a fresh start, resets the
few module attributes known to keep the import-time folder (FOLDER_KEPT_AT_IMPORT), and the suite's test
(tests/test_warm_start.py) fails when a new read shows up.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Iterator

FOLDER_KEPT_AT_IMPORT = {
    # module: attributes holding os.getcwd() as it was at import (reset to the child's own folder)
    "multiprocessing.process": ("ORIGINAL_DIR",),
    "rich": ("_IMPORT_CWD",),
}
IGNORED_FILES = ("/proc/stat", "/dev/null", "/dev/urandom")
"""Opened at import to learn about the machine itself, not the start (psutil's boot time)."""
USER_SITE_MODULES = ("sysconfig", "site")
"""They ask for HOME to name the user's site folder, which a venv never puts on sys.path."""


@dataclass
class Report:
    variables: dict[str, str | None] = field(default_factory=dict)
    """Each environment variable read, with its value then (None: unset)."""
    whole_environment: list[str] = field(default_factory=list)
    """Modules that read every variable at once."""
    folder_kept_by: list[str] = field(default_factory=list)
    """Modules that asked for the working folder."""
    files: list[str] = field(default_factory=list)
    """Files opened outside the Python installation and the program's own code."""
    readers: dict[str, str] = field(default_factory=dict)
    """Which module read each variable first (to name it in a failure)."""

    @property
    def pure(self) -> bool:
        """Nothing read that a start may change, beyond the variables compared at each start and the
        folders reset in the child."""
        unknown_folder = [m for m in self.folder_kept_by if m not in FOLDER_KEPT_AT_IMPORT]
        return not self.whole_environment and not unknown_folder and not self.files

    def as_json(self) -> dict[str, object]:
        return {"variables": self.variables, "whole_environment": self.whole_environment,
                "folder_kept_by": self.folder_kept_by, "files": self.files, "pure": self.pure,
                "readers": self.readers}


def _caller_module(depth: int = 2) -> str:
    frame = sys._getframe(depth)
    while frame is not None:
        name = frame.f_globals.get("__name__", "?")
        if name not in ("os", "_collections_abc", "collections.abc", __name__, "posixpath", "genericpath", "contextlib"):
            return str(name)
        frame = frame.f_back  # type: ignore[assignment]
    return "?"


@contextmanager
def record_imports(own_code: list[str]) -> Iterator[Report]:
    """Watch the reads of everything imported inside the block (the methods are restored after it; the
    audit hook, which cannot be removed, goes quiet)."""
    report = Report()
    environ_class = type(os.environ)
    saved = {name: getattr(environ_class, name) for name in ("__getitem__", "__iter__", "copy")}
    real_getcwd = os.getcwd
    installed = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix]
    allowed = tuple(os.path.realpath(p) + os.sep for p in installed + own_code)
    active = [True]

    def getitem(self: os._Environ[str], key: str) -> str:
        value = os.environ._data.get(self.encodekey(key))  # type: ignore[attr-defined]
        reader = _caller_module()
        if not (key == "HOME" and reader in USER_SITE_MODULES):
            report.variables.setdefault(key, None if value is None else self.decodevalue(value))
            report.readers.setdefault(key, reader)
        return saved["__getitem__"](self, key)

    def iterate(self: os._Environ[str]) -> Iterator[str]:
        report.whole_environment.append(_caller_module())
        return saved["__iter__"](self)

    def copy(self: os._Environ[str]) -> dict[str, str]:
        report.whole_environment.append(_caller_module())
        return {k: saved["__getitem__"](self, k) for k in saved["__iter__"](self)}

    def getcwd() -> str:
        report.folder_kept_by.append(_caller_module())
        return real_getcwd()

    def audit(event: str, args: tuple[object, ...]) -> None:
        if not active[0] or event != "open" or not isinstance(args[0], str):
            return
        path = os.path.realpath(os.path.join(real_getcwd(), args[0]))  # (not the watched getcwd)
        if path.startswith(allowed) or path in IGNORED_FILES or os.path.isdir(path) or args[0] in sys.path:
            return
        report.files.append(path)

    environ_class.__getitem__ = getitem  # type: ignore[method-assign]
    environ_class.__iter__ = iterate  # type: ignore[method-assign]
    environ_class.copy = copy  # type: ignore[method-assign]
    os.getcwd = getcwd
    sys.addaudithook(audit)
    try:
        yield report
    finally:
        active[0] = False
        for name, method in saved.items():
            setattr(environ_class, name, method)
        os.getcwd = real_getcwd
