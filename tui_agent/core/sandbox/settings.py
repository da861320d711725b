"""The `sandbox` key of one settings file, in Claude Code's shape (its settings schema, 2.1.x):

```
"sandbox": {"enabled", "failIfUnavailable", "autoAllowBashIfSandboxed", "allowUnsandboxedCommands",
            "excludedCommands": [...],
            "filesystem": {"allowWrite", "denyWrite", "denyRead", "allowRead"},
            "credentials": {"files": [{"path", "mode": "deny"}], "envVars": [...]},
            "network": {"allowedDomains", "deniedDomains", "allowLocalBinding"}}
```
Paths resolve as Claude Code's schema says: absolute (`/x`, and `//x` as in rules), `~` expanded, anything
else relative to the settings file's root (the project root for project files, `~/.claude` for the user's).
`credentials.envVars` is read by core/tool_env.py (it withholds the variables from every tool process).

A bad value is reported and that key ignored; the rest of the block applies. What a repository's committed
file may decide before the folder is trusted is only what takes away (`until_trusted`): turning the sandbox
on, failIfUnavailable, denyWrite / denyRead, credential files, deniedDomains, allowUnsandboxedCommands false.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

_BOOL_KEYS = ("enabled", "failIfUnavailable", "autoAllowBashIfSandboxed", "allowUnsandboxedCommands")


class _CredentialFile(BaseModel):
    path: str = Field(min_length=1)
    mode: str = Field(pattern="^deny$")


@dataclass(frozen=True, slots=True)
class SandboxLayer:
    """One file's sandbox settings, paths resolved. None: the file does not set the key."""

    source: str
    enabled: bool | None = None
    fail_if_unavailable: bool | None = None
    auto_allow: bool | None = None
    allow_unsandboxed: bool | None = None
    allow_local_binding: bool | None = None
    excluded_commands: tuple[str, ...] = ()
    allow_write: tuple[Path, ...] = ()
    deny_write: tuple[Path, ...] = ()
    deny_read: tuple[Path, ...] = ()
    allow_read: tuple[Path, ...] = ()
    allowed_domains: tuple[str, ...] = ()
    denied_domains: tuple[str, ...] = ()
    problems: tuple[str, ...] = field(default=(), compare=False)

    def until_trusted(self) -> "SandboxLayer":
        """What an untrusted repository's file may still decide: only what takes away."""
        return SandboxLayer(
            self.source,
            enabled=True if self.enabled else None,
            fail_if_unavailable=self.fail_if_unavailable,
            allow_unsandboxed=False if self.allow_unsandboxed is False else None,
            deny_write=self.deny_write,
            deny_read=self.deny_read,
            denied_domains=self.denied_domains,
        )


def sandbox_layer(raw: Any, name: str, root: Path, home: Path) -> SandboxLayer | None:
    """The layer of one file's parsed JSON (None when it has no `sandbox` block). `root`: what relative paths
    are relative to."""
    block = raw.get("sandbox") if isinstance(raw, dict) else None
    if block is None:
        return None
    problems: list[str] = []
    if not isinstance(block, dict):
        return SandboxLayer(name, problems=(f"{name}: ignored sandbox: not an object.",))
    values: dict[str, Any] = {}
    for key, attr in zip(_BOOL_KEYS, ("enabled", "fail_if_unavailable", "auto_allow", "allow_unsandboxed")):
        if key in block:
            if isinstance(block[key], bool):
                values[attr] = block[key]
            else:
                problems.append(f"{name}: ignored sandbox.{key}: not true or false.")
    values["excluded_commands"] = tuple(_strings(block, "excludedCommands", "sandbox", name, problems))
    fs = _object(block, "filesystem", name, problems)
    for key, attr in (("allowWrite", "allow_write"), ("denyWrite", "deny_write"), ("denyRead", "deny_read"), ("allowRead", "allow_read")):
        values[attr] = tuple(resolve_setting_path(p, root, home) for p in _strings(fs, key, "sandbox.filesystem", name, problems))
    files = []
    creds = _object(block, "credentials", name, problems)
    for entry in creds.get("files", []) if isinstance(creds.get("files", []), list) else []:
        try:
            files.append(resolve_setting_path(_CredentialFile.model_validate(entry).path, root, home))
        except ValidationError:
            problems.append(f"{name}: ignored sandbox.credentials.files entry {entry!r}: expected {{\"path\": ..., \"mode\": \"deny\"}}. It is NOT protected until fixed.")
    values["deny_read"] = (*values["deny_read"], *files)
    net = _object(block, "network", name, problems)
    values["allowed_domains"] = tuple(_strings(net, "allowedDomains", "sandbox.network", name, problems))
    values["denied_domains"] = tuple(_strings(net, "deniedDomains", "sandbox.network", name, problems))
    local = net.get("allowLocalBinding", block.get("allowLocalBinding"))  # under network in the schema
    if isinstance(local, bool):
        values["allow_local_binding"] = local
    return SandboxLayer(name, problems=tuple(problems), **values)


def resolve_setting_path(text: str, root: Path, home: Path) -> Path:
    """A sandbox path setting as Claude Code resolves it (not resolved through symlinks: bwrap sees both)."""
    if text.startswith("//"):
        text = text[1:]
    if text == "~" or text.startswith("~/"):
        return Path(os.path.normpath(home / text[2:])) if len(text) > 1 else home
    path = Path(text)
    return Path(os.path.normpath(path if path.is_absolute() else root / path))


def settings_root(path: Path | None, origin: str, rule_dir: Path) -> Path:
    """Where a file's relative sandbox paths start: `~/.claude` for the user's file, else its rule folder."""
    return path.parent if path is not None and origin == "user" else rule_dir


def trimmed(layer: SandboxLayer | None, trusted: bool) -> SandboxLayer | None:
    return layer if layer is None or trusted else layer.until_trusted()


def _object(block: dict[str, Any], key: str, name: str, problems: list[str]) -> dict[str, Any]:
    value = block.get(key, {})
    if isinstance(value, dict):
        return value
    problems.append(f"{name}: ignored sandbox.{key}: not an object.")
    return {}


def _strings(block: dict[str, Any], key: str, where: str, name: str, problems: list[str]) -> list[str]:
    value = block.get(key, [])
    if not isinstance(value, list):
        problems.append(f"{name}: ignored {where}.{key}: not a list.")
        return []
    good = [v for v in value if isinstance(v, str) and v.strip()]
    if len(good) != len(value):
        problems.append(f"{name}: ignored entries of {where}.{key} that are not non-empty strings.")
    return good


