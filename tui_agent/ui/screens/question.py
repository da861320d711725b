"""AskUserQuestion's dialog: the model's questions, one at a time, answered by number, ↑↓ + enter, or
(several answers allowed) space to check and enter to confirm; "Other" opens a text field; esc declines.

The answers go back as Claude Code's permission component sends them: allowed, with `updated_input` = the
tool's input plus `answers` (question → label; checked labels joined with ", "; the text typed under
Other) and `annotations` (the preview of the option chosen). A preview pane shows the highlighted option's
`preview` beside the options (under them on a narrow screen). As in the permission dialog, nothing is
focused when it opens, keys in its first moments act on nothing, and keys typed as a sentence go to the
prompt (dialog_typing), so type-ahead cannot answer it.
"""

from __future__ import annotations

import re
import time
from typing import Any, Callable

from pydantic import ValidationError
from rich.console import RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from ...core.permission_types import PermissionAnswer, PermissionRequest
from ...tools.ask_user_question import NAME, AskUserQuestionInput, Question
from ..ask_dialogs import register
from ..dialog_typing import TypingGuard, route_key
from ..widgets.visible_text import visible_content, visible_line

MAX_ROWS = 5  # 4 options and Other
SIDE_BY_SIDE_MIN_WIDTH = 100
"""From this screen width the preview sits beside the options; narrower, under them."""
NOTHING_CHECKED = "nothing is checked yet: space checks the highlighted option, enter confirms"
EMPTY_OTHER = "type your answer, or esc to go back to the options"
SPACE_IN_SINGLE = "enter chooses · space checks options only where several answers are allowed"
# Fences, headings, list items, quotes, a table's |---| row (a lone | is as likely an ASCII box).
_MARKDOWN_HINTS = re.compile(r"^\s{0,3}(#{1,6}\s|```|~~~|[-*+]\s|\d+\.\s|>|\|?\s*:?-{3,}:?\s*\|)", re.MULTILINE)


def preview_renderable(preview: str) -> RenderableType:
    """A preview as Claude Code draws it: Markdown when it is Markdown (fences, headings, lists, tables);
    otherwise verbatim, so an ASCII mockup keeps its lines and indents. No character reaches the terminal raw."""
    shown = "\n".join(visible_line(line) if line else "" for line in preview.split("\n"))
    if _MARKDOWN_HINTS.search(shown):
        from ..widgets.block_markdown import BlockMarkdown
        from ..widgets.cells import CODE_THEME

        return BlockMarkdown(shown, code_theme=CODE_THEME)
    return Text(shown, no_wrap=True, overflow="ellipsis")


class QuestionScreen(ModalScreen[PermissionAnswer | None]):
    """The questions of one AskUserQuestion call. Dismissed with the answers, a deny (esc), or None."""

    AUTO_FOCUS = None  # a text field must never have focus when the dialog opens
    typing_clock: Callable[[], float] = staticmethod(time.monotonic)
    """How fast keys come (dialog_typing); a test's fixed clock makes a burst of keys text for sure."""
    guard_s: float = 0.4
    """Keys in the dialog's first moments act on nothing (they were meant for what was there before)."""

    CSS = """
    QuestionScreen { align: center bottom; background: $background 50%; }
    QuestionScreen #dialog {
        width: 100%; max-width: 120; height: auto; max-height: 100%;
        margin: 0 1 1 1; padding: 0 1;
        border: round $accent; border-title-color: $accent; border-title-style: bold;
        background: $surface;
    }
    QuestionScreen #asker { color: $text-muted; padding: 0 0 0 1; }
    QuestionScreen #tabs { padding: 0 0 0 1; }
    QuestionScreen #question { color: $text; text-style: bold; padding: 0 0 0 1; margin: 1 0 0 0; }
    QuestionScreen #main { height: auto; margin: 1 0 0 0; layout: vertical; }
    QuestionScreen #main.-side { layout: horizontal; }
    QuestionScreen #options { height: auto; width: 1fr; }
    QuestionScreen #main.-side #options { width: 46; }
    QuestionScreen .option { padding: 0 1; color: $text; }
    QuestionScreen .option.-highlight { background: $accent-muted; color: $text-accent; }
    QuestionScreen .-guarded .option { color: $text-disabled; }
    QuestionScreen .option.-hidden, QuestionScreen #notice.-hidden, QuestionScreen #preview-box.-hidden { display: none; }
    QuestionScreen #preview-box {
        height: auto; width: 1fr; margin: 1 0 0 0; padding: 0 1;
        border: round $panel-lighten-2; border-title-color: $text-muted;
        background: $background; scrollbar-size-vertical: 1;
    }
    QuestionScreen #main.-side #preview-box { margin: 0 0 0 1; }
    QuestionScreen #other { margin: 1 0 0 0; }
    QuestionScreen #notice { color: $text-warning; margin: 1 0 0 0; }
    QuestionScreen #hint { color: $text-muted; margin: 1 0 0 0; }
    """

    BINDINGS = [Binding("up", "move(-1)", show=False), Binding("down", "move(1)", show=False),
                Binding("enter", "enter", show=False), Binding("left,shift+tab", "back", show=False),
                Binding("escape", "escape", show=False), Binding("pageup", "scroll_preview(-1)", show=False),
                Binding("pagedown", "scroll_preview(1)", show=False)]

    def __init__(
        self,
        request: PermissionRequest,
        policy: Any = None,
        *,
        typing: TypingGuard | None = None,
        clock: Callable[[], float] = time.monotonic,
        guard: float | None = None,
    ) -> None:
        super().__init__()
        self.request = request
        self.typing = typing or TypingGuard(clock=self.typing_clock)
        self._clock = clock
        self._guard = self.guard_s if guard is None else guard
        self._opened_at = float("inf")  # guarded until shown
        try:
            self.questions: list[Question] = AskUserQuestionInput.model_validate(request.input).questions
        except ValidationError:  # the core validated it; a hook's odd replacement still must not crash the app
            self.questions = []
        self.index = 0
        self.highlighted = 0
        self.checked: dict[int, set[int]] = {}
        """Per question: the checked rows of a multi-select question (the last row is Other)."""
        self.other_text: dict[int, str] = {}
        self.answers: dict[str, str] = {}
        self.annotations: dict[str, dict[str, str]] = {}
        self.notice = ""
        self._other_open = False
        self._typing_shown = False
        self._hint_shown = ""
        self._answered = False

    # ----- what is shown --------------------------------------------------------------------
    @property
    def question(self) -> Question:
        return self.questions[self.index]

    @property
    def other_row(self) -> int:
        return len(self.question.options)

    @property
    def answer_keys(self) -> set[str]:
        return {str(i + 1) for i in range(self.other_row + 1)} | {" "}

    def guarded(self) -> bool:
        return self._clock() - self._opened_at < self._guard

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as dialog:
            count = len(self.questions)
            dialog.border_title = "The model has a question" if count == 1 else f"The model has {count} questions"
            if self.request.agent:  # a subagent asks through the main dialog
                yield Static(Content(f"Asked by subagent {visible_line(self.request.agent)}"), id="asker")
            yield Static(id="tabs")
            yield Static(id="question")
            with Container(id="main"):
                with Vertical(id="options"):
                    for i in range(MAX_ROWS):
                        yield Static(id=f"option-{i}", classes="option")
                with VerticalScroll(id="preview-box", can_focus=False, classes="-hidden"):
                    yield Static(id="preview")
            yield Static(id="notice", classes="-hidden")
            yield Static(id="hint")

    def on_mount(self) -> None:
        if not self.questions:
            self._finish(PermissionAnswer("deny"))
            return
        self._opened_at = self._clock()
        self._render_state()
        self.set_interval(0.05, self._tick)

    def on_resize(self) -> None:
        if self.questions and not self._answered:
            self._render_state()

    def _has_previews(self) -> bool:
        return any(o.preview for o in self.question.options)

    def _render_state(self) -> None:
        q = self.question
        self.query_one("#dialog").set_class(self.guarded(), "-guarded")
        self.query_one("#tabs", Static).update(self._tabs())
        self.query_one("#question", Static).update(visible_content(q.question, one_row=False))
        for i in range(MAX_ROWS):
            row = self.query_one(f"#option-{i}", Static)
            row.set_class(i > self.other_row, "-hidden")
            row.set_class(i == self.highlighted, "-highlight")
            if i <= self.other_row:
                row.update(self._row(i))
        main = self.query_one("#main")
        previews = self._has_previews()
        main.set_class(previews and self.app.size.width >= SIDE_BY_SIDE_MIN_WIDTH, "-side")
        box = self.query_one("#preview-box", VerticalScroll)
        box.set_class(not previews, "-hidden")
        if previews:
            shown = q.options[self.highlighted].preview if self.highlighted < self.other_row else None
            box.border_title = f"preview · {visible_line(q.options[self.highlighted].label)}" if shown else "preview"
            self.query_one("#preview", Static).update(
                preview_renderable(shown) if shown else Content.styled("No preview for this choice.", "$text-muted")
            )
        notice = self.query_one("#notice", Static)
        notice.set_class(not self.notice, "-hidden")
        notice.update(Content(self.notice))
        self._update_hint()
        self.call_after_refresh(self._fit_preview)

    def _tabs(self) -> Content:
        """Each question's header as a chip (the current one lit, answered ones ticked), then "n of m"."""
        parts: list[tuple[str, str] | str] = []
        for i, q in enumerate(self.questions):
            header = visible_line(q.header) or f"Q{i + 1}"
            if i == self.index:
                parts.append((f" {header} ", "bold $background on $accent"))
            elif q.question in self.answers:
                parts.append((f" ✓ {header} ", "$text-success"))
            else:
                parts.append((f" {header} ", "$text-muted"))
            parts.append(" ")
        if len(self.questions) > 1:
            parts.append((f" {self.index + 1} of {len(self.questions)}", "$text-muted"))
        return Content.assemble(*parts)

    def _row(self, i: int) -> Content:
        q = self.question
        marker = "❯" if i == self.highlighted else " "
        box = ""
        if q.multiSelect:
            box = "[✓] " if i in self.checked.get(self.index, set()) else "[ ] "
        if i == self.other_row:
            typed = self.other_text.get(self.index, "")
            label = f"Other: {visible_line(typed)}" if typed else "Other…"
            return Content.assemble(f"{marker} {i + 1}. {box}", (label, "italic"))
        option = q.options[i]
        parts: list[tuple[str, str] | str] = [f"{marker} {i + 1}. {box}", (visible_line(option.label), "bold")]
        if option.description:
            indent = " " * (5 + len(box))
            parts.append(("\n" + indent + visible_line(option.description), "$text-muted"))
        return Content.assemble(*parts)

    def _update_hint(self) -> None:
        hint = self._hint()
        if hint != self._hint_shown:
            self._hint_shown = hint
            self.query_one("#hint", Static).update(Content(hint))

    def _hint(self) -> str:
        self._typing_shown = self.typing.typing
        if self.typing.typing:
            return "waiting for your answer · what you type goes to the prompt"
        if self.guarded():
            return "…"
        if self._other_open:
            return "enter send · esc back to the options"
        keys = f"1-{self.other_row + 1}"
        if self.question.multiSelect:
            parts = ["↑↓ move", f"space or {keys} check", "enter confirm"]
        else:
            parts = ["↑↓ move", f"enter or {keys} choose"]
        if self.index > 0:
            parts.append("← back")
        box = self.query_one("#preview-box", VerticalScroll)
        if self._has_previews() and box.max_scroll_y > 0:
            parts.append("pgup/pgdn preview")
        parts.append("esc decline")
        return " · ".join(parts)

    def _fit_preview(self) -> None:
        """The preview takes the rows the screen has left; the options above it are never cut."""
        boxes = self.query("#preview-box")  # none once the dialog is being taken down
        if self._answered or not boxes or boxes.first().has_class("-hidden"):
            return
        box = boxes.first(VerticalScroll)
        dialog = self.query_one("#dialog")
        main = self.query_one("#main")
        options = self.query_one("#options")
        others = sum(w.outer_size.height for w in dialog.children if w is not main and w.display)
        room = self.app.size.height - 3 - others - 1  # the border, the margin under the dialog, #main's margin
        if not main.has_class("-side"):
            room -= options.outer_size.height + 1
        height = max(3, room)
        if box.styles.max_height is None or box.styles.max_height.value != height:
            box.styles.max_height = height

    # ----- keys -----------------------------------------------------------------------------
    def on_key(self, event: Any) -> None:
        if self._other_open:
            return
        if route_key(self.app, self.typing, event, self.answer_keys):
            self._render_state()

    def _tick(self) -> None:
        """Held answer keys act once the keys stopped without becoming text; in a multi-select question
        every one of them does (1 then 3, quickly, checks both)."""
        if self._answered:
            return
        held = list(self.typing.held)
        key = self.typing.due(self.answer_keys)
        if key is not None and not self.guarded():
            keys = [k for k in held if k in self.answer_keys] if self.question.multiSelect else [key]
            for k in keys:
                if self._answered or self._other_open:
                    break
                self._press(k)
        if self._answered:
            return
        if self.typing.is_typing() != self._typing_shown or self.query_one("#dialog").has_class("-guarded") != self.guarded():
            self._render_state()
        else:  # the preview may have started or stopped scrolling since (laid out after the last drawing)
            self._update_hint()

    def _press(self, key: str) -> None:
        if key == " ":
            if self.question.multiSelect:
                self._toggle(self.highlighted)
            else:
                self.notice = SPACE_IN_SINGLE
                self._render_state()
            return
        row = int(key) - 1
        self.highlighted = row
        if self.question.multiSelect:
            self._toggle(row)
        else:
            self._choose(row)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self._other_open:  # the field takes enter and the arrows; esc goes back, the preview still scrolls
            return action in ("escape", "scroll_preview")
        return True

    def action_move(self, step: int) -> None:
        if self.guarded():
            return
        self.highlighted = (self.highlighted + step) % (self.other_row + 1)
        self.notice = ""
        self._render_state()

    def action_enter(self) -> None:
        if self.guarded():
            return
        if not self.question.multiSelect:
            self._choose(self.highlighted)
        elif self.highlighted == self.other_row and self.other_row not in self.checked.get(self.index, set()):
            self._open_other()
        else:
            self._confirm_checked()

    def action_back(self) -> None:
        if self.guarded() or self.index == 0:
            return
        self.index -= 1
        self.highlighted = 0
        self.notice = ""
        self._render_state()

    def action_escape(self) -> None:
        if self._other_open:
            self._close_other()
        elif not self.guarded():
            self._finish(PermissionAnswer("deny"))

    def action_scroll_preview(self, direction: int) -> None:
        box = self.query_one("#preview-box", VerticalScroll)
        box.scroll_page_down() if direction > 0 else box.scroll_page_up()

    # ----- answering ----------------------------------------------------------------------------
    def _toggle(self, row: int) -> None:
        checked = self.checked.setdefault(self.index, set())
        if row in checked:
            checked.discard(row)
        elif row == self.other_row:
            self._open_other()
            return
        else:
            checked.add(row)
        self.notice = ""
        self._render_state()

    def _choose(self, row: int) -> None:
        if row == self.other_row:
            self._open_other()
            return
        option = self.question.options[row]
        self._record(option.label, option.preview)

    def _confirm_checked(self) -> None:
        checked = self.checked.get(self.index, set())
        labels = [o.label for i, o in enumerate(self.question.options) if i in checked]
        typed = self.other_text.get(self.index, "").strip()
        if self.other_row in checked and typed:
            labels.append(typed)
        if not labels:
            self.notice = NOTHING_CHECKED
            return self._render_state()
        only = [o for i, o in enumerate(self.question.options) if i in checked]
        # As Claude Code: the preview goes with an answer that is exactly one option.
        self._record(", ".join(labels), only[0].preview if len(labels) == 1 and len(only) == 1 else None)

    def _record(self, answer: str, preview: str | None) -> None:
        q = self.question
        self.answers[q.question] = answer
        if preview:
            self.annotations[q.question] = {"preview": preview}
        else:
            self.annotations.pop(q.question, None)
        if self.index + 1 < len(self.questions):
            self.index += 1
            self.highlighted = 0
            self.notice = ""
            self._render_state()
            return
        updated = {**self.request.input, "answers": dict(self.answers), "annotations": dict(self.annotations)}
        self._finish(PermissionAnswer("allow_once", updated_input=updated))

    def _finish(self, answer: PermissionAnswer) -> None:
        # Once only: a second key before the screen is gone must not pop whatever is under it.
        if not self._answered:
            self._answered = True
            self.dismiss(answer)

    # ----- Other ------------------------------------------------------------------------------------
    def _open_other(self) -> None:
        self._other_open = True
        self.highlighted = self.other_row
        self.notice = ""
        field = Input(value=self.other_text.get(self.index, ""), placeholder="Type something.", id="other")
        self.query_one("#dialog").mount(field, before=self.query_one("#notice"))
        field.focus()
        self._render_state()

    def _close_other(self) -> None:
        self._other_open = False
        self.notice = ""
        self.query_one("#other", Input).remove()
        self._render_state()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        typed = event.value.strip()
        if self._answered:
            return
        if not typed:
            self.notice = EMPTY_OTHER
            return self._render_state()
        self.other_text[self.index] = typed
        self._close_other()
        if self.question.multiSelect:  # the typed answer joins the checked ones, and enter confirms them all
            self.checked.setdefault(self.index, set()).add(self.other_row)
            self._confirm_checked()
        else:
            self._record(typed, None)


register(NAME, lambda request, policy: QuestionScreen(request, policy))

