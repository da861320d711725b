"""The suite runs the same on any machine: a Claude Code user's `~/.claude` and shell variables neither reach the
code under test nor get written to (tests/conftest.py). Proved by running tests of the suite in a subprocess whose
real HOME holds a hostile `~/.claude` (settings that deny every tool, turn thinking on and pick another model; a
blocking PreToolUse and UserPromptSubmit hook; a CLAUDE.md that asks for Klingon; an MCP server that does not
exist) and whose environment points everything elsewhere."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import tempfile
import sys
from pathlib import Path
from typing import Any


from tests.conftest import scrubbed
from tui_agent.config import AgentSettings
from tui_agent.core.events import Event
from tui_agent.factory import build_agent
from tui_agent.providers.scripted import Reply, ScriptedModel, Text

REPO = Path(__file__).resolve().parents[1]
KLINGON = "Always answer in Klingon."

# Tests that failed with such a home before the isolation (thinking, stop reasons, deferred MCP, sessions,
# a snapshot, headless runs in a subprocess), plus this file's own probes.
SUITE_SAMPLE = [
    "tests/test_isolation.py::test_probe_the_test_machine_is_empty_and_its_own",
    "tests/test_isolation.py::test_probe_a_request_carries_nothing_of_the_users_claude_folder",
    "tests/core/test_thinking.py::TestWhereThinkingComesFrom",
    "tests/core/test_stop_reasons.py::TestMaxTokensInAToolCall",
    "tests/mcp/test_mcp_deferred.py::TestBeta::test_tools_are_deferred_found_with_tool_search_and_called",
    "tests/core/session/test_resume.py",
    "tests/ui/test_snapshots.py::test_snapshot_finished_answer_with_code",
    "tests/e2e/test_headless.py::TestConversation::test_text_output_prints_the_answer",
    "tests/e2e/test_headless.py::TestEndings::test_allowed_tools_lets_a_write_through",
]


def test_probe_the_test_machine_is_empty_and_its_own() -> None:
    home = Path.home()
    assert home == Path(os.environ["HOME"])
    assert not (home / ".claude").exists() and not (home / ".claude.json").exists()
    assert [name for name in os.environ if scrubbed(name) and not name.startswith(("GIT_", "XDG_CACHE_HOME"))] == []
    cache = Path(os.environ["XDG_CACHE_HOME"])  # the worker's own, shared by its tests (tests/conftest.py)
    assert cache.parent.name.startswith("tui-agent-tests-") and cache.parent.parent == Path(tempfile.gettempdir())
    assert REPO not in Path.cwd().parents and Path.cwd() != REPO
    assert list(Path.cwd().iterdir()) == []


async def test_probe_a_request_carries_nothing_of_the_users_claude_folder(tmp_path: Path) -> None:
    events: list[Event] = []
    scripted = ScriptedModel([Reply([Text("hello")])])
    agent = build_agent(AgentSettings(cwd=Path.cwd(), max_retries=0), emit=events.append, scripted=scripted)
    ended = await agent.run("hi")
    assert ended.reason == "completed" and ended.result == "hello"
    request = scripted.requests[0]
    body = json.dumps(request)
    assert "Klingon" not in body
    assert "thinking" not in request
    assert request["model"] == scripted.model
    assert {"Bash", "Read", "Write", "Edit"} <= {t["name"] for t in request["tools"]}
    assert not any(t["name"].startswith("mcp__") for t in request["tools"])


def _hostile_home(root: Path, marker: Path) -> Path:
    home = root / "hostile-home"
    claude = home / ".claude"
    (claude / "projects" / "-somewhere").mkdir(parents=True)
    (claude / "projects" / "-somewhere" / "old.jsonl").write_text('{"type":"summary","summary":"old"}\n')
    block = {"type": "command", "command": f"touch {marker}; echo 'blocked by the user hook' >&2; exit 2"}
    (claude / "settings.json").write_text(json.dumps({
        "model": "claude-opus-4-1",
        "alwaysThinkingEnabled": True,
        "permissions": {"deny": ["Bash", "Read", "Write", "Edit", "Glob", "Grep", "WebFetch", "Task"], "defaultMode": "plan"},
        "hooks": {"PreToolUse": [{"matcher": "*", "hooks": [block]}], "UserPromptSubmit": [{"hooks": [block]}]},
        "env": {"MAX_THINKING_TOKENS": "9000", "ANTHROPIC_MODEL": "claude-opus-4-1"},
    }))
    (claude / "CLAUDE.md").write_text(KLINGON + "\n")
    (claude / "agents").mkdir()
    (claude / "agents" / "hijack.md").write_text("---\nname: general-purpose\ndescription: x\n---\n" + KLINGON + "\n")
    (home / ".claude.json").write_text(json.dumps({"mcpServers": {"ghost": {"command": "/nonexistent/ghost-mcp-server"}}}))
    (home / ".config" / "tui-agent").mkdir(parents=True)
    (home / ".config" / "tui-agent" / "settings.json").write_text(json.dumps({"permissions": {"deny": ["Bash"]}}))
    return home


def _tree(root: Path) -> dict[str, Any]:
    """Every file and folder under `root` with its content hash and mtime: what "unchanged" means."""
    out: dict[str, Any] = {}
    for path in sorted(root.rglob("*")):
        stat = path.lstat()
        digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None
        out[str(path.relative_to(root))] = (stat.st_mode, stat.st_mtime_ns, digest)
    return out


def test_a_claude_code_users_home_and_environment_change_nothing_and_are_left_unchanged(tmp_path: Path) -> None:
    marker = tmp_path / "hook-ran"
    home = _hostile_home(tmp_path, marker)
    before = _tree(home)
    env = {
        "PATH": os.environ["PATH"], "LANG": "C.UTF-8", "TERM": "xterm-256color",
        "HOME": str(home),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "XDG_CONFIG_HOME": str(home / ".config"), "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CACHE_HOME": str(home / ".cache"), "XDG_STATE_HOME": str(home / ".local" / "state"),
        "ANTHROPIC_API_KEY": "sk-ant-hostile-key", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",
        "ANTHROPIC_MODEL": "claude-opus-4-1", "ANTHROPIC_SMALL_FAST_MODEL": "claude-3-opus",
        "MAX_THINKING_TOKENS": "9000", "CLAUDE_CODE_MAX_OUTPUT_TOKENS": "100", "DISABLE_AUTO_COMPACT": "1",
        "TUI_AGENT_MAX_RETRIES": "0", "TUI_AGENT_RESULT_BUDGET_CHARS": "10", "ENABLE_TOOL_SEARCH": "false",
        "MCP_TIMEOUT": "1", "BASH_DEFAULT_TIMEOUT_MS": "1",
        "HTTPS_PROXY": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9", "ALL_PROXY": "http://127.0.0.1:9",
        # the test tools' own switch (not the user's): a sample of a few starts is cheaper fresh than warm
        "PYTEST_TUI_AGENT_FRESH_STARTS": "1",
    }
    proc = subprocess.run(
        # --basetemp: its own folder, so it neither numbers one in the machine's pytest folder nor, leaving,
        # deletes the oldest there (the last full run's, ~55k entries: ~10 s in this test)
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "0", f"--basetemp={tmp_path / 'pytest'}", *SUITE_SAMPLE],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-3000:]
    passed = re.search(r"(\d+) passed", proc.stdout)
    assert passed and int(passed.group(1)) >= 25, proc.stdout[-2000:]
    assert _tree(home) == before, "the user's home was written to"
    assert not marker.exists(), "the user's hook ran"


# Variables the product reads that a test may keep: they describe the machine, not the user's choices.
MACHINE_VARIABLES = {"HOME", "PATH", "SHELL", "TERM", "COLORTERM", "USER", "LOGNAME", "TMPDIR", "LANG", "LC_ALL", "PWD", "SYSTEMROOT", "TZ"}


def test_every_variable_the_product_reads_is_scrubbed_or_describes_the_machine() -> None:
    """A new `os.environ.get("SOME_SETTING")` in the product is caught here until the fixture scrubs it."""
    read = set()
    pattern = re.compile(r"""(?:environ\.get\(|environ\[|getenv\(|environ\.setdefault\(|\benv(?:iron)?\.get\()\s*["']([A-Z][A-Z0-9_]+)["']""")
    for path in (REPO / "tui_agent").rglob("*.py"):
        read.update(pattern.findall(path.read_text(encoding="utf-8")))
    assert len(read) > 15, sorted(read)  # the scan sees the product's variables
    assert sorted(name for name in read if not scrubbed(name) and name not in MACHINE_VARIABLES) == []
