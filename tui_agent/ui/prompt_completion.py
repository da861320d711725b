"""@-completion: the project's files (and folders) as the user types `@part`, fuzzy-matched.

Files come from `rg --files` in the workspace, so .gitignore is respected; an ignored folder's files are
offered only once the typed part starts with that folder's path (`@node_modules/left`). Paths are shown
relative to the workspace. Matching uses Textual's own fuzzy matcher (the command palette's). Connected MCP
servers' resources are offered too, as `server:uri` with their names, from the lists fetched at connect.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from pathlib import Path

from textual.content import Content
from textual.fuzzy import FuzzySearch

MAX_SHOWN = 8
MAX_FILES = 50_000
# The `@part` being typed: an @ at the start or after whitespace, up to the cursor.
_ACTIVE_MENTION = re.compile(r'(?:^|(?<=\s))@(?P<part>"[^"\n]*|[^\s"]*)$')


@dataclass(frozen=True, slots=True)
class ActiveMention:
    """The `@part` before the cursor: where it starts in the line (at the @) and what was typed."""

    start: int
    part: str
    slash: bool = False  # a `/name` at the prompt's start: slash commands, not files


def active_mention(line_before_cursor: str) -> ActiveMention | None:
    m = _ACTIVE_MENTION.search(line_before_cursor)
    if m is None:
        return None
    return ActiveMention(m.start(), m["part"].lstrip('"'))


def mention_text(path: str) -> str:
    """What replaces `@part`: the path, quoted when it has spaces, and a space to go on typing."""
    return (f'@"{path}"' if " " in path else f"@{path}") + " "


async def _rg_files(root: Path, *args: str) -> list[str]:
    from ..tools.ripgrep import rg_binary

    proc = await asyncio.create_subprocess_exec(
        rg_binary(), "--files", "--hidden", "--glob", "!.git", *args,
        cwd=root, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
    )
    out, _ = await proc.communicate()
    return sorted(line for line in out.decode("utf-8", "replace").splitlines() if line)[:MAX_FILES]


def _with_folders(files: list[str]) -> list[str]:
    folders = {str(Path(f).parent) + "/" for f in files if "/" in f}
    for folder in list(folders):  # every ancestor too
        parts = folder.rstrip("/").split("/")
        folders.update("/".join(parts[:i]) + "/" for i in range(1, len(parts)))
    return sorted(folders) + files


class FileIndex:
    """The workspace's files, listed once per completion session (refresh() on each new `@`)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.paths: list[str] = []
        self.resources: list[str] = []  # MCP resources as `server:uri`, from the servers' cached lists
        self._ignored: dict[str, list[str]] = {}
        self._search = FuzzySearch()

    async def refresh(self) -> None:
        self.paths = _with_folders(await _rg_files(self.root))
        self.resources = mcp_resource_choices()
        self._ignored.clear()

    async def _ignored_under(self, folder: str) -> list[str]:
        """Files of a folder that .gitignore hides, once the user typed its path."""
        if folder not in self._ignored:
            self._ignored[folder] = _with_folders(await _rg_files(self.root, "--no-ignore", "--", folder))
        return self._ignored[folder]

    async def candidates(self, part: str) -> list[str]:
        if self.resources:
            if not part:  # files first, then some resources (as Claude Code lists them)
                shown = min(len(self.resources), MAX_SHOWN // 2)
                return self.paths[: MAX_SHOWN - shown] + self.resources[:shown]
            if ":" in part or not self.paths:
                return self.match(part, self.resources + self.paths)
        pool = self.paths + self.resources if self.resources else self.paths
        folder = part.rsplit("/", 1)[0] if "/" in part else ""
        if folder and (self.root / folder).is_dir() and not any(p.startswith(folder + "/") for p in pool):
            pool = await self._ignored_under(folder)
        return self.match(part, pool)

    def match(self, part: str, pool: list[str]) -> list[str]:
        if not part:
            return pool[:MAX_SHOWN]
        scored: list[tuple[float, int, str]] = []
        low = part.lower()
        for path in pool:
            if not _subsequence(low, path.lower()):
                continue  # cheap test first: the fuzzy scorer is the slow part
            score, _ = self._search.match(part, path)
            if score:
                name = path.rstrip("/").rsplit("/", 1)[-1].lower()
                bonus = 2.0 if path.lower().startswith(low) else 1.0 if low in name else 0.0
                scored.append((-(score + bonus), len(path), path))
        scored.sort()
        return [p for _, _, p in scored[:MAX_SHOWN]]


class ResourceChoice(str):
    """An MCP resource in the @ list: `server:uri` is what is inserted, its name is shown dimmed beside it."""

    name: str

    def __new__(cls, server: str, uri: str, name: str) -> "ResourceChoice":
        choice = super().__new__(cls, f"{server}:{uri}")
        choice.name = name
        return choice

    def visualize(self) -> Content:  # the OptionList draws this rather than the plain string
        return Content.assemble(str(self), (f"  {self.name}", "dim")) if self.name else Content(str(self))


def mcp_resource_choices() -> list[str]:
    """The resources of the connected servers, as listed when each connected (no request per key)."""
    from textual._context import active_app

    agent = getattr(active_app.get(None), "agent", None)
    manager = getattr(getattr(agent, "context", None), "services", {}).get("mcp")
    if manager is None:
        return []
    return [
        ResourceChoice(c.name, str(r["uri"]), str(r.get("name") or ""))
        for c in manager.connections.values() if c.state == "connected" and manager.verdicts.get(c.name) == "approved"
        for r in c.resources if r.get("uri")
    ]


def _subsequence(needle: str, hay: str) -> bool:
    it = iter(hay)
    return all(ch in it for ch in needle)


# ----- /-completion: the slash commands, built-in then custom (core/commands), with their help --------
_ACTIVE_SLASH = re.compile(r"^/(?P<part>[\w:.-]*)$")


def active_slash(first_line_before_cursor: str) -> ActiveMention | None:
    m = _ACTIVE_SLASH.match(first_line_before_cursor)
    return ActiveMention(0, m["part"], slash=True) if m else None


def slash_options(part: str) -> list[tuple[str, str]]:
    """(`/name`, "usage  description") of the commands whose name has `part` in order, names first."""
    from .commands import COMMANDS, custom_usages

    entries = [(f"/{c.name}", c.usage, c.help) for c in COMMANDS]
    entries += [(usage.split()[0], usage, text) for usage, text in custom_usages().items()]
    low = part.lower()
    hits = [e for e in entries if _subsequence(low, e[0][1:].lower())]
    hits.sort(key=lambda e: not e[0][1:].lower().startswith(low))
    return [(name, f"{usage}  {text}") for name, usage, text in hits[:MAX_SHOWN]]
