"""Every test runs on a machine of its own: its own HOME (so `~/.claude`, `~/.claude.json`, `~/.config` and the
session folders are empty and the test's alone), no XDG_* or CLAUDE_CONFIG_DIR pointing elsewhere, its own working
folder, and none of the variables a developer's shell may carry that the product reads (`ANTHROPIC_*`, `CLAUDE_*`,
`MAX_THINKING_TOKENS`, `TUI_AGENT_*`, proxies, ...). Our users are Claude Code users: their machines hold exactly
the files and variables that would otherwise change what a test sees — or be written to by it.

The process itself is scrubbed once at start (what modules read on import, session fixtures, xdist workers);
then each test gets a fresh HOME and working folder. `tests/test_isolation.py` proves it: it runs tests of the
suite in a subprocess whose real HOME holds a hostile `~/.claude` and whose environment is a Claude Code user's.
"""

from __future__ import annotations

import gc
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Iterator

import pytest

SCRUBBED_PREFIXES = (
    "ANTHROPIC_", "CLAUDE_", "TUI_AGENT", "XDG_", "MCP_", "DISABLE_", "ENABLE_", "BASH_", "TEXTUAL", "AWS_",
    "GOOGLE_", "CLOUD_ML_", "VERTEX_", "OTEL_", "GIT_", "TMUX",
)
"""What the product, Claude Code's conventions, the SDKs it uses or git read from the environment."""
SCRUBBED_NAMES = frozenset({
    "MAX_THINKING_TOKENS", "EDITOR", "VISUAL", "CC", "NO_COLOR", "FORCE_COLOR", "COLUMNS", "LINES", "ENV",
    "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "all_proxy", "no_proxy",
    "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CDPATH", "PYTHONSTARTUP", "USE_BUILTIN_RIPGREP",
})
GIT_IDENTITY = {
    # commits made by tests (a scratch HOME has no ~/.gitconfig); system config left out too
    "GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "test@example.invalid", "GIT_CONFIG_NOSYSTEM": "1",
}
_SESSION_ROOT = pytest.StashKey[Path]()


KEPT_PREFIXES = ("TEXTUAL_SNAPSHOT", "PYTEST_")
"""Set by the test tools themselves (pytest-textual-snapshot's report folder, xdist's worker names)."""


def scrubbed(name: str) -> bool:
    return (name in SCRUBBED_NAMES or name.startswith(SCRUBBED_PREFIXES)) and not name.startswith(KEPT_PREFIXES)


def _scratch_machine(root: Path) -> dict[str, str]:
    home = root / "home"
    (root / "work").mkdir(parents=True, exist_ok=True)
    home.mkdir(parents=True, exist_ok=True)
    return {"HOME": str(home), **GIT_IDENTITY}


def pytest_configure(config: pytest.Config) -> None:
    """The whole process, before any test module is imported: nothing of the developer's environment."""
    for name in [n for n in os.environ if scrubbed(n)]:
        del os.environ[name]
    # The suite starts hundreds of Python processes (xdist workers, `tui-agent`, MCP servers): with
    # PYTHONDONTWRITEBYTECODE set (as it is in some shells, ours among them) each would compile the package
    # and the rewritten test modules from source again, about a third of a second each.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.dont_write_bytecode = False
    root = Path(tempfile.mkdtemp(prefix="tui-agent-tests-"))
    config.stash[_SESSION_ROOT] = root
    os.environ.update(_scratch_machine(root))
    from tests.warm_start import remember_worker_environment

    remember_worker_environment()  # what its probes run with, whatever test asks for a program first
    # the controller's, inherited by the workers: tests/warm_start's zygotes, one a program for the run
    if "PYTEST_XDIST_WORKER" not in os.environ:
        os.environ["PYTEST_TUI_AGENT_WARM_SHARED"] = str(root / "warm")
        os.environ["PYTEST_TUI_AGENT_WARM_OWNER"] = str(os.getpid())
        if (getattr(config.option, "numprocesses", None) or 0) > 1:
            from tests.precompile import precompile

            precompile(Path(__file__).resolve().parent.parent)  # before the workers start


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection made (the modules, ~3,000 test items and their marks) lives until the end: kept out of
    the garbage collector's view, its full collections during the run (~80 a run, ~0.25 s each in a worker
    by its end) and the five at a worker's end (pytest's unraisable-exception check) scan only what tests
    made. The product's own start does the same (tui_agent/ui/warm_up.py)."""
    gc.collect()
    gc.freeze()


@pytest.hookimpl(trylast=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    if "PYTEST_XDIST_WORKER" not in os.environ:
        from tests.old_runs import delete_old_runs_meanwhile

        delete_old_runs_meanwhile(session.config)


def pytest_unconfigure(config: pytest.Config) -> None:
    from tests.old_runs import wait_for_old_runs

    wait_for_old_runs(config)
    root = config.stash.get(_SESSION_ROOT, None)
    if root is not None:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(autouse=True)
def isolated_machine(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A fresh HOME and working folder for each test; variables scrubbed again (a test's own setenv is
    undone by monkeypatch afterwards, so the next test starts clean). The cache folder is the one thing a
    worker's tests share, as one machine's starts do: it holds only what the app derives from its own files
    (Textual's parsed stylesheets, ui/css_cache.py), so each UI test need not parse them again."""
    # mkdtemp, not tmp_path_factory.mktemp: that lists the whole folder of the worker's numbered folders to find the
    # next number, for every test (~1.4 CPU-s a worker by its end, and slower for each tmp_path after it)
    machines = tmp_path_factory.getbasetemp() / "machines"
    machines.mkdir(exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix="machine-", dir=machines))
    for name in [n for n in os.environ if scrubbed(n)]:
        monkeypatch.delenv(name)
    for name, value in _scratch_machine(root).items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("XDG_CACHE_HOME", str(request.config.stash[_SESSION_ROOT] / "cache"))
    monkeypatch.chdir(root / "work")
    yield root / "home"


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: two workers a core. Many tests wait on a subprocess, a timer or the other thread of the app; with
    one worker a core, a 2-core machine used 1.36 cores (305 s for the suite), with two 1.9 (245 s)."""
    return max(2, min(2 * (os.cpu_count() or 1), 16))
