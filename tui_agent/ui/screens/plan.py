"""The plan dialogs: ExitPlanMode's "Ready to code?" (the plan, rendered, and how to go on) and
EnterPlanMode's "Enter plan mode?" (yes / no). Both answer the core's ask (ui/ask_dialogs.py).

The mode the person picks is set on the permission policy here, before the answer goes back, and the
status line shows it at once; the tools set it too when a program answered instead (tools/plan_mode.py).
As in the permission dialog, answer keys typed as part of a sentence go to the prompt (dialog_typing),
and nothing is focused when the dialog opens, so type-ahead cannot answer it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from ...core.permission_types import PermissionAnswer, PermissionRequest
from ..ask_dialogs import register
from ..dialog_typing import TypingGuard, route_key
from ..widgets.visible_text import visible_line

WORDS_PLACEHOLDER = "Tell the model what to change (sent to it word for word)"
NO_WORDS = "type what should change, or esc to go back to the choices"
CHROME_ROWS = 13
"""Rows of the exit dialog that are not the plan (border, heading, choices, hint, margins, the screen's edge)."""


@dataclass(frozen=True, slots=True)
class Choice:
    key: str
    label: str
    mode: str | None  # the permission mode an approval switches to; None: no (or keep planning)


EXIT_CHOICES = (
    Choice("1", "Yes, and auto-accept edits", "acceptEdits"),
    Choice("2", "Yes, and manually approve edits", "default"),
    Choice("3", "No, keep planning…", None),
)
ENTER_CHOICES = (
    Choice("1", "Yes, enter plan mode", "plan"),
    Choice("2", "No, start implementing now", None),
)


def plan_markdown(plan: str) -> Any:
    """The plan as the conversation draws Markdown; no character of it reaches the terminal raw."""
    from ..widgets.block_markdown import BlockMarkdown
    from ..widgets.cells import CODE_THEME

    shown = "\n".join(visible_line(line) if line else "" for line in plan.split("\n"))
    return BlockMarkdown(shown or "(the plan is empty)", code_theme=CODE_THEME)


class _ChoiceDialog(ModalScreen[PermissionAnswer | None]):
    """A modal of numbered choices: number keys, ↑↓ + enter, esc. Subclasses say what a choice does."""

    AUTO_FOCUS = None  # a text field must never have focus when the dialog opens
    CHOICES: tuple[Choice, ...] = ()
    ESC_LABEL = "esc no"
    typing_clock: Callable[[], float] = staticmethod(time.monotonic)
    """How fast keys come (dialog_typing); a test's fixed clock makes a burst of keys text for sure."""

    BINDINGS = [
        Binding("up", "move(-1)", show=False),
        Binding("down", "move(1)", show=False),
        Binding("enter", "choose_highlighted", show=False),
        Binding("escape", "escape", show=False),
        Binding("pageup", "scroll_body(-1)", show=False),
        Binding("pagedown", "scroll_body(1)", show=False),
    ]

    def __init__(self, request: PermissionRequest, policy: Any, *, typing: TypingGuard | None = None) -> None:
        super().__init__()
        self.request = request
        self.policy = policy
        self.typing = typing or TypingGuard(clock=self.typing_clock)
        self.highlighted = 0
        self.notice = ""
        self._typing_shown = False
        self._answered = False

    @property
    def answer_keys(self) -> dict[str, int]:
        return {c.key: i for i, c in enumerate(self.CHOICES)}

    def compose_choices(self) -> ComposeResult:
        with Vertical(id="choices"):
            for i, _ in enumerate(self.CHOICES):
                yield Static(id=f"choice-{i}", classes="choice")
        yield Static(id="notice", classes="-hidden")
        yield Static(id="hint")

    def on_mount(self) -> None:
        self._render_state()
        self.set_interval(0.05, self._typing_tick)

    def _render_state(self) -> None:
        for i, choice in enumerate(self.CHOICES):
            row = self.query_one(f"#choice-{i}", Static)
            row.set_class(i == self.highlighted, "-highlight")
            marker = "❯" if i == self.highlighted else " "
            row.update(Content(f"{marker} {choice.key}  {choice.label}"))
        notice = self.query_one("#notice", Static)
        notice.set_class(not self.notice, "-hidden")
        notice.update(Content(self.notice))
        self.query_one("#hint", Static).update(Content(self.hint()))

    def hint(self) -> str:
        self._typing_shown = self.typing.typing
        if self.typing.typing:
            return "waiting for your answer · what you type goes to the prompt"
        return f"↑↓ move · enter choose · {self.ESC_LABEL}"

    # ----- keys -----------------------------------------------------------------------------
    def words_open(self) -> bool:
        return False

    def on_key(self, event: Any) -> None:
        if self.words_open():
            return
        if route_key(self.app, self.typing, event, self.answer_keys):
            self._render_state()

    def _typing_tick(self) -> None:
        key = self.typing.due(self.answer_keys)
        if key is not None:
            self.choose(self.answer_keys[key])
        if self.typing.is_typing() != self._typing_shown and self.is_mounted:
            self._render_state()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.words_open():  # the field takes enter and the arrows; esc goes back, the plan still scrolls
            return action in ("escape", "scroll_body")
        return True

    def action_move(self, step: int) -> None:
        self.highlighted = (self.highlighted + step) % len(self.CHOICES)
        self.notice = ""
        self._render_state()

    def action_choose_highlighted(self) -> None:
        self.choose(self.highlighted)

    def action_scroll_body(self, direction: int) -> None:
        bodies = self.query("#body")
        if bodies:
            body = bodies.first(VerticalScroll)
            body.scroll_page_down() if direction > 0 else body.scroll_page_up()

    def action_escape(self) -> None:
        self.answer(PermissionAnswer("deny"))

    def choose(self, index: int) -> None:
        raise NotImplementedError

    def answer(self, answer: PermissionAnswer, mode: str | None = None) -> None:
        """Switch the mode (shown in the status line now), then answer; once only."""
        if self._answered:
            return
        self._answered = True
        if mode is not None and self.policy is not None:
            self.policy.mode = mode
            refresh = getattr(self.app, "refresh_status", None)
            if callable(refresh):
                refresh()
        self.dismiss(answer)


_CSS = """
{name} {{
    align: center bottom;
    background: $background 50%;
}}
{name} #dialog {{
    width: 100%;
    max-width: 110;
    height: auto;
    max-height: 100%;
    margin: 0 1 1 1;
    padding: 0 1;
    border: round $primary;
    border-title-color: $primary;
    border-title-style: bold;
    background: $surface;
}}
{name} #lead {{ color: $text; padding: 0 0 0 1; }}
{name} .muted {{ color: $text-muted; padding: 0 0 0 1; }}
{name} #body {{
    height: auto;
    margin: 1 0 0 0;
    border-left: outer $primary 50%;
    background: $background;
    scrollbar-size-vertical: 1;
}}
{name} #choices {{ height: auto; margin: 1 0 0 0; }}
{name} .choice {{ padding: 0 1; color: $text; }}
{name} .choice.-highlight {{ background: $accent-muted; color: $text-accent; text-style: bold; }}
{name} #notice.-hidden {{ display: none; }}
{name} #notice {{ color: $text-warning; margin: 1 0 0 0; }}
{name} #words {{ margin: 1 0 0 0; }}
{name} #hint {{ color: $text-muted; margin: 1 0 0 0; }}
"""


class ExitPlanScreen(_ChoiceDialog):
    """ExitPlanMode: the plan, then approve (and in which mode) or keep planning, with words for the model."""

    CSS = _CSS.format(name="ExitPlanScreen")
    CHOICES = EXIT_CHOICES
    ESC_LABEL = "esc keep planning"

    def __init__(self, request: PermissionRequest, policy: Any, *, typing: TypingGuard | None = None) -> None:
        super().__init__(request, policy, typing=typing)
        self._words = False

    def compose(self) -> ComposeResult:
        plan = self.request.input.get("plan")
        prompts = self.request.input.get("allowedPrompts") or []
        with Vertical(id="dialog") as dialog:
            dialog.border_title = "Ready to code?"
            if self.request.agent:
                yield Static(Content(f"Asked by subagent {visible_line(self.request.agent)}"), classes="muted")
            yield Static(Content("Here is the plan:"), id="lead")
            with VerticalScroll(id="body", can_focus=False):
                yield Static(plan_markdown(plan if isinstance(plan, str) else ""), id="plan")
            if isinstance(prompts, list) and prompts:
                asked = " · ".join(visible_line(f"{p.get('tool', '?')}: {p.get('prompt', '')}") for p in prompts if isinstance(p, dict))
                yield Static(Content(f"Requested permissions: {asked}"), classes="muted", id="prompts")
            yield from self.compose_choices()

    def on_mount(self) -> None:
        super().on_mount()
        self._fit_body()
        self.watch(self.query_one("#body"), "scroll_y", lambda _: self._render_state(), init=False)
        self.call_after_refresh(self._render_state)  # once laid out: does the plan scroll?

    def on_resize(self) -> None:
        self._fit_body()
        self.call_after_refresh(self._render_state)

    def _fit_body(self) -> None:
        """The plan takes what the screen has left: the choices always show below it."""
        extra = len(self.query("#prompts")) + bool(self.request.agent) + (3 if self._words else 0)
        self.query_one("#body").styles.max_height = max(3, self.app.size.height - CHROME_ROWS - extra)

    def hint(self) -> str:
        if self._words:
            return "enter send · esc back to the choices"
        base = super().hint()
        body = self.query("#body")
        if self.typing.typing or not body:
            return base
        scroll = body.first(VerticalScroll)
        below = round(scroll.max_scroll_y - scroll.scroll_y)
        if below > 0:
            return f"{base} · pgdn {below} more line{'s' if below != 1 else ''}"
        return f"{base} · pgup/pgdn scroll" if scroll.max_scroll_y > 0 else base

    def words_open(self) -> bool:
        return self._words

    def choose(self, index: int) -> None:
        self.highlighted = index
        choice = self.CHOICES[index]
        if choice.mode is not None:
            self.answer(PermissionAnswer("allow_once"), mode=choice.mode)
        else:
            self._open_words()

    def action_escape(self) -> None:
        if self._words:
            self._close_words()
        else:
            self.answer(PermissionAnswer("deny"))

    def _open_words(self) -> None:
        self._words = True
        self.notice = ""
        words = Input(placeholder=WORDS_PLACEHOLDER, id="words")
        self.query_one("#dialog").mount(words, before=self.query_one("#notice"))
        words.focus()
        self._fit_body()
        self._render_state()

    def _close_words(self) -> None:
        self._words = False
        self.notice = ""
        self.query_one("#words", Input).remove()
        self._fit_body()
        self._render_state()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        words = event.value.strip()
        if not words:  # as Claude Code: keeping planning needs words; esc keeps planning without any
            self.notice = NO_WORDS
            self._render_state()
            return
        self.answer(PermissionAnswer("deny", words=words))


class EnterPlanScreen(_ChoiceDialog):
    """EnterPlanMode: may the model switch to plan mode (read-only until its plan is approved)?"""

    CSS = _CSS.format(name="EnterPlanScreen")
    CHOICES = ENTER_CHOICES

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as dialog:
            dialog.border_title = "Enter plan mode?"
            if self.request.agent:
                yield Static(Content(f"Asked by subagent {visible_line(self.request.agent)}"), classes="muted")
            yield Static(Content("The model wants to enter plan mode to explore and design an implementation approach."), id="lead")
            yield Static(
                Content(
                    "In plan mode it will explore the code, look for existing patterns, design an approach and present "
                    "a plan for your approval.\nNo code changes will be made until you approve the plan."
                ),
                classes="muted",
            )
            yield from self.compose_choices()

    def choose(self, index: int) -> None:
        self.highlighted = index
        choice = self.CHOICES[index]
        if choice.mode is not None:
            self.answer(PermissionAnswer("allow_once"), mode=choice.mode)
        else:
            self.answer(PermissionAnswer("deny"))


register("ExitPlanMode", lambda request, policy: ExitPlanScreen(request, policy))
register("EnterPlanMode", lambda request, policy: EnterPlanScreen(request, policy))
