"""The todo panel above the prompt: the main agent's current TodoWrite list, live.

`Todos 2/5`, then one row per item: ☒ done (dimmed, struck), ◼ the item in progress (highlighted, in its
`activeForm`: "Running the tests…"), ☐ pending. It shows only while a list exists and not every item is
done (Claude Code drops a finished list). Ctrl+O (the app's `toggle_class` on `#todos`) folds it to its
one summary line and back.

It reads the list after each drawing of the transcript (`Transcript.on_flush`): live and resumed
conversations both reach the screen that way (ui/session_view.py replays a resumed one through the live
path), so the panel needs no event of its own. Live, the list comes from the run's calls; for a session
just opened, from its saved history (ui/todos.py).
"""

from __future__ import annotations

from typing import Any

from rich.style import Style
from rich.text import Text
from textual.widget import Widget

from ..todos import Todo, last_todos, live_todos
from .visible_text import visible_line

COLLAPSED_CLASS = "-collapsed"
TOGGLE_KEY = "ctrl+o"
MAX_ROWS = 10
"""Items shown at most (fewer on a short terminal); the rest are counted on a line of their own."""
GLYPH = {"completed": "☒", "in_progress": "◼", "pending": "☐"}


def shown_rows(todos: list[Todo], limit: int) -> tuple[int, int]:
    """The slice [start, end) of `todos` to show in `limit` rows, counting the "… N more" lines: the item
    being worked on (else the first not done) stays in view, with the one done before it."""
    if len(todos) <= limit:
        return 0, len(todos)
    focus = next((i for i, t in enumerate(todos) if t.status == "in_progress"), None)
    if focus is None:
        focus = next((i for i, t in enumerate(todos) if not t.done), 0)
    start = max(0, focus - 1)
    if start == 0:  # only the line for what is below
        return 0, limit - 1
    if start + limit - 2 >= len(todos):  # reaches the end: only the line for what is above
        return len(todos) - (limit - 1), len(todos)
    return start, start + limit - 2


def summary(todos: list[Todo]) -> str:
    return f"{sum(t.done for t in todos)}/{len(todos)}"


class TodoPanel(Widget):
    """The current todo list; hidden while there is none or all of it is done."""

    COMPONENT_CLASSES = {"todo-panel--header", "todo-panel--active", "todo-panel--done", "todo-panel--muted"}

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.todos: list[Todo] = []
        self._session: Any = object()  # the opened session whose history was read (none yet)
        self._live_id: str | None = None  # the TodoWrite call shown last

    def on_mount(self) -> None:
        self.display = False
        transcript = getattr(self.app, "transcript", None)
        if transcript is not None:  # after the transcript's other reader (the status line), not instead
            before = transcript.on_flush

            def after_flush() -> None:
                if before is not None:
                    before()
                self.sync()

            transcript.on_flush = after_flush

    # ----- the list ------------------------------------------------------------------------------
    def sync(self) -> None:
        """Take the newest list: a session just opened brings its own, then a TodoWrite of the run."""
        app: Any = self.app
        opened = getattr(app, "_opened", None)
        if opened is not self._session:
            self._session = opened
            conversation = getattr(opened, "conversation", None)
            self.show(last_todos(conversation.history) if conversation is not None else [])
        calls = getattr(app, "calls", None)
        live = live_todos(calls) if calls is not None else None
        if live is not None and live[0] != self._live_id:
            self._live_id = live[0]
            self.show(live[1])

    def show(self, todos: list[Todo]) -> None:
        if todos == self.todos:
            return
        self.todos = todos
        self.display = bool(todos) and not all(t.done for t in todos)
        self.refresh(layout=True)

    def forget(self) -> None:
        """/clear: no list until the next TodoWrite."""
        self.show([])

    @property
    def collapsed(self) -> bool:
        return self.has_class(COLLAPSED_CLASS)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self.refresh(layout=True)  # folded or not (a class the key toggles): another number of lines

    # ----- drawing -------------------------------------------------------------------------------
    def render(self) -> Text:
        todos = self.todos
        if not todos:
            return Text()
        style = self.get_component_rich_style
        text = Text(no_wrap=True, overflow="ellipsis", end="")
        text.append("Todos ", style("todo-panel--header"))
        text.append(summary(todos), style("todo-panel--header"))
        if self.collapsed:
            active = next((t for t in todos if t.status == "in_progress"), None)
            if active is not None:
                text.append(f" · {GLYPH['in_progress']} {_doing(active.active_form)}", style("todo-panel--active"))
            text.append(f" · {TOGGLE_KEY} to show the list", style("todo-panel--muted"))
            return text
        limit = max(3, min(MAX_ROWS, self.screen.size.height // 3))
        start, end = shown_rows(todos, limit)
        if start:
            text.append(f"\n  … {start} more above", style("todo-panel--muted"))
        for todo in todos[start:end]:
            text.append("\n")
            text.append_text(self._row(todo))
        if end < len(todos):
            text.append(f"\n  … {len(todos) - end} more", style("todo-panel--muted"))
        return text

    def _row(self, todo: Todo) -> Text:
        style = self.get_component_rich_style
        glyph = GLYPH.get(todo.status, GLYPH["pending"])
        if todo.status == "in_progress":
            return Text(f"  {glyph} {_doing(todo.active_form)}", style("todo-panel--active"))
        if todo.done:
            row = Text(f"  {glyph} ", style("todo-panel--done"))
            row.append(_line(todo.content), style("todo-panel--done") + Style(strike=True))
            return row
        return Text(f"  {glyph} {_line(todo.content)}")


def _line(text: str) -> str:
    """One row: a todo's first line, control characters made visible (the model's words reach the terminal)."""
    return visible_line(text.strip().splitlines()[0] if text.strip() else "")


def _doing(active_form: str) -> str:
    """"Running the tests…": the active form with one ellipsis, whether or not the model wrote one."""
    line = _line(active_form)
    return (line[:-3] if line.endswith("...") else line.rstrip("…")).rstrip() + "…"
