"""Placing memory where Claude Code places it, for the loop.

Not in `system`: the first text block of the first user message is a `<system-reminder>` listing each
file as `Contents of <absolute path> (<kind>):` in reading order, then the current date; the prompt is its
own block. It is built once per session (a reminder that changed would break the prompt cache) and is
never stored in the history, so a resumed session gets its files read afresh. A subdirectory's files
arrive as a reminder right after the tool result that touched them (that one IS history).
Claude Code's closing line ("this context may or may not be relevant...") is left out on purpose: it
makes models ignore the user's instructions.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any, Callable

from ..access import ReadGate
from .memory import MemoryFile, MemoryReader
from .memory_imports import ImportApprovals

HEADER = (
    "As you answer the user's questions, you can use the following context:\n# claudeMd\n"
    "Codebase and user instructions are shown below. Be sure to adhere to these instructions. IMPORTANT: "
    "These instructions OVERRIDE any default behavior and you MUST follow them exactly as written."
)
WARN_CHARS = 40_000
# Tools whose `file_path` makes the memory of the file's directories load (Claude Code: reads and edits).
FILE_TOOLS = frozenset({"Read", "Edit", "MultiEdit", "Write", "NotebookEdit"})


def render_startup(files: list[MemoryFile], today: date) -> str:
    entries = [f"Contents of {f.path} ({f.label}):\n\n{f.content.strip()}" for f in files]
    return "<system-reminder>\n" + HEADER + "\n\n" + "\n\n".join(entries) + f"\n# currentDate\nToday's date is {today.isoformat()}.\n</system-reminder>\n"


def render_nested(files: list[MemoryFile]) -> str:
    body = "\n\n".join(f"Contents of {f.path}:\n\n{f.content.strip()}" for f in files)
    return f"<system-reminder>\n{body}\n</system-reminder>"


class ProjectMemory:
    """The session's memory: what was read, the reminder for the first message, lazy subdirectories."""

    def __init__(self, cwd: Path, *, home: Path | None = None, managed: Path | None = None,
                 on_notice: Callable[[str, str], None] | None = None, today: Callable[[], date] = date.today,
                 gate: ReadGate | None = None, project_dir: Path | None = None,
                 approvals: ImportApprovals | None = None, sources: list[str] | None = None) -> None:
        """`gate` is the session's (core/access.py); `approvals` the user's answers about outside imports."""
        self._reader_args: dict[str, Any] = {"home": home, "gate": gate, "project_dir": project_dir}
        if managed is not None:
            self._reader_args["managed"] = managed
        home = home if home is not None else Path.home()
        self.approvals = approvals or ImportApprovals((project_dir or cwd).resolve(), cwd.resolve(), home=home)
        self.reader = self._new_reader(cwd)
        self.on_notice = on_notice
        self.today = today
        self.startup_files: list[MemoryFile] = []
        self.nested_files: list[MemoryFile] = []
        self._reminder: str | None = None
        self._warned = False
        self._told: set[str] = set()
        # --setting-sources: memory of a source not named is not sent (None: all; managed memory always is).
        self._kinds = None if sources is None else {"Managed", *(k.capitalize() for k in sources)}

    def _new_reader(self, cwd: Path) -> MemoryReader:
        return MemoryReader(cwd, approved=self.approvals.approves, **self._reader_args)

    @property
    def files(self) -> list[MemoryFile]:
        """Every file read so far, in order (/memory lists them)."""
        return self.startup_files + self.nested_files

    def load(self) -> list[MemoryFile]:
        """Read the start-up files (afresh: after an edit, or the user's answer about outside imports)."""
        self.reader = self._new_reader(self.reader.cwd)
        self.startup_files = [f for f in self.reader.startup() if self._kinds is None or f.kind in self._kinds]
        self._reminder = None
        self._check_size()
        self._tell_skipped()
        return self.startup_files

    def reload(self) -> list[MemoryFile]:
        """Read every file afresh (after a compaction): the start-up files now, subdirectories' when touched again."""
        self.nested_files = []
        return self.load()

    def imports_to_ask(self) -> list[Path]:
        """Outside files the memory imports that the user has neither approved nor declined (the app asks)."""
        return [p for p, _ in self.reader.pending if not self.approvals.declined(p)]

    def answer_imports(self, paths: list[Path], approved: bool) -> None:
        """The user's answer in the app: remembered for the project; approved files load from now on."""
        self.approvals.record(paths, approved)
        if approved:
            self.load()

    def _tell_skipped(self) -> None:
        notes = list(self.reader.problems)
        waiting = self.imports_to_ask()
        if waiting:
            listed = ", ".join(str(p) for p in waiting)
            notes.append(f"Memory imports from outside the project were not loaded: {listed}. "
                         "Approve them in the app, or allow them with a Read rule.")
        for note in notes:
            if note not in self._told and self.on_notice is not None:
                self._told.add(note)
                self.on_notice("warning", note)

    def _check_size(self) -> None:
        total = sum(len(f.content) for f in self.files)
        if total > WARN_CHARS and not self._warned and self.files:
            self._warned = True
            biggest = max(self.files, key=lambda f: len(f.content))
            if self.on_notice is not None:
                self.on_notice("warning", f"Memory files total {total:,} characters (over {WARN_CHARS:,}); the largest is {biggest.path} ({len(biggest.content):,}). Large memory costs context on every request.")

    # ----- the loop's seams ---------------------------------------------------------------------
    def prepend(self, messages: list[dict[str, Any]]) -> None:
        """Put the reminder first in the first user message of a request (not in the history)."""
        if self._reminder is None:
            self._reminder = render_startup(self.startup_files, self.today()) if self.startup_files else ""
        if self._reminder and messages and messages[0]["role"] == "user":
            messages[0]["content"].insert(0, {"type": "text", "text": self._reminder})

    def after_tools(self, assistant_message: dict[str, Any], results: list[dict[str, Any]] | None = None) -> list[str]:
        """Text to send after this turn's tool results: the memory of subdirectories its file tools
        touched for the first time. A call that failed or was denied (an is_error result) loads nothing."""
        succeeded = None if results is None else {r.get("tool_use_id") for r in results if not r.get("is_error")}
        found: list[MemoryFile] = []
        for block in assistant_message.get("content", []):
            if block.get("type") != "tool_use" or block.get("name") not in FILE_TOOLS:
                continue
            if succeeded is None or block.get("id") in succeeded:
                path = (block.get("input") or {}).get("file_path")
                if isinstance(path, str) and path and self.reader.gate.check(path).allowed:
                    found.extend(f for f in self.reader.below(Path(path)) if self._kinds is None or f.kind in self._kinds)
        if not found:
            return []
        self.nested_files.extend(found)
        self._check_size()
        return [render_nested(found)]
