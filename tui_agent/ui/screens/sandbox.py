"""`/sandbox`: the OS sandbox's state (on or off and why, auto-allow, what commands may write, read and reach)
and the session switch: on, off, or back to what the settings say (core/sandbox/session.py `Sandbox`).

The state is read on the core's thread (the policy it merges is the one the running tools use); the lines are
plain text, shown without markup, so a path or a domain from a settings file is drawn as it is written.
"""

from __future__ import annotations

import asyncio
from typing import Any, Callable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from ..commands import say, warn

SWITCHES: dict[str, bool | None] = {"on": True, "off": False, "settings": None, "default": None, "reset": None}
"""`/sandbox ARG`: what each word sets for the session (None: as the settings say)."""
HINT = "e on · d off · s as settings · esc close"


def sandbox_of(app: Any) -> Any:
    agent = getattr(app, "agent", None)
    return None if agent is None else agent.context.services.get("sandbox")


async def on_core(app: Any, work: Callable[[], Any]) -> Any:
    """`work()` on the core's thread when the app has one (the tools read the same policy there), else here."""
    runner = app.runner
    if runner is None:  # the agent lives on the app's own loop (the tests' stand-in host)
        return work()

    async def call() -> Any:
        return work()

    return await asyncio.wrap_future(runner.submit(call()))


def headline(state: Any) -> str:
    """One line: is it on, and what decides it."""
    by = "for this session" if state.switched else "by the settings"
    when_on = "Below: what a command inside may do once it is on."
    if not state.enabled:
        return f"Sandbox: off ({by}). Commands run as you, unsandboxed. {when_on}"
    if not state.available:
        return (f"Sandbox: enabled ({by}) but it cannot start: {state.why_not}. Commands run unsandboxed, and every "
                f"command that needs permission asks. {when_on}")
    return f"Sandbox: on ({by}). Bash and background shells run inside bubblewrap."


def state_lines(state: Any) -> list[tuple[str, str]]:
    """(label, value) rows of what `/sandbox` shows."""

    workspace = state.writable[0] if state.writable else None

    def short(path: str) -> str:  # paths inside the workspace as ./x: the lists stay readable at 80 columns
        return "./" + path[len(workspace) + 1:] if workspace and path.startswith(workspace + "/") else path

    def listed(items: tuple[str, ...], empty: str = "none") -> str:
        return ", ".join(map(short, items)) if items else empty

    if state.auto_allow and state.active:
        auto = "yes: a sandboxed command runs without asking (deny and ask rules still apply)"
    elif state.auto_allow:
        auto = "set, but off while the sandbox is not running: commands ask as usual"
    else:
        auto = "no: commands ask as without a sandbox"
    if state.allowed_domains:
        network = f"only {listed(state.allowed_domains)} (HTTP(S) through the filtering proxy)"
    else:
        network = "none"
    rows = [
        ("Auto-allow", auto),
        ("Writable", ", ".join([f"{workspace} (./)", *state.writable[1:]]) if workspace else "none"),
        ("Never writable", listed(state.deny_write)),
        ("Unreadable", listed(state.deny_read)),
        ("Readable again", listed(state.allow_read)),
        ("Network", network),
        ("Denied domains", listed(state.denied_domains)),
        ("Excluded commands", listed(state.excluded_commands) + " (run unsandboxed, and ask)" if state.excluded_commands else "none"),
        ("Opt-out", "allowed: a command the model marks dangerouslyDisableSandbox runs outside, and asks"
         if state.allow_unsandboxed else "refused: every command runs inside"),
    ]
    return rows


def describe(state: Any) -> str:
    rows = state_lines(state)
    width = max(len(label) for label, _ in rows)
    return "\n".join([headline(state), *(f"  {label:<{width}}  {value}" for label, value in rows)])


async def sandbox_command(app: Any, arg: str) -> None:
    sandbox = sandbox_of(app)
    if sandbox is None:
        warn(app, "There is no sandbox in this session.")
        return
    word = arg.strip().lower()
    if word and word not in SWITCHES:
        warn(app, "Usage: /sandbox [on|off|settings]")
        return
    if word:
        state = await on_core(app, lambda: sandbox.set_enabled(SWITCHES[word]))
        say(app, describe(state))
        return
    state = await on_core(app, sandbox.state)
    # Pushed from the app's own message loop: run_command may be awaited from any task.
    app.call_later(app.push_screen, SandboxScreen(sandbox, state))


class SandboxScreen(ModalScreen[None]):
    """The sandbox's state; e / d / s switch it for the session (on / off / as the settings say)."""

    CSS = """
    SandboxScreen {
        align: center middle;
        background: $background 50%;
    }
    SandboxScreen #panel {
        width: 100%;
        max-width: 110;
        height: auto;
        max-height: 90%;
        padding: 0 1;
        border: round $accent;
        border-title-color: $accent;
        border-subtitle-color: $text-muted;
        background: $surface;
    }
    SandboxScreen #headline {
        text-style: bold;
        margin: 1 0;
    }
    SandboxScreen #rows {
        height: auto;
        max-height: 24;
    }
    SandboxScreen .row {
        height: auto;
    }
    SandboxScreen .label {
        width: 19;
        color: $text-muted;
    }
    SandboxScreen .value {
        width: 1fr;
    }
    """

    BINDINGS = [
        Binding("e", "switch('on')", "On"),
        Binding("d", "switch('off')", "Off"),
        Binding("s", "switch('settings')", "As settings"),
        Binding("escape,q", "close", "Close"),
    ]

    def __init__(self, sandbox: Any, state: Any) -> None:
        super().__init__()
        self.sandbox = sandbox
        self.state = state

    def compose(self) -> ComposeResult:
        with Vertical(id="panel") as panel:
            panel.border_title = "Sandbox"
            panel.border_subtitle = HINT
            yield Static(id="headline", markup=False)
            with VerticalScroll(id="rows"):  # focused: ↑↓ and page keys scroll a long list
                for i, (label, _) in enumerate(state_lines(self.state)):  # the same labels for every state
                    with Horizontal(classes="row"):
                        yield Static(Content(label), classes="label")
                        yield Static(id=f"value-{i}", classes="value", markup=False)

    def on_mount(self) -> None:
        self._show()
        self.query_one("#rows").focus()

    def _show(self) -> None:
        self.query_one("#headline", Static).update(Content(headline(self.state)))
        for i, (_, value) in enumerate(state_lines(self.state)):
            self.query_one(f"#value-{i}", Static).update(Content(value))

    async def action_switch(self, word: str) -> None:
        self.state = await on_core(self.app, lambda: self.sandbox.set_enabled(SWITCHES[word]))
        self._show()
        said = {"on": "on for this session", "off": "off for this session", "settings": "as the settings say"}[word]
        self.notify(f"Sandbox {said}", markup=False)

    def action_close(self) -> None:
        self.dismiss(None)
