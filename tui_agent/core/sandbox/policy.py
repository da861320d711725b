"""The sandbox policy of the moment: every settings file's `sandbox` block and the file rules, merged as
Claude Code merges them.

- Scalars: the last file that sets one wins (user < tui-agent's own < project < local < --settings).
  Defaults are Claude Code's (its settings getters): `enabled` false, `autoAllowBashIfSandboxed` true,
  `allowUnsandboxedCommands` true, `failIfUnavailable` false.
- Lists add up across files ("Arrays merge across settings scopes"), and the permission rules feed them
  (the schema: allowWrite "Merged with paths from Edit(...) allow permission rules", denyWrite with
  Edit(...) deny rules, denyRead with Read(...) deny rules). A rule's pattern becomes paths: a literal
  path or `dir/**` is that path; another glob is expanded against what exists now (bounded), for denies
  only — an allow that is not a plain folder would widen more than the rule says, so it is left out.
- Always writable: the workspace, the added folders and a private /tmp. Never writable inside those
  (sandbox-runtime's "dangerous files", plus our settings): settings files, `.git/hooks`, `.git/config`,
  shell start-up files, `.mcp.json` — a contained command must not plant what runs unsandboxed later.
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

from ..permissions.bash_split import split_command
from ..permissions.rules import Rule, compile_bash_pattern
from .settings import SandboxLayer

# sandbox-runtime sandbox-utils.js DANGEROUS_FILES / getDangerousDirectories, with .git's hooks and config
# and Claude Code's own settings files (its sandbox always denies writing them).
PROTECTED_IN_WRITABLE = (
    ".gitconfig", ".gitmodules", ".bashrc", ".bash_profile", ".zshrc", ".zprofile", ".profile", ".ripgreprc",
    ".mcp.json", ".vscode", ".idea", ".claude", ".git/hooks", ".git/config",
)
_GLOB_CHARS = set("*?[")
_MAX_GLOB_MATCHES = 500


@dataclass(frozen=True, slots=True)
class SandboxPolicy:
    """What a sandboxed command may do. Paths are absolute; the bwrap command line is made from this."""

    enabled: bool = False
    fail_if_unavailable: bool = False
    auto_allow: bool = True
    allow_unsandboxed: bool = True
    excluded_commands: tuple[str, ...] = ()
    workspace_roots: tuple[Path, ...] = ()
    writable: tuple[Path, ...] = ()
    deny_write: tuple[Path, ...] = ()
    deny_read: tuple[Path, ...] = ()
    allow_read: tuple[Path, ...] = ()
    allowed_domains: tuple[str, ...] = ()
    denied_domains: tuple[str, ...] = ()
    allow_local_binding: bool = False
    notes: tuple[str, ...] = field(default=(), compare=False)

    def is_excluded(self, command: str) -> bool:
        """Whether a simple command of `command` matches an `excludedCommands` pattern (Claude Code: each
        subcommand, also without its variable assignments and wrappers; exact, `prefix *` / `prefix:*`, or
        wildcard patterns). A line that cannot be split is tried whole."""
        if not self.excluded_commands:
            return False
        parts = split_command(command)
        forms = [command.strip()] if parts is None else [f for p in parts for f in p.deny_forms()]
        patterns = [compile_bash_pattern(p) for p in self.excluded_commands]
        return any(p.fullmatch(f) for p in patterns for f in forms)


def merge_policy(
    layers: Sequence[SandboxLayer],
    *,
    workspace_roots: Sequence[Path],
    allow_rules: Iterable[Rule] = (),
    deny_rules: Iterable[Rule] = (),
    in_use: bool = False,
) -> SandboxPolicy:
    """The merged policy of `layers` (lowest precedence first) and the permission rules. Rule globs are
    expanded (a walk of the folders) only when the sandbox is on or `in_use` (switched on for the session)."""
    scalars: dict[str, bool] = {}
    for layer in layers:
        for attr in ("enabled", "fail_if_unavailable", "auto_allow", "allow_unsandboxed", "allow_local_binding"):
            value = getattr(layer, attr)
            if value is not None:
                scalars[attr] = value
    notes: list[str] = []
    allow_write = [p for layer in layers for p in layer.allow_write]
    deny_write = [p for layer in layers for p in layer.deny_write]
    deny_read = [p for layer in layers for p in layer.deny_read]
    for rule in allow_rules:
        if rule.tool == "Edit" and rule.path_pattern is not None:
            folder = _plain_folder(rule)
            if folder is None:
                notes.append(f"{rule.described}: not a plain path or folder/**, so the sandbox does not widen for it.")
            else:
                allow_write.append(folder)
    expand = in_use or scalars.get("enabled", False)
    for rule in deny_rules if expand else ():
        if rule.path_pattern is None:
            continue
        if rule.tool == "Edit":
            deny_write += _rule_paths(rule)
        elif rule.tool == "Read":
            deny_read += _rule_paths(rule)
    writable = [*workspace_roots, *(p for p in allow_write if p.exists())]
    protected = [r / name for r in workspace_roots for name in PROTECTED_IN_WRITABLE]
    return SandboxPolicy(
        enabled=scalars.get("enabled", False),
        fail_if_unavailable=scalars.get("fail_if_unavailable", False),
        auto_allow=scalars.get("auto_allow", True),
        allow_unsandboxed=scalars.get("allow_unsandboxed", True),
        allow_local_binding=scalars.get("allow_local_binding", False),
        excluded_commands=_unique(c for layer in layers for c in layer.excluded_commands),
        workspace_roots=tuple(workspace_roots),
        writable=_unique(writable),
        deny_write=_unique([*deny_write, *protected]),
        deny_read=_unique(deny_read),
        allow_read=_unique(p for layer in layers for p in layer.allow_read),
        allowed_domains=_unique(d for layer in layers for d in layer.allowed_domains),
        denied_domains=_unique(d for layer in layers for d in layer.denied_domains),
        notes=tuple(notes),
    )


def _plain_folder(rule: Rule) -> Path | None:
    """The folder an `Edit(dir/**)` or `Edit(path)` allow rule names, when it names exactly one."""
    pattern = rule.path_pattern
    assert pattern is not None
    text = pattern.pattern
    if text.endswith("/**"):
        text = text[:-3]
    if not text.startswith("/") or _GLOB_CHARS & set(text):
        return None  # `*.txt` or an any-depth name: no single folder
    return Path(os.path.normpath(pattern.base / text.lstrip("/")))


def _rule_paths(rule: Rule) -> list[Path]:
    """The paths a deny rule's pattern names: itself when literal, else what its glob matches now."""
    pattern = rule.path_pattern
    assert pattern is not None
    text = pattern.pattern
    if text.endswith("/**"):
        text = text[:-3]
    if not _GLOB_CHARS & set(text) and text.startswith("/"):
        return [Path(os.path.normpath(pattern.base / text.lstrip("/")))]
    # gitignore: a pattern without a leading slash matches at any depth below its folder.
    spelled = text if text.startswith("/") else "/**/" + text
    found: list[Path] = []
    for match in glob.iglob(str(pattern.base) + spelled, recursive=True, include_hidden=True):
        found.append(Path(match))
        if len(found) >= _MAX_GLOB_MATCHES:
            break
    return found


def _unique(items: Iterable) -> tuple:  # type: ignore[type-arg]
    return tuple(dict.fromkeys(items))
