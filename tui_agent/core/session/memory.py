"""Project memory: the instruction files Claude Code reads, in its order, plus AGENTS.md.

Broadest first: the managed file (/etc/claude-code/CLAUDE.md), the user's (~/.claude/CLAUDE.md and
~/.claude/rules/*.md), then each directory from the filesystem root down to the working directory:
`CLAUDE.md`, `.claude/CLAUDE.md`, `.claude/rules/*.md`, and `CLAUDE.local.md` last. `AGENTS.md` is read
wherever a `CLAUDE.md` is (right after it). A file that is a link to, or has the same content as, one
already read is read once. `@path` imports (relative to the importing file, `~` allowed) follow the file
that imports them, at most 4 levels deep, cycles stopped, never inside code spans or fences.
Directories below the working directory are read later, when a tool first touches a file under them.

Every file is judged by the gate (core/access.py) where it resolves: a Read deny rule keeps it out; inside
the project (git root, working folder), `~/.claude`, or its own folder (not a link out of it) it loads;
anything else (an import of `~/.ssh/id_rsa`, a CLAUDE.md linked to a secret) loads only when the user
approved it for this project or a Read allow rule names it, and is otherwise listed in `pending`. A file
over 4 MiB is skipped unread (a warning in `problems`); one over 40,000 characters is cut with a note.
"""

from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Literal

from ...tools.base import Workspace
from ..access import MAX_MEMORY_BYTES, MAX_MEMORY_CHARS, Access, ReadGate, TooLarge, read_text_head

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
    cut: bool = False
    """Over MAX_MEMORY_CHARS: only its start is here, with a note saying so."""

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


def _resolve_import(ref: str, importer: Path, home: Path) -> Path | None:
    ref = ref.rstrip(".,;:)")
    if ref.startswith("~/"):
        path = home / ref[2:]
    elif ref.startswith("/"):
        path = Path(ref)
    else:
        path = importer.parent / ref
    return path if path.is_file() else None


def _cut_note(path: Path, size: int) -> str:
    return (f"\n\n[... {path} is cut here: memory files are read up to {MAX_MEMORY_CHARS:,} characters "
            f"and this one has {size:,} bytes. Read the file for the rest ...]")


def _never(_: Path) -> bool:
    return False


class MemoryReader:
    """Reads memory files once each (by real path and by content) across the whole session."""

    def __init__(self, cwd: Path, home: Path | None = None, managed: Path = MANAGED_MEMORY, *,
                 gate: ReadGate | None = None, project_dir: Path | None = None,
                 approved: Callable[[Path], bool] = _never) -> None:
        """`gate` judges each file (default: the working folder, no rules); `project_dir` is the git root;
        `approved(real_path)` says whether the user approved an outside import for this project."""
        self.cwd = cwd.resolve()
        self.home = home if home is not None else Path.home()
        self.managed = managed
        self.gate = gate or ReadGate(Workspace.at(self.cwd))
        self.project_dir = (project_dir or self.cwd).resolve()
        self.approved = approved
        self._inside = tuple(dict.fromkeys([self.project_dir, self.cwd, _resolved(self.home / ".claude")]))
        self._paths: set[Path] = set()
        self._hashes: set[str] = set()
        self.loaded_dirs: set[Path] = set()
        self.pending: list[tuple[Path, Path | None]] = []
        """(where it resolves, the file importing it) of each outside file not approved: not loaded."""
        self.problems: list[str] = []
        """Files skipped for their size (a warning for the user)."""

    def _judge(self, path: Path, kind: Kind, real: Path, depth: int) -> Access:
        inside = self._inside
        # Read for itself where it was found (an ancestor's CLAUDE.md), unless it is a link out of its folder.
        # The user's own files (~/.claude, the managed file) may link anywhere: that is the user's doing (dotfiles);
        # an ancestor's link may not (an unpacked archive's parent folder is not the user's).
        if depth == 0 and (real.parent == _resolved(path.parent) or kind in ("User", "Managed")):
            inside = (*inside, real)
        return self.gate.check_memory(path, inside, self.approved)

    def _take(self, path: Path, kind: Kind, importer: Path | None = None, depth: int = 0) -> Iterator[MemoryFile]:
        try:
            if not path.is_file():
                return
            real = path.resolve()
        except (OSError, RuntimeError):
            return
        if real in self._paths:
            return
        access = self._judge(path, kind, real, depth)
        if access.verdict == "ask":
            if all(p != real for p, _ in self.pending):
                self.pending.append((real, importer))
            return
        self._paths.add(real)
        if not access.allowed:
            return  # a Read deny rule names it
        try:
            head = read_text_head(path, max_chars=MAX_MEMORY_CHARS, max_bytes=MAX_MEMORY_BYTES)
        except TooLarge as exc:
            self.problems.append(f"Memory file skipped: {exc} (the limit is 4 MiB).")
            return
        if head is None:
            return
        text = head.text
        digest = hashlib.sha256(text.strip().encode()).hexdigest()
        if digest in self._hashes or not text.strip():
            return
        self._hashes.add(digest)
        content = text + _cut_note(path.absolute(), head.size) if head.cut else text
        yield MemoryFile(path.absolute(), kind, content, importer, depth, head.cut)
        if depth >= MAX_IMPORT_DEPTH:
            return
        for ref in imports_in(text):
            target = _resolve_import(ref, path, self.home)
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


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path.absolute()
