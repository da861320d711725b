"""What slash commands, Shift+Tab and the command palette need from the app they run in.

The app (ui/app.py `TuiAgentApp`) and the tests' stand-in (tests/ui/conftest_permission.py `CommandHarness`)
both implement `CommandHost`; tests/ui/test_commands_on_the_real_app.py checks each has every member listed
here, so a command can use its host directly: a missing member fails a test, never a command silently.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # the loop and the settings load after the first frame
    from textual.geometry import Size

    from ..config import AgentSettings
    from ..core.loop import Agent
    from .agent_runner import AgentRunner


class CommandHost(Protocol):
    """The app as the commands see it: its agent, its conversation view and status line, and the few
    Textual `App` members the commands call (both hosts are Apps, so those come with them)."""

    @property
    def agent(self) -> Agent:
        """The conversation's core."""
        ...

    @property
    def running(self) -> bool:
        """A run (or a /compact) is going: prompts queue, /clear waits."""
        ...

    @property
    def runner(self) -> AgentRunner | None:
        """The core's thread, where the agent's state is changed; None when the agent lives on the app's own
        loop (the tests' stand-in)."""
        ...

    @property
    def settings(self) -> AgentSettings:
        """The session's settings (its folder: /resume, /memory)."""
        ...

    def show_notice(self, text: str) -> None:
        """A command's output, shown in the conversation."""
        ...

    def clear_conversation(self) -> None:
        """Empty what the conversation shows (the agent's history is emptied by /clear itself)."""
        ...

    def refresh_status(self) -> None:
        """Show the agent's model and permission mode in the status line again."""
        ...

    def start_compaction(self, instructions: str) -> None:
        """/compact, shown like a run."""
        ...

    def submit(self, text: str) -> None:
        """Send a prompt as if typed (/init)."""
        ...

    def use_session(self, opened: Any) -> None:
        """Carry on in another session (/resume)."""
        ...

    # ----- Textual's App ----------------------------------------------------------------------------
    @property
    def size(self) -> Size: ...

    def notify(self, message: str, *, title: str = "", severity: Any = "information", timeout: float | None = None,
               markup: bool = True) -> None: ...

    def call_later(self, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> bool: ...

    def push_screen(self, screen: Any, callback: Any = None, wait_for_dismiss: bool = False) -> Any: ...

    async def run_action(self, action: str) -> bool: ...

