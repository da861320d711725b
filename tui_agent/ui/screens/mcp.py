"""MCP in the app: the approval dialog for a repository's servers, the `/mcp` panel, and their start.

Servers start in the background after the first frame (the app never waits); their tools join the next
request once connected. A project server (`.mcp.json`) nobody has answered for gets a dialog showing the
command it will run: use this one, all of this project, or none.
"""

from __future__ import annotations

import asyncio
from typing import Any

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ...core.mcp.disclosure import disclose
from ...core.mcp.events import ServerStatus

APPROVAL_CHOICES: tuple[tuple[str, str], ...] = (
    ("approve", "1. Use this MCP server"),
    ("approve_all", "2. Use this and all other MCP servers of this project"),
    ("reject", "3. Continue without using this MCP server"),
)
STATE_MARK = {"connected": "✓", "failed": "✗", "pending": "…", "needs-approval": "?", "disabled": "–"}


class McpApprovalScreen(ModalScreen[str]):
    """Asks whether a server from the repository's `.mcp.json` may run. Dismisses with the answer name."""

    CSS = """
    McpApprovalScreen { align: center middle; background: $background 50%; }
    McpApprovalScreen #panel {
        width: 100%; max-width: 100; height: auto; padding: 0 1;
        border: round $warning; border-title-color: $warning; background: $surface;
    }
    McpApprovalScreen #command { margin: 1 0; color: $text; }
    McpApprovalScreen .muted { color: $text-muted; }
    McpApprovalScreen OptionList { height: auto; border: none; background: $surface; }
    """
    BINDINGS = [
        Binding("1", "answer('approve')", show=False),
        Binding("2", "answer('approve_all')", show=False),
        Binding("3,escape", "answer('reject')", show=False),
    ]

    def __init__(self, server: Any) -> None:
        super().__init__()
        self.server = server

    def compose(self) -> ComposeResult:
        with Vertical(id="panel") as panel:
            panel.border_title = f"New MCP server found in .mcp.json: {self.server.name}"
            yield Static(Text(f"From {self.server.source}. It will be given:", style="dim"), classes="muted")
            yield Static(disclosure_text(self.server), id="command")
            yield Static(Text("MCP servers run programs on this machine and give the model new tools. Only use servers you trust."), classes="muted")
            yield OptionList(*(Option(label, id=name) for name, label in APPROVAL_CHOICES), id="choices")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(str(event.option.id))

    def action_answer(self, name: str) -> None:
        self.dismiss(name)


# How each row of core.mcp.disclosure reads in the dialog (short: the values need the width).
ROW_LABELS = {"command": "runs", "args": "args", "cwd": "folder", "env": "env", "url": "url", "header": "header", "error": "error"}


def disclosure_text(server: Any) -> Text:
    """Everything the server will receive, one row a line (label dim, value bold, `${VAR}` as written), then
    the variables it takes from the user's environment."""
    rows = disclose(server)
    listed = [r for r in rows if r.label in ROW_LABELS]
    width = max((len(ROW_LABELS[r.label]) for r in listed), default=0)
    text = Text()
    for row in listed:
        text.append(f"{ROW_LABELS[row.label]:<{width}}  ", style="dim")
        text.append(row.text + "\n", style="bold")
    for row in rows:
        if row.label == "inherits":
            text.append(f"It also inherits {row.text}.\n", style="dim italic")
        elif row.label == "takes":
            text.append("It takes from your environment: ", style="dim")
            text.append(row.text + "\n", style="bold yellow")
    text.rstrip()
    return text


def describe_status(s: ServerStatus) -> str:
    line = f"{STATE_MARK.get(s.status, '?')} {s.name}  {s.status}"
    if s.status == "connected":
        line += f" · {s.tools} tool{'s' if s.tools != 1 else ''}"
    line += f" · {s.scope} · {s.target}"
    if s.error:
        line += "\n    " + s.error.replace("\n", "\n    ")
    return line


class McpServersScreen(ModalScreen[None]):
    """`/mcp`: every server with its state, tool count and error; r reconnects, l reloads the configs."""

    CSS = """
    McpServersScreen { align: center middle; background: $background 50%; }
    McpServersScreen #panel {
        width: 100%; max-width: 110; height: auto; max-height: 90%; padding: 0 1;
        border: round $accent; border-title-color: $accent; border-subtitle-color: $text-muted; background: $surface;
    }
    McpServersScreen OptionList { height: auto; max-height: 24; border: none; background: $surface; }
    McpServersScreen .muted { color: $text-muted; }
    """
    BINDINGS = [
        Binding("r", "reconnect", "Reconnect"),
        Binding("l", "reload", "Reload configs"),
        Binding("escape,q", "close", "Close"),
    ]

    def __init__(self, manager: Any) -> None:
        super().__init__()
        self.manager = manager

    def compose(self) -> ComposeResult:
        with Vertical(id="panel") as panel:
            panel.border_title = "MCP servers"
            panel.border_subtitle = "r reconnect · l reload configs · esc close"
            yield OptionList(id="servers")
            yield Static("", id="message", classes="muted")

    def on_mount(self) -> None:
        self.refresh_list()
        self.query_one(OptionList).focus()
        # Servers connect in the background: the list follows their state while it is open.
        self.set_interval(0.5, self._follow)

    def _follow(self) -> None:
        statuses = self.manager.statuses()
        if statuses != getattr(self, "_shown", None):
            self._shown = statuses
            self.refresh_list()

    def refresh_list(self) -> None:
        servers = self.query_one(OptionList)
        highlighted = servers.highlighted
        servers.clear_options()
        statuses = self.manager.statuses()
        if not statuses:
            servers.add_option(Option(Text("No MCP servers configured. Add them to .mcp.json (see docs/mcp.md).", style="dim"), disabled=True))
        for s in statuses:
            servers.add_option(Option(Text(describe_status(s)), id=s.name))
        if statuses:
            servers.highlighted = min(highlighted or 0, len(statuses) - 1)

    def _selected(self) -> str | None:
        servers = self.query_one(OptionList)
        if servers.highlighted is None:
            return None
        option = servers.get_option_at_index(servers.highlighted)
        return option.id

    async def action_reconnect(self) -> None:
        name = self._selected()
        if name is None:
            return
        self.query_one("#message", Static).update(f"Reconnecting {name}…")
        self.run_worker(self._do(self.manager.reconnect(name)), exclusive=True)

    async def action_reload(self) -> None:
        self.query_one("#message", Static).update("Reloading the MCP configs…")
        self.run_worker(self._reload(), exclusive=True)

    async def _reload(self) -> None:
        await self._do(self.manager.reload())
        ask_pending(self.app, self.manager)

    async def _do(self, job: Any) -> None:
        message = await job
        self.query_one("#message", Static).update(message)
        self.refresh_list()

    def action_close(self) -> None:
        self.dismiss(None)


# ----- wiring into the app ------------------------------------------------------------------------


def start_mcp(app: App[Any]) -> None:
    """Start the approved servers in the background and ask about new project servers."""
    from ...core.mcp.setup import mcp_manager

    manager = mcp_manager(getattr(app, "agent", None))
    if manager is None:
        return
    manager.start_all()
    ask_pending(app, manager)
    stop = asyncio.Event()
    app.run_worker(manager.watch_configs(stop), group="mcp-watch", exit_on_error=False)


def ask_pending(app: App[Any], manager: Any) -> None:
    """Ask about every project server nobody has answered for (at start, and after a reload)."""
    asking = any(w.group == "mcp-approval" and not w.is_finished for w in app.workers)
    if manager.pending_approval() and not asking:  # a running asker picks up new ones itself
        app.run_worker(_ask_approvals(app, manager), group="mcp-approval", exit_on_error=False)


async def _ask_approvals(app: App[Any], manager: Any) -> None:
    while pending := manager.pending_approval():  # "all of this project" answers the rest at once
        answer = await app.push_screen_wait(McpApprovalScreen(pending[0]))
        manager.answer(pending[0], answer or "reject")


async def mcp_command(app: App[Any], arg: str) -> None:
    """`/mcp` opens the panel; `/mcp reconnect NAME` and `/mcp reload` act directly."""
    from ...core.mcp.setup import mcp_manager
    from ..commands import say, warn

    manager = mcp_manager(getattr(app, "agent", None))
    if manager is None:
        warn(app, "MCP is not available in this session.")
        return
    verb, _, name = arg.partition(" ")
    if verb == "reconnect" and name.strip():
        say(app, await manager.reconnect(name.strip()))
    elif verb == "reload":
        say(app, await manager.reload())
        ask_pending(app, manager)
    elif verb == "list" or not verb:
        if not verb:
            app.call_later(app.push_screen, McpServersScreen(manager))
        else:
            say(app, "\n".join(describe_status(s) for s in manager.statuses()) or "No MCP servers configured.")
    else:
        warn(app, "Usage: /mcp, /mcp list, /mcp reconnect NAME, /mcp reload")
