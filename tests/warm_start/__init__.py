"""Warm starts: `tui-agent` and the MCP test servers without paying Python's imports on every start.

The suite starts `tui-agent` about 400 times and its MCP test servers about 80; each fresh start spends most
of its ~0.9 s of CPU importing the same modules. A start made here runs a launcher (launcher.py), which hands
its standard streams, arguments, environment, folder and umask to a zygote (zygote.py): one process per
program for the whole run (its workers share it) that imported what a fresh run of that program imports, and forks a child for each
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
from typing import Any

HERE = Path(__file__).parent
ROOT = HERE.parent.parent
TUI_AGENT = ("module", "tui_agent")
FRESH_STARTS_VARIABLE = "PYTEST_TUI_AGENT_FRESH_STARTS"
SHARED_VARIABLE = "PYTEST_TUI_AGENT_WARM_SHARED"
"""A folder all workers of one run share (set by tests/conftest.py): the zygotes and the probes' module lists."""
OWNER_VARIABLE = "PYTEST_TUI_AGENT_WARM_OWNER"
"""The pid of the run's controller (set by tests/conftest.py): the zygotes end with it."""

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


def _shared_folder() -> Path:
    """The run's folder (the controller's, when xdist runs the suite): one zygote a program for all workers."""
    global _folder
    shared = os.environ.get(SHARED_VARIABLE)
    if shared:
        return Path(shared)
    if _folder is None:
        _folder = Path(tempfile.mkdtemp(prefix="tui-agent-zygote-"))
        atexit.register(shutil.rmtree, _folder, ignore_errors=True)
    return _folder


def _owner() -> int:
    """The process whose end ends the zygotes: the run's controller (set by tests/conftest.py), or this one."""
    return int(os.environ.get(OWNER_VARIABLE) or os.getpid())


class Zygote:
    """One program's zygote for the run: started by the first worker that asks for a start (the others wait
    on its lock, then use it), ended when the run's controller ends."""

    def __init__(self, target: tuple[str, str]) -> None:
        kind, name = target
        # a short path: the product's dialogs show the command (the launcher), and cut long ones
        folder = _shared_folder() / f"{zlib.crc32(name.encode()):08x}"
        self.socket = folder / "socket"
        self.report = folder / "report.json"
        # named as the program, since tests (and the product's own dialogs) show the command
        self.launcher = folder / ("tui-agent" if kind == "module" else Path(name).name)
        folder.parent.mkdir(parents=True, exist_ok=True)
        with open(f"{folder}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not (folder / "ready").exists():
                self._start(target, folder)

    def _start(self, target: tuple[str, str], folder: Path) -> None:
        kind, name = target
        shutil.rmtree(folder, ignore_errors=True)  # what a start that failed half-way left
        (folder / "cwd").mkdir(parents=True)
        spec = {"kind": kind, "target": name, "preload": fresh_start_modules(target), "report": str(self.report),
                "own_code": [str(ROOT)], "owner": _owner()}
        (folder / "spec.json").write_text(json.dumps(spec))
        source = (HERE / "launcher.py").read_text()
        source = source.replace('SOCKET = ""', f"SOCKET = {str(self.socket)!r}", 1)
        source = source.replace("FRESH: list = []", f"FRESH: list = {fresh_command(target)!r}", 1)
        self.launcher.write_text(f"#!{sys.executable} -IS\n{source}")
        self.launcher.chmod(0o755)
        # Started from whichever test asked first, in that test's environment: each start compares its own
        # with the values the imports read (zygote.differs), so which test that was does not matter.
        process = subprocess.Popen([sys.executable, str(HERE / "zygote.py"), str(self.socket), str(folder / "spec.json")],
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, cwd=folder / "cwd", env=_base_environment())
        out, _ = process.communicate()  # the daemon's parent ends at once; the daemon closes its copy once ready
        assert out == b"ready\n", f"the zygote for {name} did not start (see {self.report})"
        (folder / "ready").touch()


def _base_environment() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTEST_CURRENT_TEST", None)
    return env


_worker_environment: dict[str, str] | None = None


def remember_worker_environment() -> None:
    """The process's environment before any test changes it (tests/conftest.py, once scrubbed): what the probes
    run with. A probe runs the program itself, and the asking test's own variables would make it act for that
    test: an MCP test server probed with the test's MCP_TEST_LOG wrote its "server pid" into the test's log."""
    global _worker_environment
    _worker_environment = dict(os.environ)


def fresh_start_modules(target: tuple[str, str]) -> list[str]:
    """The modules real fresh runs of the program import, in order (`python -X importtime`), found once a run
    and shared by the workers. `tui_agent`: a `-p` run whose model calls the common tools, and a stream-json
    run as the SDK makes (the modules either imports: the suite makes both kinds); a script: a run with its
    stdin closed (an MCP server's start and end)."""
    shared = _shared_folder()
    shared.mkdir(parents=True, exist_ok=True)
    kind, name = target
    listing = shared / f"modules-{kind}-{Path(name).stem}-{zlib.crc32(name.encode()):08x}.json"
    with open(listing.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if listing.exists():
            return list(json.loads(listing.read_text()))
        found = [m for run in _probe_runs(target) for m in _imported_by(target, *run)]
        modules = list(dict.fromkeys(found + (IMPORTED_ON_A_THREAD if target == TUI_AGENT else [])))
        listing.write_text(json.dumps(modules))
        return modules


IMPORTED_ON_A_THREAD = ["watchfiles", "anyio._backends._asyncio"]
"""Imported by a run's threads (the file watcher, the SDK's), which a probe's short run ends before they finish
importing, so `-X importtime` never lists them."""


def _probe_runs(target: tuple[str, str]) -> list[tuple[list[str], str, list[Any]]]:
    """(arguments, stdin, the scripted model's replies) of each probe run."""
    if target != TUI_AGENT:
        return [([], "", [])]
    from tui_agent.providers.scripted import Reply, Text, ToolUse

    tools = Reply([ToolUse("Read", {"file_path": "README.md"}), ToolUse("Bash", {"command": "echo probe"}),
                   ToolUse("Grep", {"pattern": "probe"}), ToolUse("Glob", {"pattern": "*.md"})])
    user = json.dumps({"type": "user", "message": {"role": "user", "content": "ok"}, "session_id": "", "parent_tool_use_id": None})
    return [
        (["-p", "ok", "--output-format", "json", "--allowedTools", "Bash"], "", [tools, Reply([Text("ok")])]),
        (["--input-format", "stream-json", "--output-format", "stream-json", "--verbose"], user + "\n", [Reply([Text("ok")])]),
    ]


def _imported_by(target: tuple[str, str], args: list[str], stdin: str, replies: list[Any]) -> list[str]:
    with tempfile.TemporaryDirectory(prefix="tui-agent-probe-") as scratch:
        env = {**(_worker_environment or _base_environment()), "HOME": scratch}
        Path(scratch, "README.md").write_text("# probe\n")
        server = None
        if target == TUI_AGENT:
            from tui_agent.providers.scripted import ScriptedModel, ScriptedServer

            server = ScriptedServer(ScriptedModel(replies)).start()
            env.update({"ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "sk-probe"})
        try:
            out = subprocess.run([sys.executable, "-X", "importtime", *fresh_command(target)[1:], *args], env=env, cwd=scratch,
                                 input=stdin, capture_output=True, text=True, timeout=120)
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
