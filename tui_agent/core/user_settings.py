"""Top-level keys of the settings files (`respondToBashCommands`, `preferredNotifChannel`, `hooks`...),
read from the same files the permission engine loads, later files winning, at the moment they are needed
(so an edit applies without a restart). A file that can't be read or parsed is skipped here; the engine
already reports it."""

from __future__ import annotations

from typing import Any, Callable


def _settings_objects(policy: Any) -> list[tuple[str, Any]]:
    """(name, parsed JSON) of each settings source in order, `--settings` JSON from memory; unreadable ones skipped."""
    out: list[tuple[str, Any]] = []
    store = getattr(policy, "settings", None)
    for source in getattr(store, "sources", []):
        if getattr(source, "origin", None) == "project" and not getattr(store, "trusted", True):
            continue  # a folder not trusted yet: its committed hooks and keys wait (core/trust.py)
        try:
            out.append((source.name, source.read_json()))
        except (OSError, ValueError):
            continue
    return out


def read_setting(policy: Any, key: str, default: Any = None) -> Any:
    value = default
    for _name, data in _settings_objects(policy):
        if isinstance(data, dict) and key in data:
            value = data[key]
    return value


def settings_reader(policy: Any) -> Callable[[str, Any], Any]:
    """`read(key, default)` over the settings files as they are now, each file read once (not per key)."""
    merged: dict[str, Any] = {}
    for _name, data in _settings_objects(policy):
        if isinstance(data, dict):
            merged.update(data)
    return lambda key, default=None: merged.get(key, default)


def hook_commands(policy: Any, event: str) -> list[tuple[str, float | None]]:
    """(command, timeout seconds) of every `hooks.<event>` command hook, in file order."""
    return [(command, timeout) for _matcher, command, timeout, _source in hook_entries(policy, event)]


def hook_entries(policy: Any, event: str) -> list[tuple[str, str, float | None, str]]:
    """(matcher, command, timeout seconds, settings file) of every `hooks.<event>` command hook, in file order."""
    out: list[tuple[str, str, float | None, str]] = []
    for path, data in _settings_objects(policy):
        groups = data.get("hooks", {}).get(event, []) if isinstance(data, dict) and isinstance(data.get("hooks"), dict) else []
        for group in groups if isinstance(groups, list) else []:
            matcher = group.get("matcher") if isinstance(group, dict) else None
            for hook in group.get("hooks", []) if isinstance(group, dict) else []:
                if isinstance(hook, dict) and hook.get("type") == "command" and isinstance(hook.get("command"), str):
                    timeout = hook.get("timeout")
                    out.append((matcher if isinstance(matcher, str) else "", hook["command"],
                                float(timeout) if isinstance(timeout, (int, float)) else None, path))
    return out
