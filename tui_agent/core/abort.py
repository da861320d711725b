"""Abort signals: one per run, a child per tool, so a tool (or a shell sibling group) can stop alone.

Aborting a signal aborts its children and runs their callbacks synchronously, so the executor can
cancel tasks and the model client can close its stream in the same tick as ESC.
"""

from __future__ import annotations

from typing import Callable


class AbortSignal:
    __slots__ = ("_reason", "_callbacks", "_children", "_parent")

    def __init__(self, parent: "AbortSignal | None" = None) -> None:
        self._reason: str | None = None
        self._callbacks: list[Callable[[str], None]] = []
        self._children: list[AbortSignal] = []
        self._parent = parent
        if parent is not None:
            if parent.aborted:
                self._reason = parent._reason
            else:
                parent._children.append(self)

    @property
    def aborted(self) -> bool:
        return self._reason is not None

    @property
    def reason(self) -> str | None:
        return self._reason

    def child(self) -> "AbortSignal":
        return AbortSignal(self)

    def on_abort(self, callback: Callable[[str], None]) -> Callable[[], None]:
        """Run `callback(reason)` when aborted (at once if already). Returns a remover."""
        if self._reason is not None:
            callback(self._reason)
            return lambda: None
        self._callbacks.append(callback)

        def remove() -> None:
            try:
                self._callbacks.remove(callback)
            except ValueError:
                pass

        return remove

    def abort(self, reason: str = "interrupted by user") -> None:
        if self._reason is not None:
            return
        self._reason = reason
        callbacks, self._callbacks = self._callbacks, []
        children, self._children = self._children, []
        for cb in callbacks:
            cb(reason)
        for child in children:
            child.abort(reason)

    def detach(self) -> None:
        """Forget this signal in its parent (a finished tool's child signal)."""
        if self._parent is not None:
            try:
                self._parent._children.remove(self)
            except ValueError:
                pass
