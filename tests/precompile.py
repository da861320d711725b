"""Bytecode for a run, made once before its xdist workers start.

On a fresh clone (CI, or the README's command: the venv is installed with `--no-compile`) nothing is compiled
yet, and every worker collects every test module: four workers would each rewrite the asserts of the same ~230
test modules (pytest's rewriting is a pass over the syntax tree in Python, ~4.5 CPU-s) and compile and write the
bytecode of the same libraries (~5.5 CPU-s, a third of it writing files), all at the same moment, before the
first test runs. Here a few processes do it once, side by side, while the controller waits; the workers then
load the caches. On a tree already compiled this only looks at file stamps (a few tens of milliseconds).

    python tests/precompile.py rewrite ROOT        # pytest's rewritten bytecode of tests/, plain bytecode of the
                                                   # rest of tests/ and of tui_agent/ (every `tui-agent` start)
    python tests/precompile.py import NAME...      # import these modules: their bytecode and their imports'

Nothing here changes what runs: a cache pytest or Python would not accept is made again as without it, and
failures are ignored (the workers then compile as before).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import subprocess
import sys
import time
from importlib.metadata import entry_points
from pathlib import Path
from types import SimpleNamespace

_IMPORT_LINE = re.compile(r"^(?:from\s+(\w[\w.]*)\s+import|import\s+(\w[\w.]*))", re.MULTILINE)
_GIVE_UP_S = 120  # a cold run takes ~8 s on two cores
_REWRITTEN = ("test_*.py", "*_test.py", "conftest.py")  # what pytest rewrites: its default python_files, conftests


def precompile(root: Path) -> None:
    """Rewrite and compile for the run in `root` (the repository); returns when it is done."""
    script = str(Path(__file__).resolve())
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    jobs = [["rewrite", str(root)]] + [["import", *names] for names in _import_jobs(root / "tests") if names]
    procs = [
        subprocess.Popen([sys.executable, script, *job], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for job in jobs
    ]
    deadline = time.monotonic() + _GIVE_UP_S
    for proc in procs:
        try:
            proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:  # an import that hangs must not hold up the run: the workers compile
            proc.kill()
            proc.wait()


def _import_jobs(tests: Path) -> list[list[str]]:
    """The modules the test modules import at their top (and pytest's plugins) whose packages have no bytecode yet,
    in two lists of about the same amount of source: two processes, one a core."""
    names = {entry.module for entry in entry_points(group="pytest11")}  # the plugins every worker loads first
    for path in tests.rglob("*.py"):
        for match in _IMPORT_LINE.finditer(path.read_text(errors="replace")):
            names.add(match.group(1) or match.group(2))
    by_top: dict[str, list[str]] = {}
    for name in sorted(names):
        by_top.setdefault(name.split(".")[0], []).append(name)
    sizes = {top: size for top in by_top if top not in ("tests", "__future__") and (size := _uncompiled_source(top))}
    jobs: list[list[str]] = [[], []]
    loads = [0, 0]
    for top in sorted(sizes, key=sizes.__getitem__, reverse=True):
        lighter = loads.index(min(loads))
        jobs[lighter] += by_top[top]
        loads[lighter] += sizes[top]
    return jobs


def _uncompiled_source(top: str) -> int:
    """Bytes of Python source in package (or module) `top` when its bytecode is not written yet, else 0 (so are the
    standard library's and extension modules')."""
    if top in sys.stdlib_module_names:
        return 0
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return 0
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return 0
    if os.path.exists(importlib.util.cache_from_source(spec.origin)):
        return 0
    origin = Path(spec.origin)
    files = origin.parent.rglob("*.py") if origin.name == "__init__.py" else [origin]
    return sum(f.stat().st_size for f in files)


def _rewrite(root: Path) -> None:
    import compileall
    from fnmatch import fnmatch

    from _pytest.assertion import rewrite

    compileall.compile_dir(str(root / "tui_agent"), quiet=2)
    tests = root / "tests"
    state = SimpleNamespace(trace=lambda *_: None)
    for path in sorted(tests.rglob("*.py")):
        if not any(fnmatch(path.name, pattern) for pattern in _REWRITTEN):
            compileall.compile_file(str(path), quiet=2)
            continue
        pyc = rewrite.get_cache_dir(path) / (path.name[:-3] + rewrite.PYC_TAIL)
        if rewrite._read_pyc(path, pyc) is not None:
            continue
        try:
            source_stat, code = rewrite._rewrite_test(path, None)  # type: ignore[arg-type]  # None: the default ini
        except SyntaxError:
            continue  # pytest reports it when it collects the module
        pyc.parent.mkdir(exist_ok=True)
        rewrite._write_pyc(state, code, source_stat, pyc)  # type: ignore[arg-type]


def _import(names: list[str]) -> None:
    for name in names:
        try:
            importlib.import_module(name)
        except BaseException:  # noqa: BLE001, S110 - a name that is not a module, or one that fails: its test will say
            pass


if __name__ == "__main__":
    del sys.path[0]  # tests/: its folders (tests/mcp) would stand in for the libraries of their names
    if sys.argv[1] == "rewrite":
        _rewrite(Path(sys.argv[2]))
    else:
        _import(sys.argv[2:])
