"""Path patterns of file rules (`Read(...)`, `Edit(...)`): gitignore-style globs with Claude Code's anchors.

Anchors: `//abs/path` is absolute, `~/x` is under the home folder, `/x` is relative to the rule's own
folder (the project root for a project settings file), `./x` and bare `x` are relative to the working
folder. After the anchor the rest is a gitignore pattern, so a bare `*.env` matches at any depth below
its folder, `src/**` everything inside `src`, and `secrets` the folder and all it holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec


@dataclass(frozen=True, slots=True)
class PathPattern:
    base: Path  # the folder the pattern is relative to (resolved)
    pattern: str
    spec: GitIgnoreSpec

    def matches(self, path: Path, is_dir: bool = False) -> bool:
        """Whether `path` (absolute) falls under this pattern; paths outside `base` never do."""
        if path != self.base and not path.is_relative_to(self.base):
            return False
        rel = path.relative_to(self.base).as_posix()
        if rel == ".":
            # The base folder itself: only a pattern covering everything below it (`**`) matches it.
            return self.pattern in ("/**", "**")
        # A folder is also tried in its folder form so `secrets/**` covers a search of `secrets`.
        return self.spec.match_file(rel) or (is_dir and self.spec.match_file(rel + "/"))


def compile_path_pattern(specifier: str, *, rule_dir: Path, cwd: Path, home: Path) -> PathPattern:
    """The pattern a file rule's specifier stands for. Raises ValueError for an empty pattern."""
    if specifier.startswith("//"):
        base, pattern = Path("/"), "/" + specifier[2:].lstrip("/")
    elif specifier == "~" or specifier.startswith("~/"):
        base, pattern = home, "/" + specifier[2:]
    elif specifier.startswith("/"):
        base, pattern = rule_dir, specifier
    elif specifier.startswith("./"):
        base, pattern = cwd, "/" + specifier[2:]
    else:
        base, pattern = cwd, specifier
    if pattern.strip("/") == "":
        # `//`, `~/`, `./` alone mean the whole folder.
        pattern = "/**"
    from pathspec import GitIgnoreSpec  # ~25 ms to import: only once a file rule is compiled

    return PathPattern(base.resolve(), pattern, GitIgnoreSpec.from_lines([pattern]))
