"""Driving the installed `tui-agent` through the real claude-agent-sdk, against the scripted model."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

from claude_agent_sdk import ClaudeAgentOptions

from tui_agent.providers.scripted import ScriptedModel, ScriptedServer


def tui_agent_cli() -> str:
    """`tui-agent` for the SDK's `cli_path`: the warm launcher (tests/warm_start), or with warm starts off the
    `tui-agent` of this environment (the venv's bin folder first, then PATH)."""
    from tests.warm_start import tui_agent_command, warm_starts

    if warm_starts():
        (launcher,) = tui_agent_command()
        return launcher
    beside = Path(sys.executable).parent / "tui-agent"
    if beside.is_file():
        return str(beside)
    found = shutil.which("tui-agent")
    assert found, "tui-agent is not installed in this environment"
    return found


class Run:
    """A scripted server, the folders of one test, and the options the SDK starts tui-agent with."""

    def __init__(self, tmp: Path, script: Any) -> None:
        self.work = tmp / "work"
        self.work.mkdir()
        (self.work / "README.md").write_text("# Demo project\nhello\n")
        (self.work / "pkg").mkdir()
        (self.work / "pkg" / "a.py").write_text("def a():\n    return 1\n")
        self.model = ScriptedModel(script)
        self.server = ScriptedServer(self.model).start()
        self.stderr: list[str] = []
        self.env = {
            "HOME": str(tmp / "home"),
            "XDG_DATA_HOME": str(tmp / "data"),
            "XDG_CONFIG_HOME": str(tmp / "home" / ".config"),
            "ANTHROPIC_BASE_URL": self.server.url,
            "ANTHROPIC_API_KEY": "sk-test",
            "ANTHROPIC_MODEL": "",
            "TUI_AGENT_MAX_RETRIES": "2",
        }

    def options(self, **kw: Any) -> ClaudeAgentOptions:
        return ClaudeAgentOptions(cli_path=tui_agent_cli(), cwd=str(self.work), env=self.env, stderr=self.stderr.append, **kw)

    @property
    def requests(self) -> list[dict[str, Any]]:
        return self.model.requests

    def tool_results(self, request_index: int) -> dict[str, dict[str, Any]]:
        """tool_use_id → tool_result block, from the last user message of one request the model got."""
        last = self.requests[request_index]["messages"][-1]
        return {b["tool_use_id"]: b for b in last["content"] if b.get("type") == "tool_result"}

    def stop(self) -> None:
        self.server.stop()


def result_text(block: dict[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content or [])
