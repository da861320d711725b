"""Slash commands (`/help`, `/clear`, …), their command-palette provider, and Shift+Tab's mode cycling.

Commands act on `app.agent` (the core's Agent) and on the app through `CommandHost` (host.py): every member
they use is one every host has (a test checks it), so none is looked up and skipped when missing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Awaitable, Callable, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

from ..core.commands import CustomCommand, load_commands
from ..core.permission_types import PERMISSION_MODES
from ..core.pricing import format_cost
from ..tools.base import FileReadState
from .host import CommandHost
from .screens.permissions_list import PermissionsScreen

# Shift+Tab's cycle; bypassPermissions joins it only when the session started in it (as in Claude Code).
MODE_CYCLE: tuple[str, ...] = ("default", "acceptEdits", "plan")


@dataclass(frozen=True, slots=True)
class SlashCommand:
    name: str
    usage: str
    help: str
    run: Callable[[CommandHost, str], Awaitable[None]]
    aliases: tuple[str, ...] = ()


def say(app: CommandHost, text: str) -> None:
    """Show a command's output in the conversation."""
    app.show_notice(text)


def warn(app: CommandHost, text: str) -> None:
    app.notify(text, severity="warning", markup=False)


# ----- modes ----------------------------------------------------------------------------------


def cycle_mode(app: CommandHost) -> str:
    """Shift+Tab: the next permission mode, used by the policy from the next decision on."""
    policy = app.agent.policy
    cycle = getattr(policy, "cycle_mode", None)
    if callable(cycle):
        mode = str(cycle())
    else:
        current = policy.mode
        mode = MODE_CYCLE[(MODE_CYCLE.index(current) + 1) % len(MODE_CYCLE)] if current in MODE_CYCLE else "default"
        policy.mode = mode
    app.refresh_status()
    return mode


async def _mode(app: CommandHost, arg: str) -> None:
    policy = app.agent.policy
    if not arg:
        say(app, f"Permission mode: {policy.mode} (one of {', '.join(PERMISSION_MODES)}; Shift+Tab cycles)")
        return
    wanted = next((m for m in PERMISSION_MODES if m.lower() == arg.lower()), None)
    if wanted is None:
        warn(app, f"Unknown mode {arg!r}: choose one of {', '.join(PERMISSION_MODES)}.")
        return
    if wanted == "bypassPermissions" and policy.mode != wanted:
        # Skipping every check must be an explicit choice at start, never a command typed mid-session.
        warn(app, "bypassPermissions can only be chosen at start: --permission-mode bypassPermissions.")
        return
    policy.mode = wanted
    app.refresh_status()
    say(app, f"Permission mode: {wanted}")


# ----- the commands ---------------------------------------------------------------------------


async def _help(app: CommandHost, arg: str) -> None:
    from .help_text import help_text

    rows = [(c.usage, c.help) for c in COMMANDS] + list(custom_usages().items())  # + .claude/commands and skills
    say(app, help_text(rows, conversation_width(app)))


def conversation_width(app: CommandHost) -> int:
    """The cells a notice's text has: the app's width less the cell's indent and the scrollbar."""
    return max(40, app.size.width - 6)


async def _clear(app: CommandHost, arg: str) -> None:
    agent = app.agent
    if agent.running:
        warn(app, "The agent is working: wait for it or press Esc before /clear.")
        return
    agent.history.clear()
    agent.session.start_over()
    from ..core.hook_points import cleared  # (not on the first frame's import path)

    cleared(agent)  # SessionEnd / SessionStart hooks with "clear", at the next prompt
    # A new conversation has read nothing: edits must read their file again first.
    agent.context.read_state = FileReadState()
    from .todos import forget_todos

    forget_todos(app)  # and no todo list (the panel, TodoWrite's next oldTodos)
    app.clear_conversation()
    say(app, "Conversation cleared: the next prompt starts a new history.")


async def _compact(app: CommandHost, arg: str) -> None:
    if app.running or app.agent.running:
        warn(app, "The agent is working: wait for it or press Esc before /compact.")
        return
    app.start_compaction(arg)  # the app shows it as a run: a timer, and ESC stops it


async def _model(app: CommandHost, arg: str) -> None:
    config = app.agent.model.config
    if arg:
        config.model = arg
        app.refresh_status()
        say(app, f"Model: {arg} (from the next request on)")
    else:
        say(app, f"Model: {config.model}")


def _money(value: float | None) -> str:
    return "unknown (no price for this model)" if value is None else format_cost(value)


async def _cost(app: CommandHost, arg: str) -> None:
    t = app.agent.totals
    lines = [
        f"Total cost: {_money(t.cost_usd)}",
        f"Tokens: {t.input_tokens:,} in · {t.output_tokens:,} out · "
        f"{t.cache_read_input_tokens:,} cache read · {t.cache_creation_input_tokens:,} cache write",
    ]
    lines += [f"  {model}: {_money(cost)}" for model, cost in sorted(t.cost_by_model.items())]
    say(app, "\n".join(lines))


async def _context(app: CommandHost, arg: str) -> None:
    from .context_view import context_command

    await context_command(app, arg)


async def _permissions(app: CommandHost, arg: str) -> None:
    # Pushed from the app's own message loop: run_command may be awaited from any task.
    app.call_later(app.push_screen, PermissionsScreen(app.agent.policy))


async def _mcp(app: CommandHost, arg: str) -> None:
    from .screens.mcp import mcp_command

    await mcp_command(app, arg)


async def _sandbox(app: CommandHost, arg: str) -> None:
    from .screens.sandbox import sandbox_command

    await sandbox_command(app, arg)


async def _export(app: CommandHost, arg: str) -> None:
    from .export import export_command

    await export_command(app, arg)


async def _agents(app: CommandHost, arg: str) -> None:
    from ..core.agents.definitions import describe_catalog

    host = app.agent.context.services.get("subagents")
    if host is None:
        warn(app, "Subagents are not available in this session.")
        return
    say(app, describe_catalog(host.catalog))


async def _output_style(app: CommandHost, arg: str) -> None:
    from ..core.output_styles import DEFAULT_STYLE, current_style_name, save_choice, select_style, styles_for

    agent = app.agent
    if not arg:  # the list, the current one marked
        current = current_style_name(agent)
        rows = [(DEFAULT_STYLE, "the plain system prompt")] + [(s.name, s.description) for s in styles_for(agent.policy).values()]
        lines = [f"{'●' if name == current else ' '} {name} — {description}" for name, description in rows]
        say(app, "Output styles (/output-style NAME to switch):\n" + "\n".join(lines))
        return
    try:
        style = select_style(agent, arg)
    except KeyError:
        warn(app, f"No output style {arg!r}. Type /output-style for the list.")
        return
    name = style.name if style else DEFAULT_STYLE
    try:  # kept for the next sessions where Claude Code keeps it
        where = f"saved to {save_choice(agent.policy, name)}"
    except (OSError, ValueError) as exc:
        where = f"for this session only: {exc}"
    app.refresh_status()
    say(app, f"Output style: {name} (from the next request on; {where})")


async def _quit(app: CommandHost, arg: str) -> None:
    # The app's own quit action, so whatever cleanup it does on quit runs.
    await app.run_action("quit")


async def _resume(app: CommandHost, arg: str) -> None:
    from .session_view import pick_in_app, switch_session

    if arg:
        await switch_session(app, arg)
    else:
        await pick_in_app(app)


async def _rename(app: CommandHost, arg: str) -> None:
    if not arg:
        warn(app, "Usage: /rename NAME")
        return
    runner = app.runner
    if runner is not None:  # the transcript is written on the core's thread
        runner.call(app.agent.session.set_name, arg)
    else:
        app.agent.session.set_name(arg)
    say(app, f"Session renamed: {arg} (tui-agent -r {arg!r} resumes it)")


async def _memory(app: CommandHost, arg: str) -> None:
    from .session_view import open_memory_file

    await open_memory_file(app, arg)


async def _rewind(app: CommandHost, arg: str) -> None:
    from .rewind import open_rewind

    app.call_later(open_rewind, app)  # pushed from the app's own message loop, as /permissions


async def _init(app: CommandHost, arg: str) -> None:
    from .session_view import INIT_PROMPT

    app.submit(INIT_PROMPT + (f"\n\nAlso: {arg}" if arg else ""))


COMMANDS: tuple[SlashCommand, ...] = (
    SlashCommand("help", "/help", "list the commands", _help),
    SlashCommand("clear", "/clear", "clear the conversation (a new history)", _clear),
    SlashCommand("compact", "/compact [instructions]", "summarise the conversation to free context (instructions: what to keep)", _compact),
    SlashCommand("model", "/model [name]", "show or switch the model", _model),
    SlashCommand("cost", "/cost", "tokens and cost of this session, per model", _cost),
    SlashCommand("context", "/context", "what fills the context: system, tools, memory, messages, results", _context),
    SlashCommand("mode", "/mode [name]", "show or set the permission mode", _mode),
    SlashCommand("permissions", "/permissions", "the rules in force; revoke this session's grants", _permissions),
    SlashCommand("sandbox", "/sandbox [on|off|settings]", "the OS sandbox for commands: state; switch it for this session", _sandbox),
    SlashCommand("mcp", "/mcp [list|reload|reconnect NAME]", "MCP servers: state, tools, errors; reconnect or reload", _mcp),
    SlashCommand("agents", "/agents", "the subagent types the Agent tool can start", _agents),
    SlashCommand("resume", "/resume [id or name]", "resume another session (a picker without an argument)", _resume),
    SlashCommand("rewind", "/rewind", "restore the code and/or conversation to before an earlier prompt (Esc Esc)", _rewind),
    SlashCommand("rename", "/rename NAME", "name this session", _rename),
    SlashCommand("memory", "/memory [N|project|user]", "the memory files read; open one in $EDITOR", _memory),
    SlashCommand("init", "/init", "ask the agent to write or improve CLAUDE.md", _init),
    SlashCommand("output-style", "/output-style [name]", "list the output styles, or switch to one (kept in .claude/settings.local.json)", _output_style),
    SlashCommand("export", "/export [file]", "write the conversation as Markdown (a dated name without a file)", _export),
    SlashCommand("quit", "/quit", "leave tui-agent", _quit, aliases=("exit",)),
)


# `/name` or `/name args`: a name is a word (letters, digits, `-`, `_`, `:`). A path such as `/usr/bin/python`
# is not command-shaped, so a prompt that starts with one goes to the model (as in Claude Code).
_COMMAND_SHAPE = re.compile(r"/(?:[A-Za-z][\w:-]*)?(?=\s|$)")


def is_command_text(text: str) -> bool:
    """Whether a submitted prompt is a slash command (known or not) rather than text for the model. A custom
    command or skill (core/commands) is text for the model: run_prompt expands it."""
    return _COMMAND_SHAPE.match(text.strip()) is not None and custom_command_of(text) is None


def find_command(name: str) -> SlashCommand | None:
    name = name.lower()
    return next((c for c in COMMANDS if name == c.name or name in c.aliases), None)


async def run_command(app: CommandHost, text: str) -> bool:
    """Run a prompt that starts with "/". True when it was a command (unknown ones are reported)."""
    text = text.strip()
    if not is_command_text(text):
        return False
    name, _, arg = text[1:].partition(" ")
    command = find_command(name or "help")
    if command is None:
        warn(app, f"Unknown command /{name}. Type /help for the list.")
        return True
    await command.run(app, arg.strip())
    return True


def custom_command_of(text: str) -> CustomCommand | None:
    """The custom command or skill a `/name args` prompt names (a built-in of that name wins)."""
    from ..core.commands.expansion import parse_slash

    parsed = parse_slash(text)
    if parsed is None or find_command(parsed[0]) is not None:
        return None
    return load_commands(Path.cwd()).get(parsed[0])


def custom_usages() -> dict[str, str]:
    """`/name <hint>` → "description (project)", for /help and the palette."""
    return {f"/{c.name} {c.argument_hint}".rstrip(): c.listed_description for c in load_commands(Path.cwd()).values()}


class SlashCommandsProvider(Provider):
    """The slash commands in the command palette (run without arguments)."""

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command in COMMANDS:
            score = matcher.match(command.usage)
            if score > 0:
                yield Hit(score, matcher.highlight(command.usage), self._runner(command), help=command.help)
        for usage, text in custom_usages().items():
            if (score := matcher.match(usage)) > 0:
                yield Hit(score, matcher.highlight(usage), partial(self._send, usage.split()[0]), help=text)

    async def discover(self) -> Hits:
        for command in COMMANDS:
            yield DiscoveryHit(command.usage, self._runner(command), help=command.help)
        for usage, text in custom_usages().items():  # custom commands and skills: sent as a prompt
            yield DiscoveryHit(usage, partial(self._send, usage.split()[0]), help=text)

    async def _send(self, text: str) -> None:
        cast(CommandHost, self.app).submit(text)

    def _runner(self, command: SlashCommand) -> Callable[[], Awaitable[bool]]:
        # Only hosts register this provider (their COMMANDS), so the palette's app is one.
        return partial(run_command, cast(CommandHost, self.app), f"/{command.name}")
