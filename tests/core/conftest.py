"""Fixtures for core tests: a real Agent on the real SDK, fed by the scripted model in-process."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from tests.core.support import Harness
from tui_agent.config import AgentSettings
from tui_agent.core.events import Event
from tui_agent.factory import build_agent
from tui_agent.providers.scripted import ScriptedModel
from tui_agent.tools.base import Tool
from tui_agent.tools.file_watch import close_file_watcher


@pytest.fixture
def data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Session folders and settings files live in the test's own folder, never the real home."""
    home = tmp_path / "data"
    monkeypatch.setenv("XDG_DATA_HOME", str(home))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "home" / ".config"))
    return home


@pytest.fixture
def make_harness(tmp_path: Path, data_home: Path) -> Iterator[Callable[..., Harness]]:
    made: list[Harness] = []

    def make(script: Any, *, tools: list[Tool[Any]] | None = None, ask: Any = None, model: str = "claude-sonnet-4-6", **settings: Any) -> Harness:
        work = tmp_path / "work"
        work.mkdir(exist_ok=True)
        scripted = ScriptedModel(script, model=model)
        events: list[Event] = []
        opts = {"cwd": work, "max_retries": 4, **settings}
        agent = build_agent(AgentSettings(**opts), emit=events.append, ask=ask, scripted=scripted, tools=tools)
        agent.model.config.retry_base_delay = 0.01
        made.append(Harness(agent, scripted, events))
        return made[-1]

    yield make
    # Most tests never close their agent (what they check is the run): its file watcher's thread would
    # poll for the rest of the worker's life, one more each test that read a file.
    for harness in made:
        close_file_watcher(harness.agent.context)
