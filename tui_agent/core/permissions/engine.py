"""The permission engine: decides allow / ask / deny for each tool call.

Order: PreToolUse hooks run first, then deny rules, ask rules, the mode, allow rules, and the tool's own
default (read-only allowed, everything else asks). A call is checked as a set of items: each simple
command of a shell line, each file a redirection writes, the file a file tool touches. Any item hitting a
deny (ask) rule denies (asks); the call is allowed only when every item is allowed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from ..access import WORKSPACE_SOURCE
from ..sandbox.permissions import with_sandbox
from ..permission_types import (
    PermissionAnswer,
    PermissionCheck,
    PermissionDecision,
    PermissionMode,
    PermissionRequest,
)
from .bash_split import SimpleCommand, split_command
from .hooks import HookOutcome
from .mcp_rules import covers_mcp_tool
from .rules import PATH_RULE_TOOLS, READ_RULE_TOOLS, Rule, RuleError, RuleKind, parse_rule, split_rule_list
from .content_rules import ContentItem, content_item, content_rule_applies, content_suggestion
from .wrapped_rules import is_runner, wrapped_command_suggestions
from .settings import (
    SettingsError,
    SettingsStore,
    find_project_root,
    local_settings_path,
    save_allow_rule,
    settings_sources,
    inline_settings_source,
    user_config_dir,
)

NoticeFn = Callable[[str, str], None]

PLAN_MODE_MESSAGE = (
    "Plan mode is active: only read-only tools may run, so this call was not made. Explore with read-only "
    "tools, then present your plan to the user and wait for them to leave plan mode before changing anything."
)
BOOKKEEPING_SOURCE = "the agent's own bookkeeping"
USER_ANSWERS_SOURCE = "the user's answer"
DONT_ASK_MESSAGE = (
    "Permission to use {tool} has been denied: the permission mode is dontAsk, and no rule allows this call ({why})"
)
_SPECIAL_WORD_CHARS = set("/\\'\"$`=*?[]{}()<>|&;~!#")
_CYCLE: tuple[PermissionMode, ...] = ("default", "acceptEdits", "plan")


# --- what a call is checked as


@dataclass(frozen=True, slots=True)
class _Command:
    part: SimpleCommand


@dataclass(frozen=True, slots=True)
class _Unparsed:
    raw: str


@dataclass(frozen=True, slots=True)
class _PathItem:
    path: Path  # resolved (symlinks, `..`)
    literal: Path  # absolute but not resolved: deny rules are tried on both spellings
    is_dir: bool
    write: bool


@dataclass(frozen=True, slots=True)
class _WholeCall:
    """A call with nothing finer to match (a tool without command or path): only `ToolName` rules apply."""


_Item = _Command | _Unparsed | _PathItem | _WholeCall | ContentItem


class PermissionEngine:
    """Implements PermissionPolicy from settings files, command-line rules, session grants and hooks."""

    def __init__(
        self,
        cwd: Path,
        *,
        mode: PermissionMode | None = None,
        home: Path | None = None,
        project_dir: Path | None = None,
        config_dir: Path | None = None,
        settings_file: Path | None = None,
        settings_json: dict[str, Any] | None = None,
        setting_sources: list[str] | None = None,
        trusted: bool = True,
        allowed_tools: Sequence[str] = (),
        disallowed_tools: Sequence[str] = (),
        on_notice: NoticeFn | None = None,
        session_id: str = "",
    ) -> None:
        """`mode` is the `--permission-mode` flag (None: `permissions.defaultMode` from settings, else default;
        the settings' mode is read at start only, a live reload never switches the mode under the user).
        `allowed_tools` / `disallowed_tools` are flag values, each a comma- or space-separated rule list.
        `home`, `project_dir` and `config_dir` override where settings files are looked for (tests)."""
        self.cwd = cwd.resolve()
        self.home = (home or Path.home()).resolve()
        self.project_dir = (project_dir or find_project_root(self.cwd)).resolve()
        self.session_id = session_id
        self._on_notice = on_notice
        self._problems: list[str] = []
        config = config_dir or user_config_dir(self.home, explicit_home=home is not None)
        self.settings = SettingsStore(
            settings_sources(self.home, self.project_dir, config, settings_file,
                             None if settings_json is None else inline_settings_source(settings_json, self.cwd),
                             sources=setting_sources),  # --setting-sources: which files are read at all
            cwd=self.cwd,
            home=self.home,
            allowed_tools=[r for v in allowed_tools for r in split_rule_list(v)],
            disallowed_tools=[r for v in disallowed_tools for r in split_rule_list(v)],
            on_notice=self._notice,
            trusted=trusted,  # False: the folder's committed settings only take away (core/trust.py)
        )
        settings_mode = self.settings.default_mode
        if settings_mode == "bypassPermissions":
            # Bypass only by explicit choice on the command line, never from a file.
            self._problem("permissions.defaultMode bypassPermissions in settings is ignored: use --permission-mode.")
            settings_mode = None
        self.mode: PermissionMode = mode or settings_mode or "default"
        self._cycle = (*_CYCLE, "bypassPermissions") if mode == "bypassPermissions" else _CYCLE
        self.denials: list[dict[str, Any]] = []
        self._session_rules: list[Rule] = []
        # The rules "allow" would save by default per asked call: one per part not yet allowed.
        self._default_grants: dict[str, tuple[str, ...]] = {}
        self.sandbox: Any = None  # core/sandbox/session.py, set by the factory: lifts asks it will contain
        self.hook_events: Any = None  # core/hook_events.py: the session's dispatcher, set by the factory

    # --- PermissionPolicy

    async def decide(self, check: PermissionCheck) -> PermissionDecision:
        hook = await self._pre_tool_use(check)
        decision = with_hook_outcome(with_sandbox(self.sandbox, check, self._evaluate(check)), hook)
        if decision.behavior == "ask" and self.mode == "dontAsk":
            decision = PermissionDecision("deny", DONT_ASK_MESSAGE.format(tool=check.tool.name, why=decision.message), "mode dontAsk")
        if decision.behavior == "deny":
            self.record_denial(check.tool.name, check.tool_use_id, check.raw_input)
        return decision

    async def _pre_tool_use(self, check: PermissionCheck) -> HookOutcome:
        """PreToolUse hooks through the session's dispatcher (settings commands and a program's callbacks);
        an engine on its own (no agent) runs its settings' command hooks the same way."""
        from ..hook_events import HookDispatcher, caller_fields

        if self.hook_events is None:
            self.hook_events = HookDispatcher(session_id=lambda: self.session_id, transcript_path=lambda: "", cwd=self.cwd,
                                              permission_mode=lambda: self.mode, commands=lambda: self.settings.hooks,
                                              project_dir=self.project_dir, on_notice=self._notice)
        result = await self.hook_events.fire("PreToolUse", tool_use_id=check.tool_use_id, tool_name=check.tool.name,
                                             tool_input=check.raw_input, **caller_fields())
        self.hook_events.note_stop(result)
        return result.permission()

    def remember(self, request: PermissionRequest, answer: PermissionAnswer) -> None:
        grants = self._default_grants.pop(request.tool_use_id, ())
        if answer.decision == "deny":
            self.record_denial(request.tool_name, request.tool_use_id, request.input)
            return
        if answer.decision == "allow_once":
            return
        texts = (answer.rule,) if answer.rule else grants or request.suggestions[:1]
        for text in texts:
            if answer.decision == "allow_always" and self._save_always(text):
                continue
            self._add_session_rule(text)

    # --- the rest of the engine's surface

    def decide_read(self, path: str | Path, workspace: Any) -> PermissionDecision:
        """A Read of `path` for the model, by the rules alone (no hooks, no mode, nobody asked): deny and ask
        rules first, then allow rules, then the working folders. core/access.py (the gate for every read on
        the model's behalf) asks this, so there is one rule matcher. Source WORKSPACE_SOURCE: no rule named it."""
        item = _path_item(workspace, str(path), write=False)
        deny = self._first_hit("deny", "Read", [item])
        if deny is not None:
            return PermissionDecision("deny", f"Reading {item.path} is denied by rule {deny.described}.", deny.described)
        ask = self._first_hit("ask", "Read", [item])
        if ask is not None:
            return PermissionDecision("ask", f"{ask.described} asks before {item.path} is read.", ask.described)
        allow = next((r for r in self._rules("allow") if _whole_tool(r, "Read") or _applies(r, item, "allow", "Read")), None)
        if allow is not None:
            return PermissionDecision("allow", source=allow.described)
        if workspace.contains(item.path):
            return PermissionDecision("allow", source=WORKSPACE_SOURCE)
        return PermissionDecision("ask", f"{item.path} is outside the workspace.")


    def record_denial(self, tool_name: str, tool_use_id: str, tool_input: dict[str, Any]) -> None:
        """Record a denied call (by rule, mode, hook or the user) for the run's result."""
        if tool_use_id and any(d["tool_use_id"] == tool_use_id for d in self.denials):
            return  # the loop may report a user's deny that remember() already recorded
        self.denials.append({"tool_name": tool_name, "tool_use_id": tool_use_id, "tool_input": tool_input})

    def cycle_mode(self) -> PermissionMode:
        """Shift+Tab: default → acceptEdits → plan (→ bypassPermissions when started in it) → default."""
        i = self._cycle.index(self.mode) if self.mode in self._cycle else -1
        self.mode = self._cycle[(i + 1) % len(self._cycle)]
        return self.mode

    def session_rules(self) -> list[str]:
        return [r.text for r in self._session_rules]

    def revoke_session_rule(self, rule: str) -> bool:
        kept = [r for r in self._session_rules if r.text != rule.strip()]
        revoked = len(kept) != len(self._session_rules)
        self._session_rules = kept
        return revoked

    def rules_in_force(self) -> list[tuple[RuleKind, str, str]]:
        """(kind, rule, source) of every rule, deny first, for `/permissions`."""
        return [(kind, r.text, r.source) for kind in ("deny", "ask", "allow") for r in self._rules(kind)]

    @property
    def problems(self) -> list[str]:
        return [*self._problems, *self.settings.problems]

    @property
    def additional_directories(self) -> list[Path]:
        return self.settings.additional_directories

    async def start_watching(self) -> None:
        await self.settings.start_watching()

    async def stop_watching(self) -> None:
        await self.settings.stop_watching()

    # --- deciding

    def _evaluate(self, check: PermissionCheck) -> PermissionDecision:
        name = check.tool.name
        items = self._items(check)
        deny = self._first_hit("deny", name, items)
        if deny is not None:
            return PermissionDecision("deny", f"Permission to use {name} has been denied by rule {deny.described}.", deny.described)
        ask = self._first_hit("ask", name, items)
        if ask is not None:
            # No suggestions: an allow rule can't override an ask rule.
            return PermissionDecision("ask", f"{ask.described} asks for confirmation.", ask.described)
        if getattr(check.tool, "asks_user", False):
            return PermissionDecision("ask", f"{name} asks the user.", USER_ANSWERS_SOURCE)
        if getattr(check.tool, "bookkeeping", False):
            return PermissionDecision("allow", source=BOOKKEEPING_SOURCE)
        if self.mode == "bypassPermissions":
            return PermissionDecision("allow", source="mode bypassPermissions")
        if self.mode == "plan":
            writes = any(isinstance(i, _Unparsed) or (isinstance(i, _PathItem) and i.write) for i in items)
            if not check.read_only or writes:
                return PermissionDecision("deny", PLAN_MODE_MESSAGE, "mode plan")
            # Reading is fine in plan mode; reading outside the working folders still asks, as in any mode.
        pending, used = self._not_allowed(check, items)
        if not pending:
            return PermissionDecision("allow", source="; ".join(dict.fromkeys(used)) or "read-only")
        grants = tuple(dict.fromkeys(s for item in pending for s in self._suggestions(name, item)[:1]))
        self._default_grants[check.tool_use_id] = grants
        suggestions = tuple(dict.fromkeys(s for item in pending for s in self._suggestions(name, item)))
        return PermissionDecision("ask", _ask_reason(name, pending, check.workspace), suggestions=suggestions, grants=grants)

    def _items(self, check: PermissionCheck) -> list[_Item]:
        ws = check.workspace
        command = getattr(check.input, "command", None) if check.tool.name == "Bash" else None
        if isinstance(command, str):
            parts = split_command(command)
            if parts is None:
                return [_Unparsed(command)]
            items: list[_Item] = [_Command(p) for p in parts]
            items += [_path_item(ws, t, write=True) for p in parts for t in p.redirect_targets]
            # What its readers name (`cat ~/.ssh/id_rsa`) is decided like a Read of each path.
            items += [_path_item(ws, str(r), write=False) for r in check.tool.read_paths(check.input, ws.root)]
            return items or [_WholeCall()]
        content = content_item(check.tool, check.input)
        if content is not None:
            return [content]
        path = check.tool.input_path(check.input)
        if path is None and check.tool.name in READ_RULE_TOOLS:
            path = str(ws.root)  # Glob/Grep without a path search the working folder
        if path is None:
            return [_WholeCall()]
        return [_path_item(ws, path, write=not check.read_only)]

    def _first_hit(self, kind: RuleKind, tool_name: str, items: list[_Item]) -> Rule | None:
        for rule in self._rules(kind):
            if _whole_tool(rule, tool_name) or any(_applies(rule, item, kind, tool_name) for item in items):
                return rule
        return None

    def _not_allowed(self, check: PermissionCheck, items: list[_Item]) -> tuple[list[_Item], list[str]]:
        """The items no allow rule, mode or read-only default covers, and what covered the others."""
        allow = self._rules("allow")
        whole = next((r for r in allow if _whole_tool(r, check.tool.name)), None)
        if whole is not None:
            return [], [whole.described]
        pending: list[_Item] = []
        used: list[str] = []
        for item in items:
            rule = next((r for r in allow if _applies(r, item, "allow", check.tool.name)), None)
            if rule is not None:
                used.append(rule.described)
            elif isinstance(item, _PathItem) and item.write:
                if self.mode == "acceptEdits" and check.workspace.contains(item.path):
                    used.append("mode acceptEdits")
                else:
                    pending.append(item)
            elif isinstance(item, _PathItem) and not check.workspace.contains(item.path):
                pending.append(item)  # reading outside the working folders: only a Read rule allows it
            elif isinstance(item, _PathItem):
                used.append("read-only")
            elif isinstance(item, _Unparsed):
                pending.append(item)  # never auto-allowed: its parts can't be known
            elif check.read_only or (isinstance(item, _Command) and _part_read_only(check, item.part)):
                used.append("read-only")
            else:
                pending.append(item)
        return pending, used

    def _rules(self, kind: RuleKind) -> list[Rule]:
        rules = self.settings.rules(kind)
        return [*rules, *self._session_rules] if kind == "allow" else rules

    def _suggestions(self, tool_name: str, item: _Item) -> list[str]:
        """Rules that would allow `item`, narrowest first."""
        if isinstance(item, _Command):
            return _command_suggestions(item.part)
        if isinstance(item, _PathItem) and item.write:
            return self._edit_suggestions(item.path)
        if isinstance(item, _PathItem) and not item.write:
            folder = item.path if item.is_dir else item.path.parent
            return [f"Read(//{folder.as_posix().lstrip('/')}/**)"]
        if isinstance(item, _Unparsed):
            return []  # no rule can allow what can't be parsed (but `Bash` itself)
        if isinstance(item, ContentItem):
            return [content_suggestion(tool_name, item)]
        return [tool_name]

    def _edit_suggestions(self, path: Path) -> list[str]:
        folder = path.parent
        if folder == self.cwd:
            return ["Edit(./**)"]
        if folder.is_relative_to(self.cwd):
            rel = folder.relative_to(self.cwd)
            return list(dict.fromkeys([f"Edit(./{rel.as_posix()}/**)", f"Edit(./{rel.parts[0]}/**)"]))
        return [f"Edit(//{folder.as_posix().lstrip('/')}/**)"]

    # --- remembering

    def _add_session_rule(self, text: str) -> None:
        try:
            rule = parse_rule(text, source="session", rule_dir=self.cwd, cwd=self.cwd, home=self.home)
        except (RuleError, ValueError) as exc:
            self._problem(f"Cannot allow {text!r}: {exc}")
            return
        if rule.text not in self.session_rules():
            self._session_rules.append(rule)

    def _save_always(self, text: str) -> bool:
        """Save `text` to the project's settings.local.json and apply it now; False (reported) if it can't be."""
        path = local_settings_path(self.project_dir)
        try:
            parse_rule(text, source=str(path), rule_dir=self.project_dir, cwd=self.cwd, home=self.home)
            save_allow_rule(path, text)
        except (RuleError, ValueError, SettingsError, OSError) as exc:
            self._problem(f"Could not save {text!r} to {path}: {exc}; allowed for this session only.")
            return False
        self.settings.reload(self.settings.source_for(path), report_changes=False)
        self._notice("info", f"Saved {text} to {path}")
        return True

    # --- notices

    def _notice(self, level: str, text: str) -> None:
        if self._on_notice is not None:
            self._on_notice(level, text)

    def _problem(self, text: str) -> None:
        self._problems.append(text)
        self._notice("warning", text)


# --- matching helpers


def _whole_tool(rule: Rule, tool_name: str) -> bool:
    """`ToolName` alone matches every call of that tool (a bare `Edit` covers other file writes via _applies)."""
    return rule.specifier is None and (rule.tool == tool_name or covers_mcp_tool(rule.tool, tool_name))


def _applies(rule: Rule, item: _Item, kind: RuleKind, tool_name: str) -> bool:
    if isinstance(item, _Command):
        forms = item.part.allow_forms() if kind == "allow" else item.part.deny_forms()
        return any(rule.matches_command(f) for f in forms)
    if isinstance(item, ContentItem):
        return content_rule_applies(rule, item, tool_name)
    if isinstance(item, _Unparsed):
        # Deny and ask rules still see the raw line; allow rules can't vouch for it.
        return kind != "allow" and rule.matches_command(item.raw)
    if isinstance(item, _PathItem):
        # `Edit` rules govern every file write and `Read` rules every read (a Read deny/ask covers writing
        # the same file too); a rule naming another file tool (`Write(...)`, `Grep(...)`) governs that tool only.
        own = rule.tool == tool_name and rule.tool in PATH_RULE_TOOLS
        if item.write:
            governs = rule.tool == "Edit" or own or (kind != "allow" and rule.tool == "Read")
        else:
            governs = rule.tool == "Read" or own
        if not governs:
            return False
        paths: Iterable[Path] = (item.path,) if kind == "allow" else {item.path, item.literal}
        return any(rule.matches_path(p, item.is_dir) for p in paths)
    return False


def _path_item(ws: Any, raw: str, *, write: bool) -> _PathItem:
    expanded = Path(os.path.expanduser(raw))
    literal = Path(os.path.normpath(expanded if expanded.is_absolute() else ws.root / expanded))
    resolved = ws.resolve(raw)
    return _PathItem(resolved, literal, resolved.is_dir(), write)


def _part_read_only(check: PermissionCheck, part: SimpleCommand) -> bool:
    """Ask the tool itself whether this one part of a compound line is read-only."""
    return bool(check.tool.is_read_only(check.input.model_copy(update={"command": part.source or part.text})))


def _command_suggestions(part: SimpleCommand) -> list[str]:
    """`npm run test --watch` → Bash(npm run test *), Bash(npm run *), Bash(npm *)."""
    words = part.core_words or part.assignments
    if words and is_runner(words[0]):
        return wrapped_command_suggestions(words, " ".join(words))
    prefix = list(words[:1])
    for word in words[1:3]:
        if word.startswith("-") or _SPECIAL_WORD_CHARS & set(word):
            break
        prefix.append(word)
    return [f"Bash({' '.join(prefix[:n])} *)" for n in range(len(prefix), 0, -1)]


def _ask_reason(tool_name: str, pending: list[_Item], ws: Any) -> str:
    reasons: list[str] = []
    for item in pending:
        if isinstance(item, _Command):
            reasons.append(f"`{item.part.text}` is not allowed by any rule")
        elif isinstance(item, _Unparsed):
            reasons.append("the command could not be parsed, so no rule can allow it")
        elif isinstance(item, _PathItem) and not ws.contains(item.path):
            reasons.append(f"{item.path} is outside the workspace")
        elif isinstance(item, _PathItem):
            reasons.append(f"writing {item.path} needs permission")
        else:
            reasons.append(f"{tool_name} needs permission")
    return f"{tool_name}: " + "; ".join(dict.fromkeys(reasons)) + "."


def with_hook_outcome(decision: PermissionDecision, hook: HookOutcome) -> PermissionDecision:
    """A hook may deny anything, turn an allow into an ask, or skip an ask; it never undoes a deny."""
    if hook.decision == "deny" and decision.behavior != "deny":
        return PermissionDecision("deny", hook.reason or "Blocked by a PreToolUse hook.", hook.source)
    if hook.decision == "ask" and decision.behavior == "allow":
        return PermissionDecision("ask", hook.reason or "A PreToolUse hook asks for confirmation.", hook.source)
    if hook.decision == "allow" and decision.behavior == "ask":
        return PermissionDecision("allow", source=hook.source, updated_input=hook.updated_input)
    if hook.updated_input is not None and decision.behavior != "deny":
        return replace(decision, updated_input=hook.updated_input)
    return decision

