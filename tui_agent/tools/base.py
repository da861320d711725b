"""The tool protocol: what every tool declares, and the context a call runs in.

A tool is a class with a pydantic input model (its JSON schema is what the API gets; unexpected
parameters are rejected), flags the executor and the permission engine read, a business check
(`validate_input`) and an async, cancellable `call`. Tools never see the loop or the UI: they get a
`ToolContext` with the workspace, the session folder, the file-read ledger and a progress callback.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, ClassVar, Generic, TypeVar

from pydantic import BaseModel, ConfigDict

from .os_names import on_disk

DEFAULT_MAX_RESULT_SIZE_CHARS = 100_000


class ToolInput(BaseModel):
    """Base of every tool's input model: unknown parameters are an error, not silently dropped."""

    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=True)


InputT = TypeVar("InputT", bound=ToolInput)


class ToolError(Exception):
    """Raised by a tool for an expected failure; its message becomes an is_error tool_result."""


class ToolTimeout(ToolError):
    """Raised by a tool that ran out of time: the result is its message and the progress it reported."""


@dataclass(slots=True)
class ToolOutput:
    """What a call produced. `content` goes to the model; `data` travels in the event for the UI."""

    content: str | list[dict[str, Any]]
    is_error: bool = False
    data: Any = None
    # Where the whole output lives when `content` holds only a bounded part (a Bash spill file).
    full_output_path: Path | None = None


@dataclass(frozen=True, slots=True)
class FileStamp:
    mtime_ns: int
    size: int


class FileReadState:
    """The ledger of files read in this session, for the "read before edit, unchanged since" guard."""

    def __init__(self) -> None:
        self._stamps: dict[str, FileStamp] = {}
        # Paths an outside watcher saw change after they were read (see tools that watch).
        self.changed_externally: set[str] = set()

    @staticmethod
    def stamp_of(path: Path) -> FileStamp:
        st = path.stat()
        return FileStamp(st.st_mtime_ns, st.st_size)

    def record(self, path: Path) -> None:
        key = str(path)
        self._stamps[key] = self.stamp_of(path)
        self.changed_externally.discard(key)

    def was_read(self, path: Path) -> bool:
        return str(path) in self._stamps

    def stamp(self, path: Path) -> FileStamp | None:
        return self._stamps.get(str(path))

    def paths(self) -> list[str]:
        return list(self._stamps)

    def check_unchanged(self, path: Path) -> str | None:
        """None when `path` was read and is unchanged since; otherwise the reason for the model."""
        key = str(path)
        before = self._stamps.get(key)
        if before is None:
            return f"File has not been read yet. Read it first before writing to it: {path}"
        try:
            now = self.stamp_of(path)
        except FileNotFoundError:
            return f"File was deleted since it was read: {path}. Read it again before writing to it."
        if now != before or key in self.changed_externally:
            return (
                f"File has been modified since it was read, either by the user or by a linter: {path}. "
                "Read it again before attempting to write it."
            )
        return None


@dataclass(frozen=True, slots=True)
class Workspace:
    """The folders tools may touch: the working folder and any `--add-dir` folders (all resolved)."""

    root: Path
    extra_dirs: tuple[Path, ...] = ()

    @classmethod
    def at(cls, root: str | Path, extra_dirs: tuple[str | Path, ...] = ()) -> "Workspace":
        return cls(Path(root).resolve(), tuple(Path(d).resolve() for d in extra_dirs))

    @property
    def roots(self) -> tuple[Path, ...]:
        return (self.root, *self.extra_dirs)

    def resolve(self, path: str | Path) -> Path:
        """An absolute, symlink-resolved path; relative paths are taken from the working folder. A name
        the model wrote with `\\xNN` for a byte that is not UTF-8 is the file with that byte (os_names)."""
        p = Path(os.path.expanduser(str(path)))
        if not p.is_absolute():
            p = self.root / p
        return on_disk(p).resolve()

    def contains(self, path: str | Path) -> bool:
        resolved = self.resolve(path)
        return any(resolved == r or resolved.is_relative_to(r) for r in self.roots)


def _no_progress(_: str) -> None:
    return None


@dataclass(slots=True)
class ToolContext:
    """Everything a call may use. One per call; the shared parts are the session's."""

    workspace: Workspace
    session_dir: Path
    read_state: FileReadState
    tool_use_id: str = ""
    progress: Callable[[str], None] = _no_progress
    # Per-session objects that tools share (e.g. the background shells), keyed by their owner.
    services: dict[str, Any] = field(default_factory=dict)
    # The call's own abort signal (core.abort.AbortSignal): a tool that runs a child agent chains to it.
    signal: Any = None

    @property
    def tool_results_dir(self) -> Path:
        return self.session_dir / "tool-results"

    def for_call(self, tool_use_id: str, progress: Callable[[str], None], signal: Any = None) -> "ToolContext":
        return ToolContext(
            self.workspace, self.session_dir, self.read_state, tool_use_id, progress, self.services, signal
        )


class Tool(Generic[InputT]):
    """Base class of every tool. Subclasses set the ClassVars and implement `call`."""

    name: ClassVar[str]
    aliases: ClassVar[tuple[str, ...]] = ()
    description: ClassVar[str]
    Input: ClassVar[type[ToolInput]]
    max_result_size_chars: ClassVar[int] = DEFAULT_MAX_RESULT_SIZE_CHARS
    # The agent's own bookkeeping (its todo list, its own background shells): runs without asking in every
    # mode, as in Claude Code; only a deny or ask rule the user wrote for the tool applies.
    bookkeeping: ClassVar[bool] = False
    # A tool whose call is a question to the person (AskUserQuestion, ExitPlanMode): it always asks, in every
    # mode (no allow rule answers for the user), and is not offered where no one can answer (`-p`).
    asks_user: ClassVar[bool] = False

    _schema_cache: ClassVar[dict[type, dict[str, Any]]] = {}

    def is_enabled(self) -> bool:
        return True

    def is_offered(self) -> bool:
        """Whether the next request offers it (asked per request; `is_enabled` once, when the registry is made)."""
        return True

    def is_read_only(self, input: InputT) -> bool:
        return False

    def is_concurrency_safe(self, input: InputT) -> bool:
        return self.is_read_only(input)

    def is_destructive(self, input: InputT) -> bool:
        return False

    def summarize(self, input: InputT) -> str:
        """A one-line summary of what the call will do (the command, the path), for lanes and dialogs."""
        for key in ("command", "file_path", "pattern", "path"):
            value = getattr(input, key, None)
            if value:
                return str(value).splitlines()[0][:200]
        return ""

    def input_path(self, input: InputT) -> str | None:
        """The file or folder this call touches, for path permission rules (None when it has none)."""
        return None

    def read_paths(self, input: InputT, cwd: Path) -> list[Path]:
        """Other files and folders the call reads (a shell line's arguments), resolved from `cwd`: each is
        checked like a Read of that path."""
        return []

    async def describe_change(self, input: InputT, ctx: ToolContext) -> str | None:
        """For tools that change files: the unified diff the call would make (shown when asking)."""
        return None

    async def validate_input(self, input: InputT, ctx: ToolContext) -> str | None:
        """The tool's business check: None when the call may go on, else the message for the model."""
        return None

    async def call(self, input: InputT, ctx: ToolContext) -> ToolOutput:
        raise NotImplementedError

    def input_schema(self) -> dict[str, Any]:
        cls = type(self)
        schema = Tool._schema_cache.get(cls)
        if schema is None:
            schema = self.Input.model_json_schema(by_alias=True)
            schema.pop("title", None)
            for prop in schema.get("properties", {}).values():
                prop.pop("title", None)
            Tool._schema_cache[cls] = schema
        return schema

    def api_definition(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "input_schema": self.input_schema()}
