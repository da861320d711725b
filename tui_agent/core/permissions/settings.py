"""Settings files: where they are, what they may hold, how they merge, and watching them for changes.

Files, lowest precedence first: `~/.claude/settings.json`, the tool's own `<config>/tui-agent/settings.json`,
`<project>/.claude/settings.json`, `<project>/.claude/settings.local.json`, then `--settings FILE` (or JSON,
held in memory only: a shared temp file could be planted or read by another user); the
`--allowedTools` / `--disallowedTools` flags add rules on top. Rule lists add up (the engine makes deny
win); for `defaultMode` the last file that sets it wins.

A malformed file (bad JSON, wrong types, a bad hook matcher) is reported with its path and the error and
ignored as a whole: its structure can't be trusted, so nothing of it applies. A single rule that doesn't
parse is reported by name and dropped while the file's other rules stay in force, so one typo in an
allow list never switches off that file's deny rules.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..permission_types import PermissionMode
from ..sandbox.settings import SandboxLayer, sandbox_layer, settings_root, trimmed
from ..tool_env import credential_env_vars
from ..trust import Origin, committed, project_root, reads
from .hooks import DEFAULT_HOOK_TIMEOUT, HookSpec
from .rules import RULE_KINDS, Rule, RuleError, RuleKind, parse_rule

NoticeFn = Callable[[str, str], None]

_WATCH_DEBOUNCE_MS = 200


# --- the file schema (only the parts this engine reads are checked; other keys belong to other features)


class _HookCommandModel(BaseModel):
    model_config = ConfigDict(extra="allow")
    type: str
    command: str = Field(min_length=1)
    args: list[str] | None = None  # Claude Code's exec form (core/permissions/hooks.py)
    timeout: float | None = Field(default=None, gt=0)


class _HookMatcherModel(BaseModel):
    model_config = ConfigDict(extra="allow")
    matcher: str = ""
    hooks: list[_HookCommandModel]

    @field_validator("matcher")
    @classmethod
    def _valid_regex(cls, value: str) -> str:
        if value == "*":  # "every tool", not a regex
            return value
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"not a valid regular expression: {exc}") from None
        return value


class _HooksModel(BaseModel):
    model_config = ConfigDict(extra="allow")
    PreToolUse: list[_HookMatcherModel] = []
    PostToolUse: list[_HookMatcherModel] = []
    PostToolUseFailure: list[_HookMatcherModel] = []
    UserPromptSubmit: list[_HookMatcherModel] = []
    Stop: list[_HookMatcherModel] = []
    SubagentStart: list[_HookMatcherModel] = []
    SubagentStop: list[_HookMatcherModel] = []
    PreCompact: list[_HookMatcherModel] = []
    Notification: list[_HookMatcherModel] = []
    PermissionRequest: list[_HookMatcherModel] = []
    SessionStart: list[_HookMatcherModel] = []
    SessionEnd: list[_HookMatcherModel] = []


class _PermissionsModel(BaseModel):
    model_config = ConfigDict(extra="allow")
    allow: list[str] = []
    deny: list[str] = []
    ask: list[str] = []
    defaultMode: PermissionMode | None = None
    additionalDirectories: list[str] = []


class _SettingsModel(BaseModel):
    model_config = ConfigDict(extra="allow")
    permissions: _PermissionsModel = _PermissionsModel()
    hooks: _HooksModel = _HooksModel()


# --- one file


class SettingsError(Exception):
    """A settings file that can't be used at all (the message names the file)."""


@dataclass(frozen=True, slots=True)
class SettingsSource:
    path: Path | None  # None: `--settings '{...}'`, held in memory (never written to a shared temp folder)
    rule_dir: Path  # the folder `/x` path rules in this file are relative to
    # Who wrote it (core/trust.py): what it may decide, and whether --setting-sources reads it.
    origin: Origin = "project"
    # The parsed `--settings` JSON; kept out of eq/hash/repr (it may hold an `env` block with secrets).
    data: dict[str, Any] | None = field(default=None, compare=False, hash=False, repr=False)

    @property
    def name(self) -> str:
        """How problems name it: the file's path, or `--settings` for JSON given on the command line."""
        return str(self.path) if self.path is not None else "--settings"

    def read_json(self) -> Any:
        """The source's JSON (the in-memory object, or the file parsed). Raises OSError / ValueError."""
        if self.path is None:
            return self.data if self.data is not None else {}
        return json.loads(self.path.read_text(encoding="utf-8"))


def inline_settings_source(data: dict[str, Any], cwd: Path) -> SettingsSource:
    """`--settings '{...}'`: its `/x` rules are relative to the working folder, as Claude Code's are
    (getSettingsRootPathForSource: flagSettings without a file path -> the original cwd)."""
    return SettingsSource(None, cwd.resolve(), "flag", data)


@dataclass(slots=True)
class FileSettings:
    rules: list[tuple[RuleKind, Rule]] = field(default_factory=list)
    default_mode: PermissionMode | None = None
    additional_directories: list[Path] = field(default_factory=list)
    hooks: list[HookSpec] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    denied_env_vars: list[str] = field(default_factory=list)  # sandbox.credentials (core/tool_env.py)
    allowed_env_vars: list[str] = field(default_factory=list)
    sandbox: SandboxLayer | None = None  # the `sandbox` block (core/sandbox/settings.py)


def rule_dir_for(path: Path) -> Path:
    """`/x` rules are relative to the folder holding `.claude/` (the project root, or home), else to the file's folder."""
    folder = path.parent
    return folder.parent if folder.name == ".claude" else folder


def load_settings_file(source: SettingsSource, *, cwd: Path, home: Path) -> FileSettings | None:
    """The file's settings, None when it doesn't exist. Raises SettingsError when it is malformed."""
    name = source.name
    try:
        raw = source.read_json()
        model = _SettingsModel.model_validate(raw)
    except FileNotFoundError:
        return None
    except json.JSONDecodeError as exc:
        raise SettingsError(f"{name}: invalid JSON: {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SettingsError(f"{name}: cannot be read: {exc}") from None
    except ValidationError as exc:
        details = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'top level'}: {e['msg']}" for e in exc.errors())
        raise SettingsError(f"{name}: {details}") from None
    result = FileSettings(default_mode=model.permissions.defaultMode)
    result.denied_env_vars, result.allowed_env_vars, problems = credential_env_vars(raw, name, source.origin)
    result.problems.extend(problems)
    result.sandbox = sandbox_layer(raw, name, settings_root(source.path, source.origin, source.rule_dir), home)
    result.problems.extend(result.sandbox.problems if result.sandbox else ())
    perms = model.permissions
    for kind in RULE_KINDS:
        for text_rule in getattr(perms, kind):
            try:
                rule = parse_rule(text_rule, source=name, rule_dir=source.rule_dir, cwd=cwd, home=home)
            except (RuleError, ValueError) as exc:
                result.problems.append(f"{name}: ignored {kind} rule {text_rule!r}: {exc}")
                continue
            result.rules.append((kind, rule))
    for d in perms.additionalDirectories:
        p = home / d[2:] if d == "~" or d.startswith("~/") else Path(d)
        result.additional_directories.append((p if p.is_absolute() else source.rule_dir / p).resolve())
    # Every event core/hook_events.py fires (Notification also runs from the app's notifier, ui/notify.py).
    for event, groups in ((e, getattr(model.hooks, e)) for e in _HooksModel.model_fields):
        for group in groups:
            for hook in group.hooks:
                if hook.type != "command":
                    result.problems.append(f"{name}: ignored a {event} hook of type {hook.type!r} (only 'command' is supported)")
                    continue
                timeout = hook.timeout or DEFAULT_HOOK_TIMEOUT
                result.hooks.append(HookSpec(group.matcher, hook.command, timeout, name, event,
                                             None if hook.args is None else tuple(hook.args)))
    return result


def save_allow_rule(path: Path, rule: str) -> None:
    """Add `rule` to permissions.allow of the JSON file at `path` (created if missing), keeping the rest."""
    data: dict = {}
    if path.exists():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise SettingsError(f"{path}: cannot add a rule, the file is not valid JSON: {exc}") from None
        if not isinstance(data, dict) or not isinstance(data.get("permissions", {}), dict):
            raise SettingsError(f"{path}: cannot add a rule, the file is not a settings object")
    allow = data.setdefault("permissions", {}).setdefault("allow", [])
    if not isinstance(allow, list):
        raise SettingsError(f"{path}: cannot add a rule, permissions.allow is not a list")
    if rule not in allow:
        allow.append(rule)
    path.parent.mkdir(parents=True, exist_ok=True)
    # Write-then-rename so the watcher never reads a half-written file.
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)


# --- where the files are


find_project_root = project_root  # one definition of "the project" (core/trust.py: folder trust keys on it)


def user_config_dir(home: Path, explicit_home: bool) -> Path:
    """`$XDG_CONFIG_HOME/tui-agent`, or `~/.config/tui-agent`; an explicit (test) home ignores the environment."""
    xdg = os.environ.get("XDG_CONFIG_HOME")
    base = Path(xdg) if xdg and not explicit_home else home / ".config"
    return base / "tui-agent"


def local_settings_path(project_dir: Path) -> Path:
    return project_dir / ".claude" / "settings.local.json"


def settings_sources(
    home: Path, project_dir: Path, config_dir: Path, settings_file: Path | None,
    settings_json: SettingsSource | None = None, sources: list[str] | None = None,
) -> list[SettingsSource]:
    """The files in precedence order; `settings_json` (from `inline_settings_source`) comes last, as --settings.
    `sources` is --setting-sources: which of user / project / local files are read at all (None: all)."""
    paths: list[tuple[Path, Origin]] = [
        (home / ".claude" / "settings.json", "user"),
        (config_dir / "settings.json", "user"),
        (project_dir / ".claude" / "settings.json", "project"),
        # A committed settings.local.json came with the clone: the repository's file, not the user's.
        (local_settings_path(project_dir), "project" if committed(local_settings_path(project_dir)) else "local"),
    ]
    if settings_file is not None:
        paths.append((settings_file, "flag"))
    unique: dict[Path, Origin] = {}
    for p, origin in paths:
        unique.setdefault(p.absolute(), origin)  # the project may be the home folder: then it is the user's file
    files = [SettingsSource(p, rule_dir_for(p).resolve(), o) for p, o in unique.items() if reads(sources, o)]
    return [*files, settings_json] if settings_json is not None else files


def _until_trusted(fs: FileSettings) -> FileSettings:
    """A repository's committed file before the user trusts the folder: what takes away (deny, ask, withheld
    variables) applies; what widens or runs (trust.NEEDS_TRUST: allow, added folders, mode, hooks) does not."""
    return FileSettings(rules=[(k, r) for k, r in fs.rules if k != "allow"], denied_env_vars=fs.denied_env_vars,
                        sandbox=trimmed(fs.sandbox, trusted=False))


# --- all files together


class SettingsStore:
    """The loaded state of every settings file plus the command-line rules, reloaded when files change."""

    def __init__(
        self,
        sources: list[SettingsSource],
        *,
        cwd: Path,
        home: Path,
        allowed_tools: list[str],
        disallowed_tools: list[str],
        on_notice: NoticeFn,
        trusted: bool = True,
    ) -> None:
        self.sources = sources
        self.trusted = trusted
        """False until the user trusts the folder: its committed file only takes away (core/trust.py)."""
        self._cwd = cwd
        self._home = home
        self._notice = on_notice
        self._files: dict[Path, FileSettings] = {}
        self._file_problems: dict[Path, list[str]] = {}
        self._cli = FileSettings()
        for kind, flag, values in (("allow", "--allowedTools", allowed_tools), ("deny", "--disallowedTools", disallowed_tools)):
            for text in values:
                try:
                    self._cli.rules.append((kind, parse_rule(text, source=flag, rule_dir=cwd, cwd=cwd, home=home)))
                except (RuleError, ValueError) as exc:
                    self._cli.problems.append(f"{flag}: ignored rule {text!r}: {exc}")
                    on_notice("warning", self._cli.problems[-1])
        for source in sources:
            self.reload(source, report_changes=False)
        self._watch_task: asyncio.Task[None] | None = None
        self._stop: asyncio.Event | None = None

    # merged views

    def rules(self, kind: RuleKind) -> list[Rule]:
        return [r for fs in self._all() for k, r in fs.rules if k == kind]

    @property
    def hooks(self) -> list[HookSpec]:
        return [h for fs in self._all() for h in fs.hooks]

    @property
    def default_mode(self) -> PermissionMode | None:
        modes = [fs.default_mode for fs in self._all() if fs.default_mode is not None]
        return modes[-1] if modes else None

    @property
    def additional_directories(self) -> list[Path]:
        return list(dict.fromkeys(d for fs in self._all() for d in fs.additional_directories))

    @property
    def denied_env_vars(self) -> list[str]:
        return list(dict.fromkeys(n for fs in self._all() for n in fs.denied_env_vars))

    @property
    def allowed_env_vars(self) -> list[str]:
        return list(dict.fromkeys(n for fs in self._all() for n in fs.allowed_env_vars))

    @property
    def sandbox_layers(self) -> list[SandboxLayer]:
        """Each file's `sandbox` block, lowest precedence first (core/sandbox/policy.py merges them)."""
        return [fs.sandbox for fs in self._all() if fs.sandbox is not None]

    @property
    def problems(self) -> list[str]:
        """The problems of the files as they are now (a fixed file's problems go away)."""
        return [*self._cli.problems, *(p for s in self.sources for p in self._file_problems.get(s.path, []))]

    def _all(self) -> list[FileSettings]:
        loaded = [(s, self._files[s.path]) for s in self.sources if s.path in self._files]
        return [*(fs if self.trusted or s.origin != "project" else _until_trusted(fs) for s, fs in loaded), self._cli]

    # loading

    def reload(self, source: SettingsSource, *, report_changes: bool = True) -> None:
        before = {(k, r.text) for k, r in self._files[source.path].rules} if source.path in self._files else set()
        problems: list[str] = []
        try:
            loaded = load_settings_file(source, cwd=self._cwd, home=self._home)
        except SettingsError as exc:
            loaded = None
            problems.append(f"{exc} (the file is ignored)")
        if loaded is None:
            self._files.pop(source.path, None)
        else:
            self._files[source.path] = loaded
            problems.extend(loaded.problems)
        old_problems = self._file_problems.get(source.path, [])
        self._file_problems[source.path] = problems
        for problem in problems:
            if problem not in old_problems:  # a file that stays broken is reported once, not on every reload
                self._notice("warning", problem)
        after = {(k, r.text) for k, r in loaded.rules} if loaded else set()
        if report_changes and before != after:
            self._notice(
                "info",
                f"Permissions reloaded from {source.name}: +{len(after - before)} rules / -{len(before - after)} rules",
            )

    def reload_all(self) -> None:
        for source in self.sources:
            self.reload(source)

    def source_for(self, path: Path) -> SettingsSource:
        return next(s for s in self.sources if s.path == path.absolute())

    # watching

    async def start_watching(self) -> None:
        if self._watch_task is not None:
            return
        self._stop = asyncio.Event()
        self._watch_task = asyncio.create_task(self._watch(self._stop), name="settings-watch")

    async def stop_watching(self) -> None:
        task, stop = self._watch_task, self._stop
        self._watch_task = self._stop = None
        if task is None or stop is None:
            return
        stop.set()
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            pass

    async def _watch(self, stop: asyncio.Event) -> None:
        # A file's folder may not exist yet: watch its nearest existing ancestor, and start over when the
        # set of folders to watch changes (e.g. `.claude/` was just created).
        from watchfiles import awatch  # here: a `-p` run never watches, and the import is ~10 ms

        while not stop.is_set():
            folders = self._watch_folders()
            self.reload_all()  # catch up with changes made while the watch (re)started
            try:
                async for _ in awatch(
                    *folders,
                    watch_filter=self._relevant,
                    debounce=_WATCH_DEBOUNCE_MS,
                    stop_event=stop,
                    recursive=False,
                ):
                    self.reload_all()
                    if self._watch_folders() != folders:
                        break
            except (OSError, RuntimeError) as exc:  # a watched folder vanished, or the OS watcher failed
                self._notice("warning", f"Watching settings files failed ({exc}); retrying.")
                await asyncio.sleep(1)

    def _watch_folders(self) -> tuple[Path, ...]:
        folders = set()
        for source in self.sources:
            if source.path is None:  # --settings JSON lives in memory: nothing to watch
                continue
            folder = source.path.parent
            while not folder.is_dir() and folder != folder.parent:
                folder = folder.parent
            folders.add(folder)
        return tuple(sorted(folders))

    def _relevant(self, _change: Any, path: str) -> bool:
        changed = Path(path)
        return any(s.path is not None and (changed == s.path or s.path.is_relative_to(changed)) for s in self.sources)
