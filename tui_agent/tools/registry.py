"""The set of tools a run offers, found by name or alias."""

from __future__ import annotations

from typing import Any, Iterable

from .base import Tool


class ToolRegistry:
    def __init__(self, tools: Iterable[Tool[Any]]) -> None:
        self._tools: list[Tool[Any]] = [t for t in tools if t.is_enabled()]
        self._by_name: dict[str, Tool[Any]] = {}
        for tool in self._tools:
            self._by_name.setdefault(tool.name, tool)
        for tool in self._tools:
            for alias in tool.aliases:
                self._by_name.setdefault(alias, tool)

    def find(self, name: str) -> Tool[Any] | None:
        return self._by_name.get(name)

    @property
    def tools(self) -> list[Tool[Any]]:
        return list(self._tools)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(t.name for t in self._tools)

    def api_definitions(self) -> list[dict[str, Any]]:
        return [t.api_definition() for t in self._tools if t.is_offered()]

    def decorate_request(self, request: dict[str, Any]) -> dict[str, Any]:
        """The request as sent: a registry with deferred tools (MCP) marks and names them here."""
        return request

    def restricted(self, names: Iterable[str] | None = None, exclude: Iterable[str] = (), *, read_only: bool = False) -> "ToolRegistry":
        """A registry holding only `names` (all when None), minus `exclude`; unknown names are ignored.
        `read_only` matters to registries that add tools of their own (MCP: only read-only-hinted ones)."""
        keep = None if names is None else set(names)
        drop = set(exclude)
        return ToolRegistry(
            t for t in self._tools
            if (keep is None or t.name in keep or keep & set(t.aliases)) and t.name not in drop
        )


def default_tools() -> list[Tool[Any]]:
    """Every built-in tool, in the order the model sees them. Imported lazily: tools pull in their own deps."""
    from . import builtin

    return builtin.all_tools()
