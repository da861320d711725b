"""THE gate: may this path be read *for the model* now?

Every place in the core that puts a file's content into a request asks here first: @-mentions, memory
files and their imports, subdirectory memory, compaction carry-over (the file tools are decided by the
permission engine, which this gate reuses). A path is judged by where it resolves, symlinks followed.
The answer comes from the permission engine's own path check (`PermissionEngine.decide_read`: deny rules
win, then ask rules, then allow rules, then the working folders), so there is one rule matcher; a policy
without it (tests' allow-all policies) falls back to the working folders alone.

The reading itself is here too (`read_head`, `read_text_head`): stat first, read at most what is needed, never a whole
file just to cut it. `tests/core/test_access_gate.py` lists every other place in core/ that opens a file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Literal, Protocol

from ..tools.base import Workspace

Verdict = Literal["allow", "ask", "deny"]
WORKSPACE_SOURCE = "the working folders"
"""The source of an allow that no rule gave: the path is inside the working folders."""
SERVICE_KEY = "access"
"""Where the session's gate lives in `ToolContext.services`."""
MAX_MEMORY_BYTES = 4 * 1024 * 1024
"""Claude Code skips a memory file over 4 MiB entirely."""
MAX_MEMORY_CHARS = 40_000
"""Beyond this a memory file is cut (Claude Code only warns, and sends it all on every request)."""
_BINARY_SNIFF = 8192


class ReadJudge(Protocol):
    """The permission engine's path check (PermissionEngine.decide_read)."""

    def decide_read(self, path: str | Path, workspace: Any) -> Any: ...


@dataclass(frozen=True, slots=True)
class Access:
    """The gate's answer for one path."""

    verdict: Verdict
    path: Path
    """Where the path resolves (symlinks followed): what was judged."""
    reason: str = ""
    by_rule: bool = False
    """An allow that a Read rule gave (not merely the working folders)."""

    @property
    def allowed(self) -> bool:
        return self.verdict == "allow"


class ReadGate:
    """The one answer to "may the model see this file now?" for a session."""

    def __init__(self, workspace: Workspace | Callable[[], Workspace], judge: ReadJudge | None = None) -> None:
        self._workspace = workspace
        self._judge = judge if callable(getattr(judge, "decide_read", None)) else None

    @property
    def workspace(self) -> Workspace:
        ws = self._workspace
        return ws() if callable(ws) else ws

    def check(self, path: str | Path) -> Access:
        """Whether `path` may be read for the model without asking anyone: allowed only when the rules or
        the working folders allow it (an ask rule, or outside the folders without a Read rule, is a no)."""
        ws = self.workspace
        try:
            resolved = ws.resolve(path)
        except (OSError, RuntimeError) as exc:  # a symlink loop
            return Access("deny", Path(str(path)), f"{path} cannot be resolved: {exc}")
        if self._judge is None:
            inside = ws.contains(resolved)
            return Access("allow" if inside else "ask", resolved, "" if inside else f"{resolved} is outside the workspace.")
        decision = self._judge.decide_read(resolved, ws)
        # Deny rules are also tried on the spelling given (`Read(./.env)` against a link named .env).
        if decision.behavior != "deny" and str(path) != str(resolved):
            literal = self._judge.decide_read(_absolute(path, ws), ws)
            if literal.behavior == "deny":
                decision = literal
        by_rule = decision.behavior == "allow" and decision.source != WORKSPACE_SOURCE
        return Access(decision.behavior, resolved, decision.message, by_rule)

    def check_memory(self, path: Path, inside: tuple[Path, ...], approved: Callable[[Path], bool]) -> Access:
        """Whether a memory file or import may load: never when a Read rule denies it; yes where it resolves
        inside one of the `inside` folders (the project, ~/.claude); elsewhere only when the user approved
        it (`approved`) or a Read allow rule names it. "ask" means: outside, not approved yet."""
        access = self.check(path)
        if access.verdict == "deny":
            return access
        real = access.path
        if any(real == root or real.is_relative_to(root) for root in inside):
            return Access("allow", real)
        if access.by_rule or approved(real):
            return Access("allow", real, by_rule=access.by_rule)
        return Access("ask", real, f"{real} is outside the project and was not approved.")


def gate_of(services: dict[str, Any], workspace: Workspace) -> ReadGate:
    """The session's gate, or one for the working folders alone (no rules known)."""
    gate = services.get(SERVICE_KEY)
    return gate if isinstance(gate, ReadGate) else ReadGate(workspace)


@dataclass(frozen=True, slots=True)
class Head:
    """The start of a file, as much as was asked for."""

    data: bytes
    size: int
    """The file's size in bytes."""

    @property
    def cut(self) -> bool:
        """True when the file goes on beyond `data`."""
        return len(self.data) < self.size


@dataclass(frozen=True, slots=True)
class TextHead:
    """The start of a text file, as much as was asked for."""

    text: str
    size: int
    cut: bool


class TooLarge(Exception):
    """The file is bigger than the reader will touch."""

    def __init__(self, path: Path, size: int, limit: int) -> None:
        super().__init__(f"{path} is {size:,} bytes (over {limit:,}); it was not read.")
        self.size = size


def read_head(path: Path, limit: int, *, max_size: int | None = None) -> Head | None:
    """At most `limit` bytes of `path` (None when it cannot be read). Stat first: a file over `max_size`
    raises TooLarge unread. Callers ask the gate before calling this: it is the one reader of content for
    the model in core/ (outside the tools)."""
    try:
        size = path.stat().st_size
        if max_size is not None and size > max_size:
            raise TooLarge(path, size, max_size)
        with path.open("rb") as fh:
            data = fh.read(limit)
    except OSError:
        return None
    return Head(data, max(size, len(data)))


def read_text_head(path: Path, *, max_chars: int, max_bytes: int | None = None) -> TextHead | None:
    """Up to `max_chars` characters of a UTF-8 text file (None for binary or unreadable); see read_head."""
    head = read_head(path, max_chars * 4 + 4, max_size=max_bytes)  # UTF-8: at most 4 bytes a character
    if head is None or b"\0" in head.data[:_BINARY_SNIFF]:
        return None
    text = head.data.decode("utf-8", errors="replace")
    return TextHead(text[:max_chars], head.size, len(text) > max_chars or head.cut)


def read_text_inside(path: Path, folder: Path, limit: int) -> str:
    """A whole text file found in `folder` whose text goes to the model (a command, a skill, an output style).
    Raises ValueError, saying why, for a file that links out of `folder` (a repository's file that is really
    ~/.ssh/id_rsa is never read), is not text, or is larger than `limit` bytes; OSError when unreadable."""
    real = path.resolve()
    if not real.is_relative_to(folder.resolve()):
        raise ValueError(f"it links out of {folder}")
    try:
        head = read_text_head(real, max_chars=limit, max_bytes=limit)
    except TooLarge:
        raise ValueError(f"larger than {limit} bytes") from None
    if head is None:
        raise ValueError("not a readable text file")
    if head.cut:
        raise ValueError(f"larger than {limit} bytes")
    return head.text


def _absolute(path: str | Path, ws: Workspace) -> Path:
    p = Path(os.path.expanduser(str(path)))
    return Path(os.path.normpath(p if p.is_absolute() else ws.root / p))

