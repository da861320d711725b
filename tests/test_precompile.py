"""tests/precompile.py writes, before the workers start, exactly the caches the workers would have written:
pytest's rewritten bytecode of a test module (the same code object pytest makes, so pytest loads it rather than
rewriting again) and the plain bytecode of what the test modules import."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest
from _pytest.assertion import rewrite

from tests import precompile

SCRIPT = Path(precompile.__file__)


def _run(env_path: Path, *args: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(env_path)
    subprocess.run([sys.executable, str(SCRIPT), *args], env=env, check=True)


def test_a_test_modules_rewritten_bytecode_is_the_one_pytest_makes_and_accepts(tmp_path: Path, pytestconfig: pytest.Config) -> None:
    (tmp_path / "tui_agent").mkdir()
    (tmp_path / "tui_agent" / "__init__.py").write_text("VALUE = 1\n")
    tests = tmp_path / "tests"
    tests.mkdir()
    module = tests / "test_sample.py"
    module.write_text("def test_it():\n    x = [1, 2]\n    assert x == [1, 3], 'differs'\n")
    (tests / "helper.py").write_text("HELP = 2\n")

    _run(tmp_path, "rewrite", str(tmp_path))

    pyc = rewrite.get_cache_dir(module) / ("test_sample.py"[:-3] + rewrite.PYC_TAIL)
    loaded = rewrite._read_pyc(module, pyc)
    assert loaded is not None, "no cache pytest accepts"
    _, pytests_own = rewrite._rewrite_test(module, pytestconfig)
    assert loaded == pytests_own  # code objects compare by their bytecode, constants (nested code) and names
    assert "@pytest_ar" in loaded.co_names  # rewritten, not merely compiled
    for plain in (tests / "helper.py", tmp_path / "tui_agent" / "__init__.py"):
        assert Path(importlib.util.cache_from_source(str(plain))).is_file(), plain


def test_the_modules_test_files_import_get_their_bytecode_and_a_compiled_package_is_left_alone(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "libpkg").mkdir(parents=True)
    (site / "libpkg" / "__init__.py").write_text("from . import inner\n")
    (site / "libpkg" / "inner.py").write_text("X = 1\n")
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_uses.py").write_text("import os\nfrom libpkg import inner\n\ndef test_x():\n    pass\n")

    sys.path.insert(0, str(site))
    try:
        jobs = precompile._import_jobs(tests)
        assert any("libpkg" in job for job in jobs), jobs  # the library named at the top of a test module
        assert not any("os" in job for job in jobs)  # the standard library's are compiled already
        _run(site, "import", "libpkg")
        for module in ("__init__.py", "inner.py"):
            assert Path(importlib.util.cache_from_source(str(site / "libpkg" / module))).is_file(), module
        assert not any("libpkg" in job for job in precompile._import_jobs(tests))
    finally:
        sys.path.remove(str(site))
