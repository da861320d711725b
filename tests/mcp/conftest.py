"""Fixtures for MCP tests: real MCP servers (tests/mcp/mcp_test_server.py) as subprocesses, a real Agent
on the real SDK fed by the scripted model, homes and config folders inside the test's own folder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import pytest

from tests.core.support import Harness
from tests.warm_start import python_script_command
from tui_agent.config import AgentSettings
from tui_agent.core.events import Event, Notice
from tui_agent.factory import build_agent
from tui_agent.providers.scripted import ScriptedModel

SERVER = Path(__file__).with_name("mcp_test_server.py")


def stdio_entry(*args: str, fresh: bool = False, **extra: Any) -> dict[str, Any]:
    """The test server as an `.mcp.json` entry; warm (tests/warm_start) unless the test is about its process."""
    command, *rest = python_script_command(SERVER, fresh=fresh)
    return {"command": command, "args": [*rest, *args], **extra}


def write_mcp_json(folder: Path, servers: dict[str, Any]) -> Path:
    path = folder / ".mcp.json"
    path.write_text(json.dumps({"mcpServers": servers}))
    return path


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    h = tmp_path / "home"
    h.mkdir()
    monkeypatch.setenv("HOME", str(h))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(h / ".config"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("ENABLE_TOOL_SEARCH", raising=False)
    monkeypatch.delenv("MCP_TIMEOUT", raising=False)
    return h


@pytest.fixture
def work(tmp_path: Path, home: Path) -> Path:
    w = tmp_path / "work"
    w.mkdir()
    return w


@pytest.fixture
def log_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """What the test servers saw (cancelled calls, children), written by the servers themselves."""
    path = tmp_path / "server.log"
    path.touch()
    monkeypatch.setenv("MCP_TEST_LOG", str(path))
    return path


@pytest.fixture
def make_agent(work: Path) -> Callable[..., Harness]:
    """An agent with the built-in tools and every MCP server the configs give it (not started yet)."""
    made: list[Harness] = []

    def make(script: Any, *, ask: Any = None, refuse_betas: bool = False, **settings: Any) -> Harness:
        scripted = ScriptedModel(script, refuse_betas=refuse_betas)
        events: list[Event] = []
        agent = build_agent(
            AgentSettings(cwd=work, max_retries=2, **settings),
            emit=events.append,
            ask=ask,
            on_notice=lambda level, text: events.append(Notice.of(level, text)),
            scripted=scripted,
        )
        harness = Harness(agent, scripted, events)
        made.append(harness)
        return harness

    return make


def mcp_dynamic(*pairs: tuple[str, dict[str, Any]]) -> list[str]:
    """A --mcp-config JSON string for these servers (dynamic scope: no approval needed)."""
    return [json.dumps({"mcpServers": dict(pairs)})]
