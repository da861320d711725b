"""The question when the session to carry on is being written by another tui-agent process (another window,
a `-p` script): two writers would split it silently (core/session/lock.py).

"Session busy in another window", with three answers:
- Wait: until the other process closes the session (the lock is polled, never waited on, so the screen stays
  live); the wait says so, and Esc stops waiting (back to the answers);
- Fork: carry on in a new session holding its history as of its last completed turn (what `-p` does alone);
- Cancel (Esc): at start-up, a new empty session in this window; for /resume, stay in the session open here.
  Cancel keeps the user in the app, as this app's other start-up fallbacks do (nothing to continue, the picker
  dismissed): they launched it to work, and quitting is Ctrl+C twice from here as anywhere.
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable, Literal

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ...core.session.lock import SessionBusy, holder_words, is_free
from ...core.session.resume import BusyPolicy, NoConversationFound, OpenedSession

BusyChoice = Literal["wait", "fork", "cancel"]
POLL_S = 0.2
"""How often a wait looks whether the other process has let the session go (a non-blocking try)."""
TITLE = "Session busy in another window"
WHY = ("Two windows writing one session would split it in two without a word, and a later resume would "
       "carry on only one of them.")
NEW_SESSION = "Cancel: start a new session here"
STAY = "Cancel: stay in this session"


class SessionBusyScreen(ModalScreen[BusyChoice]):
    """Dismissed with "wait" (the session is free now), "fork" or "cancel"."""

    CSS = """
    SessionBusyScreen { align: center middle; background: $background 60%; }
    SessionBusyScreen #box { width: 90; max-width: 100%; height: auto; max-height: 100%; border: round $warning;
                             border-title-color: $warning; background: $surface; padding: 0 1; }
    SessionBusyScreen .para { margin: 1 0 0 0; }
    SessionBusyScreen .dim { color: $text-muted; }
    SessionBusyScreen #waiting { color: $warning; text-style: bold; margin: 1 0 0 0; }
    SessionBusyScreen OptionList { height: auto; margin: 1 0 0 0; border: none; }
    """
    BINDINGS = [Binding("escape", "cancel", "cancel", priority=True)]

    def __init__(self, busy: SessionBusy, *, cancel_label: str = NEW_SESSION, clock: Callable[[], float] | None = None,
                 poll_every: float = POLL_S) -> None:
        super().__init__()
        self.busy, self.cancel_label, self.poll_every = busy, cancel_label, poll_every
        import time

        self.clock = clock or time.monotonic
        self._poll: Timer | None = None
        self._since = 0.0

    @property
    def waiting(self) -> bool:
        return self._poll is not None

    def compose(self) -> ComposeResult:
        with Vertical(id="box") as box:
            box.border_title = TITLE
            yield Static(f"Session {self.busy.session_id} is open in {holder_words(self.busy.pid)}, which is still "
                         "writing it.", id="about", markup=False)
            yield Static(WHY, classes="para dim", markup=False)
            yield OptionList(
                Option("Wait until the other window closes it", id="wait"),
                Option("Fork: carry on in a new session from its last completed turn", id="fork"),
                Option(self.cancel_label, id="cancel"),
            )
            yield Static("", id="waiting", markup=False)
            yield Static("Enter to confirm · Esc to cancel · Ctrl+C twice quits", id="hint", classes="dim", markup=False)

    def on_mount(self) -> None:
        self.query_one("#waiting").display = False
        options = self.query_one(OptionList)
        options.highlighted = 0
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        choice = event.option.id
        if choice == "wait":
            self.start_waiting()
        elif choice in ("fork", "cancel"):
            self.dismiss(choice)  # type: ignore[arg-type]

    # ----- the wait ------------------------------------------------------------------------------
    def start_waiting(self) -> None:
        self._since = self.clock()
        self.query_one(OptionList).display = False
        self.query_one("#waiting").display = True
        self.query_one("#hint", Static).update("Esc stops waiting · Ctrl+C twice quits")
        self._poll = self.set_interval(self.poll_every, self._check)
        self._check()

    def stop_waiting(self) -> None:
        if self._poll is not None:
            self._poll.stop()
            self._poll = None
        self.query_one("#waiting").display = False
        self.query_one("#hint", Static).update("Enter to confirm · Esc to cancel · Ctrl+C twice quits")
        options = self.query_one(OptionList)
        options.display = True
        options.focus()

    def _check(self) -> None:
        if self._poll is None:
            return
        transcript = self.busy.transcript
        if transcript is None or is_free(transcript):
            self.stop_waiting()
            self.dismiss("wait")
            return
        seconds = int(self.clock() - self._since)
        self.query_one("#waiting", Static).update(
            f"Waiting for {holder_words(self.busy.pid)} to close session {self.busy.session_id} · {seconds}s")

    def action_cancel(self) -> None:
        if self.waiting:
            self.stop_waiting()  # Esc ends the wait, not the question
            return
        self.dismiss("cancel")


def ask_when_busy(
    app: Any,
    busy: SessionBusy,
    open_with: Callable[[BusyPolicy], OpenedSession],
    opened: Callable[[OpenedSession], Awaitable[None] | None],
    cancelled: Callable[[], Awaitable[None] | None],
    *,
    cancel_label: str = NEW_SESSION,
) -> None:
    """Ask what to do about a busy session; then open it (`open_with`: after a wait, or forking) and hand the
    result to `opened`, or call `cancelled`. Taken again between the wait and the open: ask again."""

    async def answered(choice: BusyChoice | None) -> None:
        if choice == "cancel" or choice is None:
            await _call(cancelled)
            return
        try:
            result = open_with("fork" if choice == "fork" else "raise")
        except SessionBusy as again:
            ask_when_busy(app, again, open_with, opened, cancelled, cancel_label=cancel_label)
            return
        except (NoConversationFound, ValueError, OSError) as exc:  # gone meanwhile (deleted, moved)
            app.notify(str(exc), severity="error", markup=False)
            await _call(cancelled)
            return
        await _call(opened, result)

    app.push_screen(SessionBusyScreen(busy, cancel_label=cancel_label, clock=getattr(app, "clock", None)), answered)


async def _call(fn: Callable[..., Awaitable[None] | None], *args: Any) -> None:
    result = fn(*args)
    if result is not None:
        await result
