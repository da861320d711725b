"""Warm starts: `tui-agent` and the MCP test servers without paying Python's imports on every start.

The suite starts `tui-agent` about 400 times and its MCP test servers about 80; each fresh start spends most
of its ~0.9 s of CPU importing the same modules. A start made here runs a launcher (launcher.py), which hands
its standard streams, arguments, environment, folder and umask to a zygote (zygote.py): one process per
worker and program that imported what a fresh run of that program imports, and forks a child for each
start. The test sees an ordinary process: its pipes, its exit code or signal, the signals it sends it.

What a warm start cannot be, it is not: a start on a terminal, or whose environment differs from the
zygote's on any variable the imports read (purity.py records them), runs fresh. Tests about the process
tree itself (who is whose child, process groups, SIGKILL of a whole group) start fresh on purpose
(`fresh=True`, or the plain commands). `PYTEST_TUI_AGENT_FRESH_STARTS=1` makes every start fresh.
tests/test_warm_start.py proves a warm run is a fresh run.
"""

from __future__ import annotations

import atexit
import fcntl
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import zlib
from pathlib import Path
from typing import IO, Any

HERE = Path(__file__).parent
ROOT = HERE.parent.parent
TUI_AGENT = ("module", "tui_agent")
FRESH_STARTS_VARIABLE = "PYTEST_TUI_AGENT_FRESH_STARTS"
SHARED_VARIABLE = "PYTEST_TUI_AGENT_WARM_SHARED"
"""A folder all workers of one run share (set by tests/conftest.py): the probes' module lists, made once."""

_lock = threading.Lock()
_zygotes: dict[tuple[str, str], "Zygote"] = {}
_folder: Path | None = None


def warm_starts() -> bool:
    return os.environ.get(FRESH_STARTS_VARIABLE) != "1"


def fresh_command(target: tuple[str, str]) -> list[str]:
    kind, name = target
    return [sys.executable, "-m", name] if kind == "module" else [sys.executable, name]


def tui_agent_command(fresh: bool = False) -> list[str]:
    """`tui-agent` (as `python -m tui_agent`): the warm launcher, or a fresh start."""
    return command(TUI_AGENT, fresh)


def python_script_command(script: str | Path, fresh: bool = False) -> list[str]:
    """`python SCRIPT`: the warm launcher, or a fresh start."""
    return command(("script", str(Path(script).resolve())), fresh)


def command(target: tuple[str, str], fresh: bool = False) -> list[str]:
    if fresh or not warm_starts():
        return fresh_command(target)
    with _lock:
        zygote = _zygotes.get(target)
        if zygote is None:
            zygote = _zygotes[target] = Zygote(target)
    return [str(zygote.launcher)]


def zygote_report(target: tuple[str, str]) -> dict[str, Any]:
    """What the zygote's imports read (purity.Report as JSON, with the modules that failed to import)."""
    command(target)
    return json.loads(_zygotes[target].report.read_text())


def _work_folder() -> Path:
    global _folder
    if _folder is None:
        _folder = Path(tempfile.mkdtemp(prefix="tui-agent-zygote-"))
        atexit.register(_stop_all)
    return _folder


def _stop_all() -> None:
    for zygote in list(_zygotes.values()):
        zygote.stop()
    _zygotes.clear()
    if _folder is not None:
        shutil.rmtree(_folder, ignore_errors=True)


class Zygote:
    """One program's zygote for this worker: started at the first start asked for, stopped when the worker
    exits (its stdin, the lifeline, closes)."""

    def __init__(self, target: tuple[str, str]) -> None:
        kind, name = target
        folder = _work_folder() / f"{len(_zygotes)}-{Path(name).stem}"
        (folder / "cwd").mkdir(parents=True)
        self.socket = folder / "socket"
        self.report = folder / "report.json"
        spec = {"kind": kind, "target": name, "preload": fresh_start_modules(target), "report": str(self.report),
                "own_code": [str(ROOT)]}
        (folder / "spec.json").write_text(json.dumps(spec))
        # named as the program, since tests (and the product's own dialogs) show the command
        self.launcher = folder / ("tui-agent" if kind == "module" else Path(name).name)
        source = (HERE / "launcher.py").read_text()
        source = source.replace('SOCKET = ""', f"SOCKET = {str(self.socket)!r}", 1)
        source = source.replace("FRESH: list = []", f"FRESH: list = {fresh_command(target)!r}", 1)
        self.launcher.write_text(f"#!{sys.executable} -IS\n{source}")
        self.launcher.chmod(0o755)
        # Started with the environment a fresh start of a test gets (scrubbed, no HOME of a test's own):
        # each start compares its own with what the imports read.
        self._process = subprocess.Popen([sys.executable, str(HERE / "zygote.py"), str(self.socket), str(folder / "spec.json")],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=folder / "cwd", env=_base_environment())
        self._process.wait()  # the daemon's parent, gone once the daemon has its own session
        assert self._process.stdout is not None
        ready = self._process.stdout.readline()
        assert ready == b"ready\n", f"the zygote for {name} did not start (see {self.report})"
        self._lifeline: IO[bytes] | None = self._process.stdin

    def stop(self) -> None:
        if self._lifeline is not None:
            self._lifeline.close()
            self._lifeline = None


def _base_environment() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTEST_CURRENT_TEST", None)
    return env


def fresh_start_modules(target: tuple[str, str]) -> list[str]:
    """The modules a real fresh run of the program imports, in order (`python -X importtime`), found once a
    run and shared by the workers. `tui_agent`: a `-p` run against the scripted model; a script: a run with
    its stdin closed (an MCP server's start and end)."""
    shared = Path(os.environ.get(SHARED_VARIABLE) or _work_folder())
    shared.mkdir(parents=True, exist_ok=True)
    kind, name = target
    listing = shared / f"modules-{kind}-{Path(name).stem}-{zlib.crc32(name.encode()):08x}.json"
    with open(listing.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if listing.exists():
            return list(json.loads(listing.read_text()))
        modules = _probe(target)
        listing.write_text(json.dumps(modules))
        return modules


def _probe(target: tuple[str, str]) -> list[str]:
    kind, name = target
    with tempfile.TemporaryDirectory(prefix="tui-agent-probe-") as scratch:
        env = {**_base_environment(), "HOME": scratch}
        server = None
        args: list[str] = []
        if kind == "module":
            from tui_agent.providers.scripted import Reply, ScriptedModel, ScriptedServer, Text

            server = ScriptedServer(ScriptedModel([Reply([Text("ok")])])).start()
            env.update({"ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "sk-probe"})
            args = ["-p", "ok", "--output-format", "json"]
        try:
            out = subprocess.run([sys.executable, "-X", "importtime", *fresh_command(target)[1:], *args], env=env, cwd=scratch,
                                 stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
        finally:
            if server is not None:
                server.stop()
    modules = []
    for line in out.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            module = line.rsplit("|", 1)[1].strip()
            if module and module != "imported package":
                modules.append(module)
    return modules
