"""The full-screen app: conversation, tool lanes, prompt and status line around one Agent.

The core runs on a thread of its own with its own event loop (agent_runner.AgentRunner), so no
synchronous step of it delays a keystroke or a frame. Its events arrive in batches
(messages.EventBatcher) and are applied in order: to the tool-call state, the transcript (through
Conversation) and the lane panel; streamed text only lands in a buffer that the transcript draws on
its own timer, so the UI stays responsive however fast the model writes.
"""

from __future__ import annotations

import os
import time  # noqa: E402
from concurrent.futures import Future  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import TYPE_CHECKING, Any, Callable  # noqa: E402

from textual import events, on  # noqa: E402
from textual.app import App, ComposeResult  # noqa: E402
from textual.binding import Binding  # noqa: E402
from textual.screen import ModalScreen  # noqa: E402
from textual.widgets import Static  # noqa: E402

from ..core.events import (  # noqa: E402
    ContextUpdated,
    LoopEnded,
    RunStarted,
    UsageUpdated,
)
from ..core.mcp.events import McpServersChanged, status_summary  # noqa: E402
from ..raw_settings import RawSettings  # noqa: E402
from .agent_runner import AgentRunner  # noqa: E402
from .context_view import report_context_size, show_context, toggle_thinking  # noqa: E402
from .messages import AgentEvents, EventBatcher, TerminalSignal  # noqa: E402
from .widgets.agent_lanes import SUBAGENT_EVENTS, apply_subagent_event  # noqa: E402
from .widgets.conversation import Conversation  # noqa: E402
from .widgets.hook_lanes import HOOK_EVENTS_DRAWN, apply_hook_event  # noqa: E402
from .widgets.lanes import LanePanel  # noqa: E402
from .notify import app_notifier  # noqa: E402
from .parsed_styles import ParsedOnceStylesheet  # noqa: E402
from .prompt_runs import start_run  # noqa: E402
from .widgets.prompt import PromptInput  # noqa: E402
from .widgets.status import StatusLine  # noqa: E402
from .widgets.todo_panel import TodoPanel  # noqa: E402
from .widgets.tool_calls import ToolCalls  # noqa: E402
from .widgets.transcript import Transcript  # noqa: E402

STYLES_DIR = Path(__file__).parent / "styles"
STYLE_FILES = ("app.tcss", "transcript.tcss", "lanes.tcss")
CTRL_C_WINDOW_S = 2.0
QUIT_GRACE_S = 3.0
KEY_HELP = "enter send · shift+enter/ctrl+j new line · esc interrupt · tab focus · ctrl+t tools panel · alt+t thinking"

if TYPE_CHECKING:  # the loop, its tools and the factory load after the first frame
    from ..config import AgentSettings
    from ..core.loop import Agent

Clock = Callable[[], float]


def _slash_commands_provider() -> Any:
    # Imported when the palette opens, not on the way to the first frame.
    from .commands import SlashCommandsProvider

    return SlashCommandsProvider


class TuiAgentApp(App[int]):
    TITLE = "tui-agent"
    # Only ours: Textual's system commands (Keys, Maximize, Screenshot, Theme, "Quit the application as soon as
    # possible") are not tui-agent's, and /exit, /help already say what they would.
    COMMANDS = {_slash_commands_provider}
    CSS_PATH = [STYLES_DIR / name for name in STYLE_FILES]
    BINDINGS = [
        Binding("escape", "escape", "interrupt", priority=True, show=False),
        Binding("ctrl+c", "ctrl_c", "quit", priority=True, show=False),
        Binding("ctrl+q", "quit", "quit", priority=True, show=False),
        Binding("ctrl+t", "toggle_lanes", "tools panel", priority=True, show=False),
        Binding("shift+tab", "cycle_mode", "permission mode", priority=True, show=False),
        Binding("alt+t", "toggle_thinking", "thinking", priority=True, show=False),
        Binding("ctrl+f", "find", "find", priority=True, show=False),
        Binding("ctrl+o", "toggle_class('#todos', '-collapsed')", "todo list", priority=True, show=False),
    ]

    def __init__(
        self,
        settings: "AgentSettings | RawSettings",
        *,
        scripted: Any = None,
        clock: Clock = time.monotonic,
        initial_prompt: str | None = None,
        opened: Any = None,
    ) -> None:
        super().__init__()
        self.stylesheet = ParsedOnceStylesheet.replacing(self.stylesheet)  # a dialog's first push parses no CSS again
        self._opened = opened
        self.requested = settings
        """What the first frame shows (model, mode, folder); `settings` is the validated whole."""
        self._settings: AgentSettings | None = None if isinstance(settings, RawSettings) else settings
        self.start_error = ""
        self.clock = clock
        self.batcher = EventBatcher(self.post_message)
        self.calls = ToolCalls()
        self.queued_prompts: list[str] = []
        self.running = False
        self.show_lanes = True
        self._scripted = scripted
        self.runner = AgentRunner()
        self._run: Future[Any] | None = None
        self._ctrl_c_at: float | None = None
        self._initial_prompt = initial_prompt
        self.notifier = app_notifier(self)

    def get_driver_class(self) -> Any:
        # In a real terminal on Linux/macOS: Textual's driver with an input loop that delivers a lone
        # ESC within the escape delay, 10 ms unless ESCDELAY says (ui/driver.py). TEXTUAL_DRIVER and
        # Windows keep Textual's choice.
        from textual import constants

        if constants.DRIVER is not None or os.name == "nt":
            return super().get_driver_class()
        from .driver import EscapeAwareDriver

        return EscapeAwareDriver

    @property
    def settings(self) -> "AgentSettings":
        """The validated settings (validated on first use: right after the first frame)."""
        if self._settings is None:
            assert isinstance(self.requested, RawSettings)
            self._settings = self.requested.validate()
        return self._settings

    agent: Agent
    """The conversation's core; built right after the first frame (`ready` tells when)."""
    asker: Any
    """The agent's ask handler: the permission dialog."""
    ready = False
    freeze_after_start = False
    """Freeze start-up's objects out of the garbage collector's scans (warm_up.py); the real app only."""
    css_cache: Any = None
    """The parsed stylesheets kept from the last start (css_cache.py); the real app only."""
    shell: Any = None
    """The `!` shell command running now, if any."""
    status_lines: Any = None
    """The settings' `statusLine` command (ui/status_line.StatusCommand), once the agent is ready."""

    # ----- layout -------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        self.transcript = Transcript(id="transcript")
        self.conversation = Conversation(self.transcript)
        self.lanes = LanePanel(self.calls, self.clock, id="lanes")
        self.queued_view = Static(id="queued", markup=False)
        self.prompt = PromptInput(on_keypress=self._note_keypress, id="prompt")
        self.status = StatusLine(self.clock, id="status")
        self.status_command = Static(id="status-command", markup=False)  # settings' statusLine (ui/status_line.py)
        self.transcript.on_flush = self.status.tick
        yield self.transcript
        yield self.lanes
        yield TodoPanel(id="todos")
        yield self.queued_view
        yield self.prompt
        yield self.status_command
        yield self.status

    def on_mount(self) -> None:
        state = self.status.state
        # What the factory will choose, so the first frame already says it (the agent comes next).
        first = self.requested
        state.model = first.model
        state.demo = self._scripted is None and (first.demo or not first.has_endpoint)
        state.mode = first.permission_mode or "default"
        self._update_lanes_display()
        self.queued_view.display = False
        self.status_command.display = False
        self.conversation.notice("info", f"tui-agent in {first.cwd}\n{KEY_HELP}")
        # Focused now, not by `focus()`'s callback: that would queue behind the keys typed during start-up,
        # which would reach the screen instead and be lost.
        self.screen.set_focus(self.prompt)
        if self._initial_prompt:
            self.submit(self._initial_prompt)
        from .start_up import after_first_frame

        self.call_after_refresh(after_first_frame, self)

    def use_session(self, opened: Any) -> None:
        """Carry on in `opened` (the picker's choice, /resume): a new agent on that session."""
        from .start_up import build_agent

        self._opened = opened
        self.ready = False
        build_agent(self)

    def start_queued(self) -> None:
        """The agent is ready: send the first prompt that waited for it."""
        if self.queued_prompts:
            self._start_run(self.queued_prompts.pop(0))
            self._show_queue()

    def _note_keypress(self) -> None:
        if self.ready:
            self.asker.note_keypress()

    def on_app_focus(self) -> None:
        self.notifier.set_focus(True)  # the terminal reports focus (CSI ? 1004): no need to notify

    def on_app_blur(self) -> None:
        self.notifier.set_focus(False)

    def on_text_selected(self, event: events.TextSelected) -> None:
        from .selection import copy_selection

        copy_selection(self)  # a mouse selection is copied when the button is released (OSC 52)

    def on_resize(self) -> None:
        # Short terminals keep room for the conversation: fewer lane rows.
        self.lanes.max_rows = max(2, min(10, (self.size.height - 12) // 2))

    def show_notice(self, text: str) -> None:
        """A line in the conversation that is not part of it (slash commands' output)."""
        self.conversation.notice("info", text, now=True)

    def clear_conversation(self) -> None:
        """Empty the pane and the lanes (after /clear emptied the agent's history)."""
        self.transcript.truncate(0)
        self.calls.clear()
        self._update_lanes_display()
        if self.ready:
            report_context_size(self)  # the meter starts over with the history

    def refresh_status(self) -> None:
        """Show the current model and permission mode (and anything else the status line reads from the agent)."""
        if self.ready:
            self.status.state.model = self.agent.model.config.model
            self.status.state.mode = str(getattr(self.agent.policy, "mode", "default"))
            if self.status_lines is None:  # loaded once the agent exists: after the folder-trust question
                from .status_line import StatusCommand

                self.status_lines = StatusCommand(self)
            self.status_lines.changed()
        self.status.refresh()

    # ----- prompts ------------------------------------------------------------------------------
    @on(PromptInput.Submitted)
    def _on_prompt(self, message: PromptInput.Submitted) -> None:
        self.submit(("!" + message.text) if message.mode == "bash" else message.text)

    def submit(self, text: str) -> None:
        """Send a prompt now, queue it while a run is going, or run it as a slash command."""
        from .commands import is_command_text

        self.transcript.follow()  # what it shows next must be in view, wherever the user had scrolled

        if is_command_text(text):
            self.run_worker(self._run_command(text), exclusive=False, exit_on_error=False)
        elif text.startswith("#") and text[1:].strip() and self.ready:
            from .session_view import remember  # `# always use uv`: a line for CLAUDE.md

            remember(self, text[1:])
        elif self.running or not self.ready:
            self.queued_prompts.append(text)
            self._show_queue()
        else:
            self._start_run(text)

    def _start_run(self, text: str) -> None:
        self.running = True
        self.conversation.user_prompt(text)
        self.status.run_started()
        run = self._run = start_run(self, text)
        run.add_done_callback(lambda done: self.call_later(self._run_done, done))

    def start_compaction(self, instructions: str) -> None:
        """/compact, shown like a run (the status timer, ESC to stop); prompts queue behind it."""
        self.running = True
        self.status.run_started()
        self.runner.compact(instructions).add_done_callback(lambda done: self.call_later(self._run_ended))

    async def _run_command(self, text: str) -> None:
        from .commands import run_command  # handles unknown commands itself

        await run_command(self, text)

    def _show_queue(self) -> None:
        self.queued_view.update("\n".join(f"⏵ queued: {p.splitlines()[0]}" for p in self.queued_prompts))
        self.queued_view.display = bool(self.queued_prompts)

    def _run_done(self, run: Future[Any]) -> None:
        # A run that crashed never sends LoopEnded: end it here so the prompt works again.
        if run is self._run and not run.cancelled() and run.exception() is not None:
            self.conversation.notice("error", f"The run failed: {run.exception()}", now=True)
            self._run_ended()

    # ----- core events --------------------------------------------------------------------------
    def on_agent_events(self, message: AgentEvents) -> None:
        now = self.clock()
        lanes_changed = False
        for event in self.batcher.take(message):
            if isinstance(event, SUBAGENT_EVENTS):  # a subagent's: its lane group and its cell, not the conversation
                lanes_changed = apply_subagent_event(self.calls, event, now) or lanes_changed
                continue
            if isinstance(event, HOOK_EVENTS_DRAWN):  # a settings hook running: a row in the lanes, not a cell
                lanes_changed = apply_hook_event(self.calls, event) or lanes_changed
                continue
            if isinstance(event, RunStarted):
                self.calls.clear()
                self.lanes.start_run(now)
                self.status.state.model = event.model
                lanes_changed = True
            elif isinstance(event, McpServersChanged):
                self.status.state.mcp = status_summary(event.servers)
                self.status.refresh()
            elif isinstance(event, ContextUpdated):
                show_context(self.status, event)
            elif isinstance(event, UsageUpdated):
                state = self.status.state
                state.input_tokens, state.output_tokens = event.total_input_tokens, event.total_output_tokens
                state.cost_usd = event.total_cost_usd
                self.status.refresh()
            # The calls and the transcript: the same path a resumed conversation is replayed through.
            lanes_changed = self.conversation.apply(self.calls, event, now) or lanes_changed
            self.notifier.on_event(event)
            if self.status_lines is not None:
                self.status_lines.note(event)
            if isinstance(event, LoopEnded):
                self._run_ended()
        if lanes_changed:
            self._update_lanes_display()

    def _run_ended(self) -> None:
        self.running = False
        self._run = None
        self.status.run_ended()
        self._update_lanes_display()
        if self.queued_prompts:
            text = self.queued_prompts.pop(0)
            self._show_queue()
            self._start_run(text)

    def _update_lanes_display(self) -> None:
        self.lanes.display = self.show_lanes and bool(self.calls.calls)
        self.lanes.sync()

    # ----- keys ---------------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # A dialog handles its own ESC (deny); the app's priority binding must not take it.
        if action == "escape" and isinstance(self.screen, ModalScreen):
            return False
        return True

    def action_escape(self) -> None:
        """Close the topmost layer: an expanded cell, else stop the run, else back to the prompt."""
        from .find import close_find

        if close_find(self):  # the find bar (ui/find.py)
            return
        if self.focused is self.transcript and self.transcript.collapse_selected():
            return
        if self.focused is self.prompt and self.prompt.close_layer():
            return
        from .rewind import escape_pressed  # Esc Esc on an empty prompt: the rewind picker (ui/rewind.py)
        if escape_pressed(self):
            return
        if self.running:
            self.interrupt()
        elif self.focused is not self.prompt:
            self.prompt.focus()

    def interrupt(self) -> None:
        """Stop everything in flight; show it at once (the core confirms with its own events)."""
        if not self.running or not self.ready:
            return
        from ..tools.processes import stop_foreground_now
        from .paint_now import paint_now

        self.asker.cancel_all()
        self.runner.abort()
        if self.shell is not None:  # a `!` command
            self.runner.call(self.shell.abort)
        stop_foreground_now()  # after the abort is on its way: the tools report the interruption
        self.calls.mark_cancelled(self.clock())
        self.conversation.refresh_cells()
        self.conversation.interrupted()
        paint_now(self)  # now, not at Textual's next update tick
        self._update_lanes_display()
        if self.queued_prompts:
            # Like Claude Code: what was queued goes back to the prompt, not to the model.
            queued = "\n".join(self.queued_prompts)
            self.queued_prompts.clear()
            self._show_queue()
            self.prompt.text = (queued + "\n" + self.prompt.text).strip("\n")
        self.prompt.focus()

    async def action_ctrl_c(self) -> None:
        from .quitting import ctrl_c  # once: interrupt; twice within CTRL_C_WINDOW_S: quit

        await ctrl_c(self, CTRL_C_WINDOW_S)

    async def action_quit(self, code: int = 0) -> None:
        from .quitting import quit_app  # stop the run, wait (briefly) for its processes, close the session, exit

        await quit_app(self, code, QUIT_GRACE_S)

    @on(TerminalSignal)
    async def _on_terminal_signal(self, message: TerminalSignal) -> None:
        from .quitting import quit_on_signal  # the terminal closed (SIGHUP) or SIGTERM

        await quit_on_signal(self, message.signum)

    async def on_unmount(self) -> None:
        # Whatever still runs on the core's thread (the app closed without /quit) is cancelled: its
        # tools' processes die, and the thread ends.
        if self.status_lines is not None:
            self.status_lines.stop()
        await self.runner.shutdown(QUIT_GRACE_S)
        if self._opened is not None:  # ended without /quit: the session is closed all the same (its lock freed)
            self._opened.session.close()

    def action_cycle_mode(self) -> None:
        from .commands import cycle_mode

        cycle_mode(self)

    def action_find(self) -> None:
        from .find import open_find

        open_find(self)

    def action_toggle_thinking(self) -> None:
        toggle_thinking(self)

    def action_toggle_lanes(self) -> None:
        self.show_lanes = not self.show_lanes
        self._update_lanes_display()

    @on(LanePanel.CancelRequested)
    def _on_cancel_tool(self, message: LanePanel.CancelRequested) -> None:
        from ..core.agents.runner import cancel_anywhere  # a subagent's own call, or the main agent's

        agent = self.runner.agent
        if agent is not None:
            self.runner.call(cancel_anywhere, agent, message.tool_use_id)


def make_app(
    settings: "AgentSettings | RawSettings",
    *,
    scripted: Any = None,
    clock: Clock = time.monotonic,
    initial_prompt: str | None = None,
    opened: Any = None,
) -> TuiAgentApp:
    """The app, with its agent built; tests pass a ScriptedModel and a fixed clock. `opened` is the
    session the command line chose (resume, continue, fork); by default the settings' flags choose.
    Raw settings are validated right after the first frame."""
    return TuiAgentApp(settings, scripted=scripted, clock=clock, initial_prompt=initial_prompt, opened=opened)


def run_app(settings: "AgentSettings | RawSettings", initial_prompt: str | None = None, opened: Any = None) -> int:
    from .start_up import run_in_terminal

    return run_in_terminal(make_app(settings, initial_prompt=initial_prompt, opened=opened))
