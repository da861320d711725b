"""Shared by the permission-dialog and command tests: a small app hosting the asker (a prompt that
reports keypresses, like the real app's), a stand-in command host, a fake clock, stand-in tools, and a
real Agent on a ScriptedModel. A plain module (not conftest.py) so it cannot clash with the app's own fixtures."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any, Callable

from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Input, Static

from tui_agent.config import AgentSettings
from tui_agent.core.loop import Agent
from tui_agent.core.model import ModelClient, ModelConfig
from tui_agent.core.permission_types import PermissionRequest
from tui_agent.core.session import Session
from tui_agent.providers.scripted import ScriptedModel, Step
from tui_agent.tools.base import Tool, ToolContext, ToolInput, ToolOutput, Workspace
from tui_agent.tools.registry import ToolRegistry
from tui_agent.ui.agent_runner import AgentRunner
from tui_agent.ui.commands import SlashCommandsProvider, cycle_mode, run_command
from tui_agent.ui.permission_asker import PermissionAsker
from tui_agent.ui.parsed_styles import ParsedOnceStylesheet


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class Prompt(Input):
    """The prompt: every key typed in it tells the asker the user is typing."""

    def on_key(self, event: events.Key) -> None:
        self.app.asker.note_keypress()  # type: ignore[attr-defined]


class Harness(App[None]):
    """Hosts the asker like the real app does: a prompt whose keys say the user is typing."""

    def __init__(self, policy: Any, agent: Agent | None = None, clock: Callable[[], float] | None = None, guard: float = 0.4, typing_clock: Callable[[], float] | None = None) -> None:
        super().__init__()
        self.stylesheet = ParsedOnceStylesheet.replacing(self.stylesheet)  # as the real app's
        self.agent = agent
        self.clock = clock or FakeClock()
        kw = {"typing_clock": typing_clock} if typing_clock is not None else {}
        self.asker = PermissionAsker(self, policy, clock=self.clock, typing_quiet=1.0, guard=guard, poll=0.01, **kw)
        if agent is not None:
            agent.ask = self.asker.ask

    def compose(self) -> ComposeResult:
        yield Static("tui-agent test harness: the conversation would be here.")
        yield Prompt(id="prompt", placeholder="Type a prompt")


class CommandHarness(Harness):
    """A fast stand-in `CommandHost` (ui/host.py) for the commands' own logic; its agent runs on the test's
    loop. What the app does with a command (the screen, the status line, the keys) is tested on the real app
    (test_commands_on_the_real_app.py), which also checks this class and the app have the same members."""

    COMMANDS = App.COMMANDS | {SlashCommandsProvider}
    BINDINGS = [Binding("shift+tab", "cycle_mode", priority=True)]

    def __init__(self, policy: Any, agent: Agent, **kw: Any) -> None:
        super().__init__(policy, agent, **kw)
        self.agent: Agent = agent
        self.running = False
        self.runner: AgentRunner | None = None
        self.notices: list[str] = []
        self.status_refreshes = 0
        self.cleared = 0
        self.submitted: list[str] = []
        self.quit_called = False

    @property
    def settings(self) -> AgentSettings:
        return AgentSettings(cwd=self.agent.workspace.root)

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.value.startswith("/"):
            await run_command(self, event.value)
            event.input.value = ""

    def action_cycle_mode(self) -> None:
        cycle_mode(self)

    def show_notice(self, text: str) -> None:
        self.notices.append(text)

    def refresh_status(self) -> None:
        self.status_refreshes += 1

    def clear_conversation(self) -> None:
        self.cleared += 1

    def start_compaction(self, instructions: str) -> None:
        self.running = True

        async def compact() -> None:
            try:
                await self.agent.compact(instructions)
            finally:
                self.running = False

        self.run_worker(compact(), exit_on_error=False)

    def submit(self, text: str) -> None:
        self.submitted.append(text)

    def use_session(self, opened: Any) -> None:
        self.agent.session = opened.session
        self.agent.history[:] = opened.history

    async def action_quit(self) -> None:
        self.quit_called = True
        self.exit()


def request(tool: str = "Bash", *, command: str = "npm run test --watch", read_only: bool = False, **extra: Any) -> PermissionRequest:
    """A request as the core would make it."""
    inp: dict[str, Any] = extra.pop("input", None) or {"command": command}
    return PermissionRequest(
        id=extra.pop("id", "req1"),
        tool_use_id=extra.pop("tool_use_id", "toolu_1"),
        tool_name=tool,
        input=inp,
        summary=extra.pop("summary", inp.get("command") or inp.get("file_path", "")),
        read_only=read_only,
        reason=extra.pop("reason", f"{tool}: `{command}` is not allowed by any rule."),
        diff=extra.pop("diff", None),
        suggestions=extra.pop("suggestions", ("Bash(npm run test *)", "Bash(npm run *)", "Bash(npm *)")),
    )


# ----- stand-in tools on the real Tool base ----------------------------------------------------


class ShellInput(ToolInput):
    command: str


class FakeShell(Tool[ShellInput]):
    """A "Bash" that records what it ran; `ls …` is read-only, everything else asks."""

    name = "Bash"
    description = "Run a shell command."
    Input = ShellInput

    def __init__(self) -> None:
        self.ran: list[str] = []

    def is_read_only(self, input: ShellInput) -> bool:
        return input.command.startswith("ls")

    async def call(self, input: ShellInput, ctx: ToolContext) -> ToolOutput:
        self.ran.append(input.command)
        return ToolOutput(f"ran: {input.command}")


class SlowInput(ToolInput):
    seconds: float = 0.0


class SlowRead(Tool[SlowInput]):
    """A read-only tool that runs until released (to show tools keep running while asks wait)."""

    name = "SlowRead"
    description = "Read slowly."
    Input = SlowInput

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.release = asyncio.Event()

    def is_read_only(self, input: SlowInput) -> bool:
        return True

    async def call(self, input: SlowInput, ctx: ToolContext) -> ToolOutput:
        self.started.set()
        await self.release.wait()
        return ToolOutput("slow read done")


class FileInput(ToolInput):
    file_path: str
    content: str


class FakeWrite(Tool[FileInput]):
    """A "Write" that writes a file in the workspace, with its diff for the dialog."""

    name = "Write"
    description = "Write a file."
    Input = FileInput

    def input_path(self, input: FileInput) -> str | None:
        return input.file_path

    async def describe_change(self, input: FileInput, ctx: ToolContext) -> str | None:
        return f"--- {input.file_path}\n+++ {input.file_path}\n@@ -0,0 +1 @@\n+{input.content}"

    async def call(self, input: FileInput, ctx: ToolContext) -> ToolOutput:
        ctx.workspace.resolve(input.file_path).write_text(input.content)
        return ToolOutput(f"wrote {input.file_path}")


def make_project(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True, exist_ok=True)
    (tmp_path / "home").mkdir(exist_ok=True)
    return project.resolve()


def make_agent(tmp_path: Path, script: list[Step], tools: list[Tool[Any]], policy: Any) -> tuple[Agent, ScriptedModel]:
    """The real loop on a scripted model, working in `tmp_path/proj`."""
    project = make_project(tmp_path)
    scripted = ScriptedModel(script)
    config = ModelConfig(model=scripted.model, api_key="scripted", base_url="http://scripted.invalid", max_retries=0)
    agent = Agent(
        model=ModelClient(config, http_client_factory=scripted.http_client),
        registry=ToolRegistry(tools),
        policy=policy,
        session=Session(project, root=tmp_path / "sessions"),
        workspace=Workspace.at(project),
    )
    return agent, scripted


def tool_results(message: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for b in message["content"] if b.get("type") == "tool_result"]


def result_text(block: dict[str, Any]) -> str:
    content = block["content"]
    return content if isinstance(content, str) else json.dumps(content)
