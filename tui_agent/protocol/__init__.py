"""The stream-json control protocol (claude-agent-sdk's way of driving Claude Code): a front end beside
headless.py, a thin consumer of the core's events and commands. Nothing in the core knows about it.

The session is imported when first asked for: the CLI reads `protocol.flags` on every start, and the
session pulls in the core, the hooks and the permission engine, which the app's first frame must not
wait for."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .session import ProtocolOptions, ProtocolSession, run_protocol

__all__ = ["ProtocolOptions", "ProtocolSession", "run_protocol"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import session

        return getattr(session, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
