"""requirements-test.lock (what the README's test command installs) still satisfies pyproject.toml."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parents[1]
LOCK = REPO / "requirements-test.lock"
REFRESH = "run `bash .ci/refresh-lock` (docs/testing.md)"
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)(?:\s*;\s*([^\\]+?))?\s*\\?$")


def _pins(text: str) -> dict[str, tuple[str, int]]:
    """name -> (version, number of hashes) for every pinned package in a `--generate-hashes` lock."""
    pins: dict[str, tuple[str, int]] = {}
    current: str | None = None
    for line in text.splitlines():
        match = PIN.match(line)
        if match:
            current = canonicalize_name(match.group(1))
            pins[current] = (match.group(2), 0)
        elif current and line.strip().startswith("--hash=sha256:"):
            version, hashes = pins[current]
            pins[current] = (version, hashes + 1)
    return pins


def _required() -> list[Requirement]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    return [Requirement(r) for r in [*project["dependencies"], *project["optional-dependencies"]["test"]]]


def test_every_requirement_of_pyproject_is_pinned_in_the_lock_within_its_range() -> None:
    pins = _pins(LOCK.read_text())
    for requirement in _required():
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": "test"}):
            continue
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{requirement} is in pyproject.toml but not in {LOCK.name}: {REFRESH}"
        version = pins[name][0]
        assert requirement.specifier.contains(version, prereleases=True), (
            f"{LOCK.name} pins {name}=={version}, outside pyproject.toml's {requirement}: {REFRESH}"
        )


def test_every_pin_in_the_lock_carries_a_hash() -> None:
    pins = _pins(LOCK.read_text())
    assert len(pins) > len(_required())  # the dependencies' dependencies are pinned too
    assert [name for name, (_, hashes) in pins.items() if hashes == 0] == []


def test_the_lock_parser_sees_a_stale_pin() -> None:
    # The check above can fail: a pin outside a range is caught (guards the parsing, not the lock).
    stale = _pins("textual==7.0.0 \\\n    --hash=sha256:00\n")
    requirement = next(r for r in _required() if canonicalize_name(r.name) == "textual")
    assert stale == {"textual": ("7.0.0", 1)}
    assert not requirement.specifier.contains(stale["textual"][0])


def test_the_lock_holds_every_dependency_of_what_it_pins() -> None:
    """The README installs the lock with `--no-deps` (pip's resolving was about 10 s of the install): safe while the
    lock pins each dependency of each pin, extras included, within its range, as the installed metadata says."""
    import importlib.metadata

    pins = _pins(LOCK.read_text())
    wanted: list[tuple[str, str]] = [(canonicalize_name(r.name), extra) for r in _required() for extra in ("", *r.extras)]
    seen: set[tuple[str, str]] = set()
    problems = []
    while wanted:
        name, extra = wanted.pop()
        if (name, extra) in seen:
            continue
        seen.add((name, extra))
        try:
            requires = importlib.metadata.distribution(name).requires or []
        except importlib.metadata.PackageNotFoundError:
            problems.append(f"{name} is not installed")
            continue
        for line in requires:
            requirement = Requirement(line)
            if requirement.marker is not None and not requirement.marker.evaluate({"extra": extra}):
                continue
            if extra and (requirement.marker is None or "extra" not in str(requirement.marker)):
                continue  # the package's own dependencies, checked with extra ""
            dep = canonicalize_name(requirement.name)
            if dep not in pins or not requirement.specifier.contains(pins[dep][0], prereleases=True):
                problems.append(f"{name}{f'[{extra}]' if extra else ''} needs {requirement}; {LOCK.name} has {pins.get(dep)}")
            wanted += [(dep, "")] + [(dep, e) for e in requirement.extras]
    assert problems == [], f"{problems}: {REFRESH}"


def test_the_uv_that_installs_the_lock_is_pinned_with_hashes_and_is_what_the_test_command_runs() -> None:
    """The README's test command installs uv (with pip, `--require-hashes`) and uv installs the lock: uv is pinned
    like everything else, and the command CI runs is the README's."""
    pins = _pins((REPO / "requirements-uv.lock").read_text())
    assert list(pins) == ["uv"] and pins["uv"][1] > 0
    readme = (REPO / "README.md").read_text()
    command = next(line for line in readme.splitlines() if line.startswith("python3 -m venv .venv && "))
    assert "-r requirements-uv.lock" in command and "--require-hashes -r requirements-test.lock" in command
    assert command in (REPO / ".ci" / "run").read_text().splitlines()
