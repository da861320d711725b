"""`tui-agent -p` as a real process with Claude Code's sandbox settings (issue 25): a command the model runs
unasked cannot write outside the workspace (the OS says "Read-only file system"), and with
`failIfUnavailable` and no bwrap the run ends before anything runs, naming the missing piece and its install."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.warm_start import tui_agent_command
from tests.core.sandbox_support import need_bwrap, outside_folder, write_json
from tui_agent.providers.scripted import Reply, ScriptedModel, ScriptedServer, Text, ToolUse


@pytest.fixture
def outside() -> Iterator[Path]:
    yield from outside_folder()


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if k in ("LANG", "LC_ALL", "PYTHONPATH", "TMPDIR")}
    return {**keep, "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "/usr/bin:/bin")]),
            "HOME": str(tmp_path / "home"), "XDG_DATA_HOME": str(tmp_path / "data"),
            "XDG_CONFIG_HOME": str(tmp_path / "home" / ".config"), "ANTHROPIC_API_KEY": "sk-ant-fake",
            "TUI_AGENT_MAX_RETRIES": "0", **extra}


def _run(model: ScriptedModel, env: dict[str, str], work: Path) -> subprocess.CompletedProcess[str]:
    with ScriptedServer(model) as server:
        return subprocess.run(
            [*tui_agent_command(), "-p", "tidy up", "--output-format", "json"],
            env={**env, "ANTHROPIC_BASE_URL": server.url}, cwd=work, capture_output=True, text=True, timeout=120,
            stdin=subprocess.DEVNULL,
        )


def _tool_results(model: ScriptedModel) -> list[str]:
    out = []
    for body in model.requests:
        for message in body["messages"]:
            if message["role"] == "user" and not isinstance(message["content"], str):
                for block in message["content"]:
                    if block.get("type") == "tool_result":
                        content: Any = block.get("content")
                        out.append(content if isinstance(content, str) else "".join(b.get("text", "") for b in content or []))
    return out


def test_an_unasked_command_cannot_write_outside(tmp_path: Path, outside: Path) -> None:
    need_bwrap()
    work = tmp_path / "work"
    work.mkdir()
    write_json(tmp_path / "home" / ".claude" / "settings.json", {"sandbox": {"enabled": True, "autoAllowBashIfSandboxed": True}})
    model = ScriptedModel([
        Reply([ToolUse("Bash", {"command": f"echo x > {outside}/escaped; echo in > inside.txt"}, id="b")]),
        Reply([Text("done")]),
    ])
    proc = _run(model, _env(tmp_path), work)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["permission_denials"] == []
    assert any("Read-only file system" in r for r in _tool_results(model))
    assert list(outside.iterdir()) == [] and (work / "inside.txt").read_text() == "in\n"


def test_fail_if_unavailable_exits_with_the_missing_piece(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    write_json(work / ".claude" / "settings.json", {"sandbox": {"enabled": True, "failIfUnavailable": True}})
    model = ScriptedModel([Reply([ToolUse("Bash", {"command": "echo ran > ran.txt"}, id="b")]), Reply([Text("done")])])
    proc = _run(model, _env(tmp_path, TUI_AGENT_BWRAP=str(tmp_path / "missing" / "bwrap")), work)
    assert proc.returncode == 1
    assert "sandbox" in proc.stderr and "bwrap" in proc.stderr and "apt-get install bubblewrap" in proc.stderr
    assert model.requests == [] and not (work / "ran.txt").exists()
