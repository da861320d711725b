"""tui-agent as a user installs it: the sdist is built from the project's files, the wheel from the unpacked
sdist (so the sdist holds what a build needs), and the wheel is installed into a fresh venv whose
`tui-agent --help` and `--version` run. Offline: the build uses this environment's setuptools (no build
isolation) and the fresh venv sees this environment's site-packages for the dependencies (a .pth file)."""

from __future__ import annotations

import email
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tomllib
import zipfile
from pathlib import Path


REPO = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
VERSION = PROJECT["version"]


def _run(*args: str | Path, cwd: Path) -> str:
    done = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{args}: {done.stdout}\n{done.stderr}"
    return done.stdout


def _build(root: Path) -> tuple[Path, Path]:
    """(the sdist, the wheel pip built from it). The source is copied first: a build writes into its tree."""
    source = root / "source"
    source.mkdir(parents=True)
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(REPO / name, source / name)
    shutil.copytree(REPO / "tui_agent", source / "tui_agent", ignore=shutil.ignore_patterns("__pycache__"))
    dist = root / "dist"
    # setuptools' own PEP 517 hook: what `python -m build --sdist` calls, without needing `build` installed.
    _run(sys.executable, "-c", f"from setuptools import build_meta; build_meta.build_sdist({str(dist)!r})", cwd=source)
    (sdist,) = dist.glob("tui_agent-*.tar.gz")
    # pip unpacks the sdist and builds from that alone: a file the sdist lacks fails here.
    _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", dist, sdist, cwd=root)
    (wheel,) = dist.glob("tui_agent-*.whl")
    return sdist, wheel


def _check_sdist(sdist: Path) -> None:
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    assert {"pyproject.toml", "README.md", "LICENSE", "PKG-INFO", "tui_agent/cli.py", "tui_agent/version.py"} <= names
    assert any(name.startswith("tui_agent/ui/styles/") and name.endswith(".tcss") for name in names)
    assert not any(name.startswith(("tests/", ".venv/", "bench/")) for name in names)


def _check_wheel(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = email.message_from_bytes(archive.read(f"tui_agent-{VERSION}.dist-info/METADATA"))
        entry_points = archive.read(f"tui_agent-{VERSION}.dist-info/entry_points.txt").decode()
    assert metadata["Name"] == "tui-agent" and metadata["Version"] == VERSION
    assert metadata["License-Expression"] == "MIT" and metadata["Requires-Python"] == ">=3.11"
    assert "Environment :: Console" in metadata.get_all("Classifier")
    assert metadata["Keywords"] and metadata["Description-Content-Type"] == "text/markdown"
    assert metadata.get_payload().startswith("# tui-agent")  # the README is the long description
    assert len(metadata.get_all("Requires-Dist")) >= len(PROJECT["dependencies"])
    assert "tui-agent = tui_agent.cli:entry" in entry_points
    assert any(name.startswith("tui_agent/ui/styles/") and name.endswith(".tcss") for name in names)


def _install_and_start(wheel: Path, tmp_path: Path) -> None:
    tmp_path.mkdir()
    venv = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=tmp_path)
    python = venv / "bin" / "python"
    site = Path(_run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=tmp_path).strip())
    # The dependencies come from this environment (no network); the venv's own site-packages stays first.
    (site / "test-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    _run(sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "-q", wheel, cwd=tmp_path)

    command = venv / "bin" / "tui-agent"
    assert "--permission-mode" in _run(command, "--help", cwd=tmp_path)
    assert _run(command, "--version", cwd=tmp_path) == f"{VERSION} (tui-agent)\n"  # as `claude -v` prints its own
    imported = _run(python, "-c", "import tui_agent; print(tui_agent.__file__)", cwd=tmp_path)
    assert Path(imported.strip()).is_relative_to(site)  # the wheel's copy, not this checkout's


def test_the_sdist_builds_a_wheel_that_installs_into_a_fresh_venv_and_starts(tmp_path: Path) -> None:
    # One test, not three: under xdist each worker would build the packages again (~10 s each).
    sdist, wheel = _build(tmp_path / "build")
    _check_sdist(sdist)
    _check_wheel(wheel)
    _install_and_start(wheel, tmp_path / "install")
