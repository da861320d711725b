"""What an MCP server will receive, for the approval dialog: command, arguments, folder, URL, the names of
its env variables and headers — as written, so a `${VAR}` shows as the variable it takes, never its value.

A repository's `.mcp.json` can hand a server the user's secrets (`"X-Key": "${ANTHROPIC_API_KEY}"`) or change
how its program runs (`NODE_OPTIONS`, `LD_PRELOAD`): the user approves what they can see, so all of it is shown.
Literal values are shown (they are in the repository already; a literal can be the dangerous part), cut
when long. No Textual here: the app draws these rows, and tests read them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .config import _VAR_RE, HttpServerConfig, ServerConfig, StdioServerConfig

MAX_VALUE = 80
HIDDEN = "(value hidden)"


@dataclass(frozen=True, slots=True)
class Row:
    label: str  # "command", "args", "cwd", "env", "url", "header", "takes", "inherits"
    text: str


def _cut(text: str) -> str:
    return text if len(text) <= MAX_VALUE else text[: MAX_VALUE - 1] + "…"


def _written(raw: Any, key: str, fallback: Any) -> Any:
    """The entry's value as written; the expanded one only where no raw entry was kept."""
    if isinstance(raw, dict) and key in raw:
        return raw[key]
    return fallback


def variables(value: Any) -> list[str]:
    """Every `${VAR}` (and `${VAR:-default}`) name in the strings of `value`, in order, once each."""
    names: list[str] = []
    if isinstance(value, str):
        names += [m.group(1) for m in _VAR_RE.finditer(value)]
    elif isinstance(value, list):
        for v in value:
            names += variables(v)
    elif isinstance(value, dict):
        for v in value.values():
            names += variables(v)
    return list(dict.fromkeys(names))


def _pairs(label: str, written: Any, expanded: dict[str, str], sep: str) -> list[Row]:
    if isinstance(written, dict) and all(isinstance(v, str) for v in written.values()):
        return [Row(label, f"{name}{sep}{_cut(value)}") for name, value in written.items()]
    return [Row(label, f"{name}{sep}{HIDDEN}") for name in expanded]  # no raw entry: names only


def disclose(server: ServerConfig) -> list[Row]:
    """The rows of everything `server` will be given, in the order it runs or is reached."""
    entry, raw = server.entry, server.raw
    rows: list[Row] = []
    if isinstance(entry, StdioServerConfig):
        command = _written(raw, "command", entry.command)
        args = _written(raw, "args", entry.args)
        rows.append(Row("command", _cut(str(command))))
        if isinstance(args, list) and args:
            rows.append(Row("args", " ".join(_cut(str(a)) for a in args)))
        if entry.cwd:
            rows.append(Row("cwd", _cut(str(_written(raw, "cwd", entry.cwd)))))
        rows += _pairs("env", _written(raw, "env", None), entry.env, "=")
        rows.append(Row("inherits", "the environment tui-agent runs in"))
    elif isinstance(entry, HttpServerConfig):
        rows.append(Row("url", f"{server.transport} {_cut(str(_written(raw, 'url', entry.url)))}"))
        rows += _pairs("header", _written(raw, "headers", None), entry.headers, ": ")
    else:
        rows.append(Row("error", server.error or "the entry cannot be used"))
    taken = variables(raw if raw is not None else {})
    if taken:
        rows.append(Row("takes", ", ".join(taken)))
    return rows
