"""Project memory: the instruction files Claude Code reads, in its order, plus AGENTS.md.

Broadest first: the managed file (/etc/claude-code/CLAUDE.md), the user's (~/.claude/CLAUDE.md and
~/.claude/rules/*.md), then each directory from the filesystem root down to the working directory:
`CLAUDE.md`, `.claude/CLAUDE.md`, `.claude/rules/*.md`, and `CLAUDE.local.md` last. `AGENTS.md` is read
wherever a `CLAUDE.md` is (right after it). A file that is a link to, or has the same content as, one
already read is read once. `@path` imports (relative to the importing file, `~` allowed) follow the file
that imports them, at most 4 levels deep, cycles stopped, never inside code spans or fences.
Directories below the working directory are read later, when a tool first touches a file under them.
"""

from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Literal

Kind = Literal["Managed", "User", "Project", "Local"]
MANAGED_MEMORY = Path("/etc/claude-code/CLAUDE.md")
MAX_IMPORT_DEPTH = 4
KIND_LABELS: dict[Kind, str] = {
    "Managed": "organization-managed policy instructions",
    "User": "user's private global instructions for all projects",
    "Project": "project instructions, checked into the codebase",
    "Local": "user's private project instructions, not checked in",
}
# Claude Code's import syntax: `@` after a line start or a space, up to the next unescaped space.
IMPORT = re.compile(r"(?:^|\s)@((?:[^\s\\]|\\ )+)")


@functools.cache
def _parser() -> Any:
    # Imported on first use: markdown-it costs ~30 ms, and this module sits on the app's path to its first frame.
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark")


@dataclass(frozen=True, slots=True)
class MemoryFile:
    path: Path
    kind: Kind
    content: str
    imported_by: Path | None = None
    depth: int = 0
    """0 for a file read for itself; n for an import n levels down."""

    @property
    def label(self) -> str:
        return KIND_LABELS[self.kind]


def imports_in(text: str) -> list[str]:
    """The `@path` imports of a Markdown text, outside code spans, fences and code blocks."""
    found: list[str] = []
    for token in _parser().parse(text):
        if token.type != "inline":
            continue
        for child in token.children or []:
            if child.type == "text":
                found.extend(m.replace("\\ ", " ") for m in IMPORT.findall(child.content))
    return found


def _resolve_import(ref: str, importer: Path) -> Path | None:
    ref = ref.rstrip(".,;:)")
    if ref.startswith("~/"):
        path = Path(ref).expanduser()
    elif ref.startswith("/"):
        path = Path(ref)
    else:
        path = importer.parent / ref
    return path if path.is_file() else None


def _read_text(path: Path) -> str | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if b"\0" in data[:8192]:
        return None  # not a text file
    return data.decode("utf-8", errors="replace")


class MemoryReader:
    """Reads memory files once each (by real path and by content) across the whole session."""

    def __init__(self, cwd: Path, home: Path | None = None, managed: Path = MANAGED_MEMORY) -> None:
        self.cwd = cwd.resolve()
        self.home = home if home is not None else Path.home()
        self.managed = managed
        self._paths: set[Path] = set()
        self._hashes: set[str] = set()
        self.loaded_dirs: set[Path] = set()

    def _take(self, path: Path, kind: Kind, importer: Path | None = None, depth: int = 0) -> Iterator[MemoryFile]:
        try:
            real = path.resolve()
        except OSError:
            return
        if real in self._paths or not path.is_file():
            return
        text = _read_text(path)
        if text is None:
            return
        self._paths.add(real)
        digest = hashlib.sha256(text.strip().encode()).hexdigest()
        if digest in self._hashes or not text.strip():
            return
        self._hashes.add(digest)
        yield MemoryFile(path.absolute(), kind, text, importer, depth)
        if depth >= MAX_IMPORT_DEPTH:
            return
        for ref in imports_in(text):
            target = _resolve_import(ref, path)
            if target is not None:
                yield from self._take(target, kind, path.absolute(), depth + 1)

    def _directory(self, folder: Path) -> Iterator[MemoryFile]:
        self.loaded_dirs.add(folder)
        for name in ("CLAUDE.md", "AGENTS.md"):
            yield from self._take(folder / name, "Project")
        for name in ("CLAUDE.md", "AGENTS.md"):
            yield from self._take(folder / ".claude" / name, "Project")
        yield from self._rules(folder / ".claude" / "rules", "Project")
        yield from self._take(folder / "CLAUDE.local.md", "Local")

    def _rules(self, folder: Path, kind: Kind) -> Iterator[MemoryFile]:
        if folder.is_dir():
            for rule in sorted(folder.rglob("*.md")):
                yield from self._take(rule, kind)

    def startup(self) -> list[MemoryFile]:
        """The files read when the session starts, in order."""
        out: list[MemoryFile] = []
        out.extend(self._take(self.managed, "Managed"))
        out.extend(self._take(self.managed.with_name("AGENTS.md"), "Managed"))
        user = self.home / ".claude"
        out.extend(self._take(user / "CLAUDE.md", "User"))
        out.extend(self._take(user / "AGENTS.md", "User"))
        out.extend(self._rules(user / "rules", "User"))
        for folder in [*reversed(self.cwd.parents), self.cwd]:
            out.extend(self._directory(folder))
        return out

    def below(self, file_path: Path) -> list[MemoryFile]:
        """The files of directories between the working directory and `file_path` not read yet (a tool
        just touched `file_path`)."""
        try:
            target = file_path.resolve().parent
            rel = target.relative_to(self.cwd)
        except (OSError, ValueError):
            return []
        out: list[MemoryFile] = []
        folder = self.cwd
        for part in rel.parts:
            folder = folder / part
            if folder not in self.loaded_dirs:
                out.extend(self._directory(folder))
        return out
