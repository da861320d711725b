"""The permission dialog: it answers one ask of the core (the `/permissions` list is in permissions_list.py).

The dialog is built to be hard to answer by accident: for its first moments (`guard` seconds) every
answer key is ignored and the choices are dimmed; nothing is focused, so no text field catches typing;
and for a shell command that changes things Enter alone approves nothing: the first choice is highlighted
(as in every list) but Enter only acts once ↑↓ moved the highlight on purpose; before that it says so.
Every key answers something: a key that cannot act (Enter there, `r` with one rule) says why in the dialog.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any, Callable, Literal

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Input, Static

from ...core.executor import SHELL_TOOLS
from ...core.permission_types import PermissionAnswer, PermissionRequest
from ..dialog_typing import TypingGuard, route_key
from ..widgets.visible_text import visible_content, visible_line

ChoiceName = Literal["once", "session", "always", "deny", "words", "deny_all"]
LOCAL_SETTINGS = ".claude/settings.local.json"
CHOICE_ORDER: tuple[ChoiceName, ...] = ("once", "session", "always", "deny", "words", "deny_all")
ANSWER_KEYS: dict[str, ChoiceName] = {"1": "once", "y": "once", "2": "session", "3": "always", "4": "deny", "n": "deny", "5": "words", "6": "deny_all"}
ENTER_NEVER_APPROVES = "enter alone never approves a shell command — press 1 or y to allow it"


@dataclass(frozen=True, slots=True)
class Choice:
    name: ChoiceName
    keys: str  # as shown on screen
    label: str


def diff_content(diff: str) -> Content:
    """A unified diff, coloured from the theme: additions, removals, hunk headers."""
    parts: list[Content] = []
    for line in diff.splitlines():
        if line.startswith(("+++", "---")):
            style = "bold"
        elif line.startswith("+"):
            style = "$text-success on $success-muted"
        elif line.startswith("-"):
            style = "$text-error on $error-muted"
        elif line.startswith("@@"):
            style = "$text-accent"
        else:
            style = ""
        shown = visible_content(line + "\n", one_row=False)  # a file's text can hold escapes too
        parts.append(shown.stylize_before(style) if style else shown)
    return Content.assemble(*parts).rstrip()


def _subject(request: PermissionRequest) -> tuple[str, Content]:
    """(title, what it will do) for the header of the dialog. A command is shown whole, every line of it
    (here-document bodies are where `$(…)` hides), and no character of it reaches the terminal raw."""
    inp = request.input
    name = visible_line(request.tool_name)
    if request.tool_name in SHELL_TOOLS and isinstance(inp.get("command"), str):
        return f"{name}: run this command?", visible_content(inp["command"], one_row=False)
    path = inp.get("notebook_path" if request.tool_name == "NotebookEdit" else "file_path")
    if request.tool_name in ("Edit", "Write", "NotebookEdit") and isinstance(path, str):
        verb = {"Edit": "edit this file", "Write": "write this file", "NotebookEdit": "edit this notebook"}[request.tool_name]
        return f"{name}: {verb}?", visible_content(path, one_row=True)
    what = request.summary or json.dumps(inp, ensure_ascii=False)[:500]
    return f"{name}: allow this call?", visible_content(what, one_row=True)


class PermissionScreen(ModalScreen[PermissionAnswer]):
    """One ask. Dismissed with the answer; "deny all with words" also calls `on_deny_all(words)`."""

    AUTO_FOCUS = None  # a text field must never have focus when the dialog opens

    # Screen CSS, not DEFAULT_CSS: an app stylesheet's plain `Screen { … }` rule beats default CSS.
    CSS = """
    PermissionScreen {
        align: center bottom;
        background: $background 50%;
    }
    PermissionScreen #dialog {
        width: 100%;
        max-width: 110;
        height: auto;
        max-height: 90%;
        margin: 0 1 1 1;
        padding: 0 1;
        border: round $warning;
        border-title-color: $warning;
        border-title-style: bold;
        border-subtitle-color: $text-muted;
        background: $surface;
    }
    PermissionScreen #body {
        height: auto;
        max-height: 50vh;
    }
    PermissionScreen #asker {
        color: $text-warning;
        padding: 0 0 0 1;
    }
    PermissionScreen #subject {
        color: $text;
        text-style: bold;
        padding: 0 0 0 1;
    }
    PermissionScreen #reason {
        color: $text-muted;
        padding: 0 0 0 1;
    }
    PermissionScreen #diff {
        margin: 1 0 0 0;
        border-left: outer $panel-lighten-2;
        background: $background;
    }
    PermissionScreen #choices {
        height: auto;
        margin: 1 0 0 0;
    }
    PermissionScreen .choice {
        padding: 0 1;
        color: $text;
    }
    PermissionScreen .choice.-highlight {
        background: $accent-muted;
        color: $text-accent;
        text-style: bold;
    }
    PermissionScreen .-guarded .choice {
        color: $text-disabled;
    }
    PermissionScreen .choice.-hidden, PermissionScreen #notice.-hidden {
        display: none;
    }
    PermissionScreen #words {
        margin: 1 0 0 0;
    }
    PermissionScreen #hint {
        color: $text-muted;
        margin: 1 0 0 0;
    }
    PermissionScreen #notice {
        color: $text-warning;
        margin: 1 0 0 0;
    }
    """

    BINDINGS = [
        Binding("1,y", "choose('once')", "Allow once", show=False),
        Binding("2", "choose('session')", "Allow this session", show=False),
        Binding("3", "choose('always')", "Always allow", show=False),
        Binding("4,n", "choose('deny')", "Deny", show=False),
        Binding("5", "choose('words')", "Deny with words", show=False),
        Binding("6", "choose('deny_all')", "Deny all with words", show=False),
        Binding("up", "move(-1)", "Up", show=False),
        Binding("down", "move(1)", "Down", show=False),
        Binding("enter", "choose_highlighted", "Choose", show=False),
        Binding("r,tab", "cycle_rule", "Switch rule", show=False),
        Binding("pageup", "scroll_body(-1)", show=False),
        Binding("pagedown", "scroll_body(1)", show=False),
        Binding("escape", "escape", "Deny", show=False),
    ]

    def __init__(
        self,
        request: PermissionRequest,
        *,
        position: int = 1,
        total: int = 1,
        on_deny_all: Callable[[str], None] | None = None,
        settings_label: str = LOCAL_SETTINGS,
        clock: Callable[[], float] = time.monotonic,
        guard: float = 0.4,
        typing: TypingGuard | None = None,
    ) -> None:
        super().__init__()
        self.request = request
        self.typing = typing or TypingGuard()
        self._typing_shown = False
        """Keys typed as text go to the prompt, not to the choices (see dialog_typing)."""
        self._position = position
        self._total = total
        self._on_deny_all = on_deny_all
        self._settings_label = settings_label
        self._clock = clock
        self._guard = guard
        self._opened_at = float("inf")  # guarded until shown
        self._rule_index = 0
        self._words_for: ChoiceName | None = None  # which words choice the input is open for
        self._guard_timer: Timer | None = None
        self._answered = False
        # A shell command that changes things: Enter alone must not run it, only after ↑↓ chose on purpose.
        self._enter_needs_move = request.tool_name in SHELL_TOOLS and not request.read_only
        self._moved = False
        self.highlighted: ChoiceName | None = "once"
        self.notice = ""
        """Why the last key did nothing, shown above the hint until the next key acts."""

    # ----- what is shown --------------------------------------------------------------------
    @property
    def _rule_choices(self) -> list[str | None]:
        # A compound command first offers every part's own rule at once (None: the request's grants).
        grants = [None] if len(self.request.grants) > 1 else []
        return [*grants, *self.request.suggestions]

    @property
    def rule(self) -> str | None:
        """The rule "this session" / "always" would grant: one of the request's suggestions, or None
        for all of its grants (shown joined with " + ")."""
        choices = self._rule_choices
        return choices[self._rule_index] if choices else None

    @property
    def rule_label(self) -> str | None:
        choices = self._rule_choices
        if not choices:
            return None
        rule = choices[self._rule_index]
        return " + ".join(self.request.grants) if rule is None else rule

    @property
    def others_waiting(self) -> int:
        return max(0, self._total - self._position)

    def choices(self) -> list[Choice]:
        """The choices that can be taken now, in display order."""
        rule = visible_line(self.rule_label) if self.rule_label is not None else None
        out = [Choice("once", "1 y", "Yes, allow once")]
        if rule is not None:
            out.append(Choice("session", "2", f"Yes, allow this session: {rule}"))
            out.append(Choice("always", "3", f"Yes, always allow: {rule}  → {self._settings_label}"))
        out.append(Choice("deny", "4 n", "No (esc)"))
        out.append(Choice("words", "5", "No, and tell the model what to do instead…"))
        if self.others_waiting:
            out.append(Choice("deny_all", "6", f"No to this and the {self.others_waiting} other waiting, with words…"))
        return out

    def compose(self) -> ComposeResult:
        title, subject = _subject(self.request)
        with Vertical(id="dialog") as dialog:
            dialog.border_title = title
            # What it will do scrolls (a long command, a big diff); the choices below always show.
            with VerticalScroll(id="body", can_focus=False):
                if self.request.agent:  # a subagent asks through the main dialog
                    yield Static(Content(f"Asked by subagent {visible_line(self.request.agent)}"), id="asker")
                yield Static(subject, id="subject")
                if self.request.reason:  # it may quote parts of the command
                    yield Static(visible_content(self.request.reason, one_row=False), id="reason")
                if self.request.diff:
                    yield Static(diff_content(self.request.diff), id="diff")
            with Vertical(id="choices"):
                for name in CHOICE_ORDER:
                    yield Static(id=f"choice-{name}", classes="choice")
            yield Static(id="notice", classes="-hidden")
            yield Static(id="hint")

    def on_mount(self) -> None:
        self._opened_at = self._clock()
        self._render_state()
        self.call_after_refresh(self._render_state)  # once laid out: does the body scroll?
        self.watch(self.query_one("#body"), "scroll_y", lambda _: self._render_state(), init=False)
        self.set_interval(0.05, self._typing_tick)
        if self._guarded():
            # The clock may be a test's: poll it rather than trusting a wall-clock timer.
            self._guard_timer = self.set_interval(0.1, self._check_guard)

    def _check_guard(self) -> None:
        if not self._guarded() and self._guard_timer is not None:
            self._guard_timer.stop()
            self._guard_timer = None
            self._render_state()

    def _guarded(self) -> bool:
        return self._clock() - self._opened_at < self._guard

    def set_count(self, position: int, total: int) -> None:
        """Live update of "n of m" as more asks arrive (or are withdrawn) while this one is shown."""
        self._position, self._total = position, total
        if self.highlighted == "deny_all" and not self.others_waiting:
            self.highlighted = "words"  # the row above it: never an approval the user did not point at
        if self.is_mounted:
            self._render_state()

    def _render_state(self) -> None:
        dialog = self.query_one("#dialog")
        dialog.border_subtitle = f"{self._position} of {self._total}" if self._total > 1 else ""
        guarded = self._guarded()
        dialog.set_class(guarded, "-guarded")
        shown: dict[str, Choice] = {c.name: c for c in self.choices()}
        for name in CHOICE_ORDER:
            row = self.query_one(f"#choice-{name}", Static)
            choice = shown.get(name)
            row.set_class(choice is None, "-hidden")
            row.set_class(name == self.highlighted, "-highlight")
            if choice is not None:
                marker = "❯" if name == self.highlighted else " "
                row.update(Content(f"{marker} {choice.keys:<5}{choice.label}"))
        notice = self.query_one("#notice", Static)
        notice.set_class(not self.notice, "-hidden")
        notice.update(Content(self.notice))
        self.query_one("#hint", Static).update(Content(self._hint(guarded)))

    def _say(self, notice: str) -> None:
        self.notice = notice
        self._render_state()

    def _hint(self, guarded: bool) -> str:
        self._typing_shown = self.typing.typing
        if self.typing.typing:
            return "waiting for your answer · what you type goes to the prompt"
        if guarded:
            return "…"
        if self._words_for is not None:
            return "enter send · esc back to the choices"
        parts = ["↑↓ move", "enter choose", "esc deny"]
        if len(self._rule_choices) > 1:
            parts.insert(0, f"r/tab other rule ({self._rule_index + 1}/{len(self._rule_choices)})")
        body = self.query_one("#body", VerticalScroll)
        below = round(body.max_scroll_y - body.scroll_y)
        if below > 0:  # the rest of a long command may be what matters: say how much is out of sight
            parts.append(f"pgdn {below} more line{'s' if below != 1 else ''} below")
        elif self.request.diff or body.max_scroll_y > 0:
            parts.append("pgup/pgdn scroll")
        return " · ".join(parts)

    def on_resize(self) -> None:
        self.call_after_refresh(self._render_state)  # the body may start or stop overflowing

    # ----- keys -----------------------------------------------------------------------------
    def on_key(self, event: Any) -> None:
        if self._words_for is not None:
            return
        if route_key(self.app, self.typing, event, ANSWER_KEYS):
            self._render_state()

    def _typing_tick(self) -> None:
        key = self.typing.due(ANSWER_KEYS)
        if key is not None:
            self.action_choose(ANSWER_KEYS[key])
        if self.typing.is_typing() != self._typing_shown and self.is_mounted:
            self._render_state()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # While words are typed only escape (back) and diff scrolling act; the input takes enter itself.
        if self._words_for is not None:
            return action in ("escape", "scroll_body")
        return True

    def action_choose(self, name: ChoiceName) -> None:
        if self._guarded() or name not in {c.name for c in self.choices()}:
            return
        self.highlighted = name
        if name == "once":
            self._answer(PermissionAnswer("allow_once"))
        elif name == "session":
            self._answer(PermissionAnswer("allow_session", rule=self.rule))
        elif name == "always":
            self._answer(PermissionAnswer("allow_always", rule=self.rule))
        elif name == "deny":
            self._answer(PermissionAnswer("deny"))
        else:
            self._open_words(name)

    def _answer(self, answer: PermissionAnswer) -> None:
        # Once only: a second key before the screen is gone must not pop whatever is under it.
        if not self._answered:
            self._answered = True
            self.dismiss(answer)

    def action_choose_highlighted(self) -> None:
        if self.highlighted is None or self._guarded():
            return
        if self._enter_needs_move and not self._moved and self.highlighted in ("once", "session", "always"):
            self._say(ENTER_NEVER_APPROVES)
            return
        self.action_choose(self.highlighted)

    def action_move(self, step: int) -> None:
        if self._guarded():
            return
        names = [c.name for c in self.choices()]
        if self.highlighted in names:
            self.highlighted = names[(names.index(self.highlighted) + step) % len(names)]
        else:
            self.highlighted = names[0] if step > 0 else names[-1]
        self._moved = True
        self._say("")

    def action_cycle_rule(self) -> None:
        if self._guarded():
            return
        choices = self._rule_choices
        if len(choices) > 1:
            self._rule_index = (self._rule_index + 1) % len(choices)
            self._say("")
        elif self.rule_label is not None:
            self._say(f"only one rule is offered for this call: {visible_line(self.rule_label)}")
        else:
            self._say("no rule is offered for this call: it can only be allowed once")

    def action_scroll_body(self, direction: int) -> None:
        body = self.query_one("#body", VerticalScroll)
        body.scroll_page_down() if direction > 0 else body.scroll_page_up()

    def action_escape(self) -> None:
        if self._words_for is not None:
            self._close_words()
        elif not self._guarded():
            self._answer(PermissionAnswer("deny"))

    # ----- deny with words --------------------------------------------------------------------
    def _open_words(self, name: ChoiceName) -> None:
        self._words_for = name
        self.notice = ""
        placeholder = "What should the model do instead? (sent to it word for word)"
        words = Input(placeholder=placeholder, id="words")
        self.query_one("#dialog").mount(words, before=self.query_one("#hint"))
        words.focus()
        self._render_state()

    def _close_words(self) -> None:
        self._words_for = None
        self.query_one("#words", Input).remove()
        self._render_state()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        words = event.value.strip()
        if self._answered:
            return
        if self._words_for == "deny_all" and self._on_deny_all is not None:
            self._on_deny_all(words)
        self._answer(PermissionAnswer("deny", words=words))
