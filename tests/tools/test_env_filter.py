"""The API key never reaches a tool's process (issue 23, finding 5): real shells, foreground and background,
print their whole environment and it is not there; names the settings deny are not either, and a name
the user lets through is."""

from __future__ import annotations

import pytest

from tests.tools.support import run_tool, text
from tests.tools.test_background_shells import start, wait_for
from tui_agent.tools.background import BackgroundShells
from tui_agent.tools.base import ToolContext
from tui_agent.tools.bash import BashTool
from tui_agent.tools.env_filter import SERVICE_KEY, EnvFilter

SHOW = "printenv ANTHROPIC_API_KEY; echo \"key=$ANTHROPIC_API_KEY token=$ANTHROPIC_AUTH_TOKEN\"; env; echo done"


@pytest.fixture(autouse=True)
def credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "fake-key")
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "fake-token")
    monkeypatch.setenv("MY_SECRET", "fake-secret")
    monkeypatch.setenv("HARMLESS", "still-here")


async def foreground(ctx: ToolContext, command: str = SHOW) -> str:
    out = await run_tool(BashTool(), ctx, command=command)
    return text(out)


async def background(ctx: ToolContext, command: str = SHOW) -> str:
    shell = BackgroundShells.of(ctx).get(await start(ctx, command))
    assert shell is not None
    assert await wait_for(lambda: shell.status != "running" and not shell.active)
    data, _ = await shell.read_new()
    return data


@pytest.mark.parametrize("run", [foreground, background])
async def test_a_shell_never_sees_the_api_key(ctx: ToolContext, run) -> None:
    out = await run(ctx)
    assert out.rstrip().endswith("done")  # the command ran to the end
    assert "fake-key" not in out and "fake-token" not in out
    assert "key= token=" in out
    assert "HARMLESS=still-here" in out  # only the credentials are taken away


@pytest.mark.parametrize("run", [foreground, background])
async def test_denied_names_are_withheld_and_allowed_credentials_pass(ctx: ToolContext, run) -> None:
    ctx.services[SERVICE_KEY] = lambda: EnvFilter(denied=frozenset({"MY_SECRET"}), allowed=frozenset({"ANTHROPIC_AUTH_TOKEN"}))
    out = await run(ctx, "env; echo done")
    assert "MY_SECRET" not in out and "fake-secret" not in out
    assert "ANTHROPIC_AUTH_TOKEN=fake-token" in out
    assert "fake-key" not in out  # allowing one credential does not allow the other


async def test_a_deny_wins_over_an_allow(ctx: ToolContext) -> None:
    ctx.services[SERVICE_KEY] = lambda: EnvFilter(denied=frozenset({"ANTHROPIC_API_KEY"}), allowed=frozenset({"ANTHROPIC_API_KEY"}))
    assert "fake-key" not in await foreground(ctx, "env")


async def test_the_filter_is_asked_at_each_call(ctx: ToolContext) -> None:
    """Settings edited while the app runs apply to the next command."""
    current = [EnvFilter()]
    ctx.services[SERVICE_KEY] = lambda: current[0]
    assert "fake-secret" in await foreground(ctx, "env")
    current[0] = EnvFilter(denied=frozenset({"MY_SECRET"}))
    assert "fake-secret" not in await foreground(ctx, "env")
