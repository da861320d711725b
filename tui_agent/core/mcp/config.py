"""MCP server configs from Claude Code's files, with its precedence.

Where servers come from (highest precedence first; on a name clash the winner replaces the others whole):
- `--mcp-config` files or JSON strings (scope "dynamic"); with `--strict-mcp-config` nothing else;
- `~/.claude.json` → `projects[<project path>].mcpServers` (scope "local");
- `.mcp.json` in the working folder and every parent, the deeper file winning (scope "project");
- `~/.claude.json` → top-level `mcpServers` (scope "user").
Values may use `${VAR}` and `${VAR:-default}`; a missing variable without a default is named in the
server's error rather than silently left empty.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from .. import trust

Scope = Literal["dynamic", "local", "project", "user"]
SCOPE_ORDER: tuple[Scope, ...] = ("dynamic", "local", "project", "user")
MCP_JSON = ".mcp.json"


class StdioServerConfig(BaseModel):
    """A server started as a subprocess that speaks MCP on its stdin/stdout."""

    model_config = ConfigDict(extra="allow")
    type: Literal["stdio"] = "stdio"
    command: str = Field(min_length=1)
    """The program to run (looked up on PATH)."""
    args: list[str] = []
    env: dict[str, str] = {}
    """Variables added to the inherited environment."""
    cwd: str | None = None
    """The folder it runs in (default: the working folder)."""


class HttpServerConfig(BaseModel):
    """A server reached over streamable HTTP (`http`, alias `streamable-http`) or the older SSE transport."""

    model_config = ConfigDict(extra="allow")
    type: Literal["http", "streamable-http", "sse"]
    url: str = Field(min_length=1)
    headers: dict[str, str] = {}


class SdkServerConfig(BaseModel):
    """A server living inside the claude-agent-sdk program that drives tui-agent (`create_sdk_mcp_server`):
    the SDK passes only its name; its JSON-RPC travels over the control channel (protocol/sdk_mcp.py)."""

    model_config = ConfigDict(extra="allow")
    type: Literal["sdk"]
    name: str = ""


_ENTRY = TypeAdapter(StdioServerConfig | HttpServerConfig | SdkServerConfig)


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """One server as it will run: its name, where it was defined, the expanded entry, and the raw
    entry's hash (what an approval is bound to)."""

    name: str
    scope: Scope
    source: str
    entry: StdioServerConfig | HttpServerConfig | SdkServerConfig | None
    entry_hash: str
    error: str = ""
    """Why it cannot run as written (invalid entry, missing variables); empty when it can."""
    raw: Any = field(default=None, compare=False, repr=False)
    """The entry as written, `${VAR}` unexpanded: what the approval dialog shows (never the values)."""

    @property
    def transport(self) -> str:
        if self.entry is None:
            return "?"
        return "http" if self.entry.type == "streamable-http" else self.entry.type

    def describe(self) -> str:
        """What it will run or reach, for the approval dialog and `/mcp`."""
        e = self.entry
        if isinstance(e, StdioServerConfig):
            return " ".join([e.command, *e.args])
        if isinstance(e, HttpServerConfig):
            return f"{self.transport} {e.url}"
        if isinstance(e, SdkServerConfig):
            return "in-process server of the claude-agent-sdk program"
        return self.error


@dataclass(slots=True)
class McpConfigSet:
    """Every server that applies to this working folder, after precedence, plus problems to show."""

    servers: dict[str, ServerConfig] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    watched_files: list[Path] = field(default_factory=list)


class McpConfigError(ValueError):
    """A `--mcp-config` value that is neither a readable file nor JSON (the message names it)."""


_VAR_RE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def expand_vars(value: Any, env: Mapping[str, str], missing: list[str]) -> Any:
    """`${VAR}` and `${VAR:-default}` in every string of `value`; names without a value go to `missing`."""
    if isinstance(value, str):
        def sub(m: re.Match[str]) -> str:
            name, default = m.group(1), m.group(2)
            if name in env:
                return env[name]
            if default is not None:
                return default
            missing.append(name)
            return ""

        return _VAR_RE.sub(sub, value)
    if isinstance(value, list):
        return [expand_vars(v, env, missing) for v in value]
    if isinstance(value, dict):
        return {k: expand_vars(v, env, missing) for k, v in value.items()}
    return value


def entry_hash(raw: Any) -> str:
    return hashlib.sha256(json.dumps(raw, sort_keys=True, separators=(",", ":")).encode()).hexdigest()[:16]


def parse_servers(raw: Any, *, scope: Scope, source: str, env: Mapping[str, str]) -> tuple[dict[str, ServerConfig], list[str]]:
    """`{"name": entry, ...}` → servers; an entry that can't be used is kept with its error (it shows in /mcp)."""
    servers: dict[str, ServerConfig] = {}
    problems: list[str] = []
    if raw is None:
        return servers, problems
    if not isinstance(raw, dict):
        return servers, [f"{source}: mcpServers must be an object of server entries"]
    for name, entry in raw.items():
        digest = entry_hash(entry)
        if not isinstance(entry, dict):
            error = "the entry must be an object"
            servers[name] = ServerConfig(name, scope, source, None, digest, error)
            problems.append(f"{source}: MCP server {name!r}: {error}")
            continue
        missing: list[str] = []
        expanded = expand_vars(entry, env, missing)
        if "type" not in expanded and "url" in expanded and "command" not in expanded:
            expanded = {**expanded, "type": "http"}
        try:
            config = _ENTRY.validate_python(expanded)
        except ValidationError as exc:
            error = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'entry'}: {e['msg']}" for e in exc.errors()[:3])
            servers[name] = ServerConfig(name, scope, source, None, digest, error)
            problems.append(f"{source}: MCP server {name!r} is invalid: {error}")
            continue
        error = f"missing environment variables: {', '.join(dict.fromkeys(missing))}" if missing else ""
        if error:
            problems.append(f"{source}: MCP server {name!r}: {error}")
        servers[name] = ServerConfig(name, scope, source, config, digest, error, raw=entry)
    return servers, problems


def _read_json(path: Path, problems: list[str]) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        problems.append(f"{path}: not valid JSON ({exc}); its MCP servers are ignored")
        return None


def mcp_json_files(cwd: Path) -> list[Path]:
    """`.mcp.json` in `cwd` and every parent, outermost first (so deeper files are applied later and win)."""
    return [folder / MCP_JSON for folder in reversed((cwd, *cwd.parents))]


claude_json_path = trust.claude_json_path


def load_dynamic(values: Sequence[str], cwd: Path, env: Mapping[str, str]) -> tuple[dict[str, ServerConfig], list[str]]:
    """`--mcp-config` values: each a file path or a JSON string holding `{"mcpServers": {...}}`."""
    servers: dict[str, ServerConfig] = {}
    problems: list[str] = []
    for value in values:
        text = value.strip()
        if text.startswith("{"):
            source = "--mcp-config (JSON)"
            try:
                data = json.loads(text)
            except json.JSONDecodeError as exc:
                raise McpConfigError(f"--mcp-config: not valid JSON: {exc}") from exc
        else:
            path = (cwd / text).resolve() if not Path(text).is_absolute() else Path(text)
            source = str(path)
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except FileNotFoundError as exc:
                raise McpConfigError(f"--mcp-config {value}: no such file") from exc
            except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
                raise McpConfigError(f"--mcp-config {value}: not valid JSON ({exc})") from exc
        if not isinstance(data, dict):
            raise McpConfigError(f"--mcp-config {source}: expected an object with mcpServers")
        found, found_problems = parse_servers(data.get("mcpServers", {}), scope="dynamic", source=source, env=env)
        servers.update(found)
        problems += found_problems
    return servers, problems


def load_mcp_configs(
    cwd: Path,
    *,
    home: Path | None = None,
    project_dir: Path | None = None,
    mcp_config: Sequence[str] = (),
    strict: bool = False,
    env: Mapping[str, str] | None = None,
    project: bool = True,
) -> McpConfigSet:
    """Every server for `cwd`, by Claude Code's precedence. Raises McpConfigError for a bad `--mcp-config`.
    `project=False` (--setting-sources without "project") reads no `.mcp.json`."""
    env = os.environ if env is None else env
    cwd = cwd.resolve()
    home = (home or Path.home()).resolve()
    result = McpConfigSet()
    dynamic, problems = load_dynamic(mcp_config, cwd, env)
    result.problems += problems
    by_scope: dict[Scope, dict[str, ServerConfig]] = {"dynamic": dynamic, "local": {}, "project": {}, "user": {}}
    if not strict:
        claude_json = claude_json_path(home)
        result.watched_files.append(claude_json)
        data = _read_json(claude_json, result.problems)
        if isinstance(data, dict):
            by_scope["user"], problems = parse_servers(data.get("mcpServers"), scope="user", source=str(claude_json), env=env)
            result.problems += problems
            projects = data.get("projects") if isinstance(data.get("projects"), dict) else {}
            for key in dict.fromkeys(str(p) for p in (cwd, project_dir or cwd)):
                entry = projects.get(key)
                if isinstance(entry, dict) and entry.get("mcpServers"):
                    by_scope["local"], problems = parse_servers(entry["mcpServers"], scope="local", source=f"{claude_json} (project {key})", env=env)
                    result.problems += problems
                    break
        for path in mcp_json_files(cwd) if project else []:
            result.watched_files.append(path)
            data = _read_json(path, result.problems)
            if data is None:
                continue
            if not isinstance(data, dict):
                result.problems.append(f"{path}: expected an object with mcpServers")
                continue
            found, problems = parse_servers(data.get("mcpServers", {}), scope="project", source=str(path), env=env)
            by_scope["project"].update(found)  # deeper files come later and win
            result.problems += problems
    for scope in reversed(SCOPE_ORDER):  # lowest first; higher scopes replace whole entries
        result.servers.update(by_scope[scope])
    return result
