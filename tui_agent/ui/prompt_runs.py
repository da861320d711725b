"""What a sent prompt runs: a `!` shell command, or the model on the prompt with its @-mentions attached."""

from __future__ import annotations

from concurrent.futures import Future
from typing import Any

SHELL_PREFIX = "!"


def is_shell(text: str) -> bool:
    return text.startswith(SHELL_PREFIX) and bool(text[1:].strip())


def start_run(app: Any, text: str) -> Future[Any]:
    """Start what `text` asks for on the core's thread: a `!` shell command (kept for ESC), or the
    model on the prompt (the runner attaches its @-mentions)."""
    if is_shell(text):
        from ..core.shell_mode import ShellCommand

        app.shell = ShellCommand(app.agent, text[1:].strip())
        return app.runner.submit(app.shell.run())
    app.shell = None
    return app.runner.run(text)
