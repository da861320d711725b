"""The start-up question about memory imports from outside the project, as Claude Code asks it.

A CLAUDE.md (or a file it imports, or a memory file that is a link) that reaches outside the project —
the git root or the working folder — and `~/.claude` loads only once the user says yes here. The answer
is remembered per project in tui-agent's own config (core/session/memory_imports.py), for these files:
an import added later asks again. Shown once the agent is built, before the first prompt runs.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Callable

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

TITLE = "Allow external CLAUDE.md file imports?"
EXPLAIN = ("This project's CLAUDE.md imports files outside the current working directory. They would be sent to the "
           "model at the start of every conversation here. Only allow this for files you trust.")


class MemoryImportsScreen(ModalScreen[bool | None]):
    """Dismissed with True (allow), False (disable; remembered) or None (Esc: not now, not remembered)."""

    CSS = """
    MemoryImportsScreen { align: center middle; background: $background 50%; }
    MemoryImportsScreen #box { width: 90; height: auto; max-height: 90%; border: round $warning; background: $surface; padding: 0 1; }
    MemoryImportsScreen OptionList { height: auto; }
    MemoryImportsScreen #explain { margin: 0 0 1 0; }
    MemoryImportsScreen #files { color: $text-muted; margin: 0 0 1 0; }
    """
    BINDINGS = [Binding("escape", "cancel", "not now", priority=True)]

    def __init__(self, files: list[Path]) -> None:
        super().__init__()
        self.files = files

    def compose(self) -> ComposeResult:
        with Vertical(id="box") as box:
            box.border_title = TITLE
            yield Static(EXPLAIN, id="explain", markup=False)
            yield Static("External imports:\n" + "\n".join(f"  {f}" for f in self.files), id="files", markup=False)
            yield OptionList(Option("Yes, allow external imports", id="yes"), Option("No, disable external imports", id="no"))

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id == "yes")

    def action_cancel(self) -> None:
        self.dismiss(None)


def ask_memory_imports(app: App[Any], then: Callable[[], None]) -> None:
    """Ask about the memory's unanswered outside imports (if any), then call `then` (start the queued prompt)."""
    memory = getattr(getattr(app, "agent", None), "memory", None)
    files = memory.imports_to_ask() if memory is not None else []  # cached: computed when memory loaded
    if not files:
        then()
        return
    app.run_worker(_ask(app, memory, files, then), group="memory-imports", exit_on_error=False)


async def _ask(app: App[Any], memory: Any, files: list[Path], then: Callable[[], None]) -> None:
    try:
        answer = await app.push_screen_wait(MemoryImportsScreen(files))
        if answer is not None:
            async def record() -> None:  # memory belongs to the core's thread
                memory.answer_imports(files, answer)

            await asyncio.wrap_future(app.runner.submit(record()))  # type: ignore[attr-defined]
            if answer:
                app.notify(f"Memory imports allowed for this project: {len(files)} file(s).", markup=False)  # type: ignore[attr-defined]
    finally:
        then()
