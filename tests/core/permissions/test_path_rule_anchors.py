"""The anchors of a file rule's path (core/permissions/paths.py): `//` absolute however many slashes follow,
`~` and `~/` the home folder, a pattern of only slashes the whole folder (the folder itself included), a
folder pattern matching a folder only when asked about one. Pinned by mutants that survived the other tests
(docs/testing/mutation.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui_agent.core.permissions.paths import PathPattern, compile_path_pattern


def pattern(spec: str, tmp_path: Path) -> PathPattern:
    return compile_path_pattern(spec, rule_dir=tmp_path / "proj", cwd=tmp_path / "work", home=tmp_path / "home")


def test_an_absolute_pattern_keeps_its_tail_after_any_number_of_slashes(tmp_path: Path) -> None:
    found = pattern("///etc/passwd/", tmp_path)
    assert (found.base, found.pattern) == (Path("/"), "/etc/passwd/")
    assert found.matches(Path("/etc/passwd"), is_dir=True) and not found.matches(Path("/etc/passwd"))
    assert pattern("//X/y", tmp_path).pattern == "/X/y"  # only slashes are anchors
    assert pattern("/X", tmp_path).pattern == "/X"  # a name, not the whole folder


@pytest.mark.parametrize("spec", ["~", "~/", "//", "/", "./", "///"])
def test_an_anchor_alone_is_the_whole_folder_and_the_folder_itself(spec: str, tmp_path: Path) -> None:
    found = pattern(spec, tmp_path)
    assert found.pattern == "/**"
    assert found.matches(found.base) and found.matches(found.base / "a" / "b.txt")
    assert found.base == {"~": tmp_path / "home", "~/": tmp_path / "home", "/": tmp_path / "proj", "./": tmp_path / "work"}.get(spec, Path("/"))


def test_the_folder_itself_is_matched_only_by_a_pattern_covering_everything_below(tmp_path: Path) -> None:
    base = tmp_path / "work"
    assert pattern("**", tmp_path).matches(base)
    assert not pattern("*.env", tmp_path).matches(base)
    assert not pattern("src/**", tmp_path).matches(base)


def test_a_folder_pattern_needs_to_be_told_the_path_is_a_folder(tmp_path: Path) -> None:
    found = pattern("build/", tmp_path)
    assert not found.matches(tmp_path / "work" / "build")
    assert found.matches(tmp_path / "work" / "build", is_dir=True)
