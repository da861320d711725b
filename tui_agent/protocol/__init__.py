"""The stream-json control protocol (claude-agent-sdk's way of driving Claude Code): a front end beside
headless.py, a thin consumer of the core's events and commands. Nothing in the core knows about it."""

from .session import ProtocolOptions, ProtocolSession, run_protocol

__all__ = ["ProtocolOptions", "ProtocolSession", "run_protocol"]
