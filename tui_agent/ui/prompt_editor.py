"""The external editor for the prompt (Ctrl+G, Ctrl+X Ctrl+E): $VISUAL, else $EDITOR, else a default.

The prompt's text goes to a temporary file; the editor runs with the terminal handed over to it (the app
suspends), or, where the app cannot suspend (no real terminal), alongside it; the saved text comes back.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

DEFAULT_EDITORS = ("nano", "vim", "vi")


def editor_command() -> list[str]:
    for var in ("VISUAL", "EDITOR"):
        value = os.environ.get(var, "").strip()
        if value:
            return shlex.split(value)
    found = next((name for name in DEFAULT_EDITORS if shutil.which(name)), "vi")
    return [found]


def editor_name(command: list[str]) -> str:
    return Path(command[0]).name if command else "editor"


async def edit_text(app: Any, text: str) -> str:
    """Let the user edit `text` in their editor; the edited text (what they saved), or `text` on failure."""
    command = editor_command()
    fd, name = tempfile.mkstemp(prefix="tui-agent-prompt-", suffix=".md")
    path = Path(name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        try:
            from textual.app import SuspendNotSupported

            try:
                with app.suspend():
                    print(f"Waiting for {editor_name(command)} to close… (the prompt comes back with your text)", flush=True)
                    code = subprocess.run([*command, str(path)]).returncode
            except SuspendNotSupported:
                proc = await asyncio.create_subprocess_exec(*command, str(path), stdin=subprocess.DEVNULL)
                code = await proc.wait()
        except OSError as exc:
            app.notify(f"Could not start the editor {shlex.join(command)}: {exc.strerror or exc}", severity="error", markup=False)
            return text
        if code != 0:
            app.notify(f"The editor exited with code {code}; the prompt is unchanged.", severity="warning", markup=False)
            return text
        edited = path.read_text(encoding="utf-8", errors="replace")
        return edited[:-1] if edited.endswith("\n") else edited
    finally:
        path.unlink(missing_ok=True)
