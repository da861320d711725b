"""THE gate (core/access.py): its answers, and the list of every place in core/ that opens a file.

Nothing in core/ may open a file for the model outside the gate module: the scan below finds every call
that opens or reads a file (open, Path.open / read_text / read_bytes, os.open / fdopen, Image.open, ...)
and fails on one not in ALLOWED, where each entry says why it is not content for the model. A new reader
of files for the model goes through `core.access` (`ReadGate.check`, then `read_head`).
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from tui_agent.core.access import ReadGate, read_head, read_text_head, TooLarge
from tui_agent.core.permissions import PermissionEngine
from tui_agent.tools.base import Workspace

CORE = Path(__file__).resolve().parents[2] / "tui_agent" / "core"
READING_CALLS = {"open", "read_text", "read_bytes", "fdopen", "open_text", "open_binary", "load_workbook", "imread"}

# (module under core/, function) -> why what it opens is not content for the model.
ALLOWED: dict[tuple[str, str], str] = {
    ("lazy_import.py", "*"): "the installed anthropic and mcp packages' own __init__.py files, parsed for what they re-export",
    ("access.py", "read_head"): "the gate module: the one reader of content for the model, after ReadGate.check",
    ("output_styles.py", "save_choice"): "settings.local.json, rewritten with the chosen output style",
    ("checkpoints/blobs.py", "BlobStore.put"): "writes the session's own checkpoint blob (a file's content before a tool changed it)",
    ("checkpoints/blobs.py", "BlobStore.get"): "the session's own checkpoint blob, written back by a rewind (never sent)",
    ("checkpoints/store.py", "CheckpointStore.before_write"): "the file a Write/Edit is about to change (its plan has read it already), kept for a rewind",
    ("checkpoints/store.py", "CheckpointStore._load"): "the session's own checkpoint index",
    ("checkpoints/store.py", "_read"): "a file tools changed, compared with what they left (a hand edit) for a rewind",
    ("agents/definitions.py", "AgentCatalog._load"): "subagent definitions: configuration, not sent as file content",
    ("mcp/approval.py", "ProjectApprovals.record"): "writes tui-agent's own MCP approvals file",
    ("mcp/approval.py", "_read"): "settings files and tui-agent's own MCP approvals",
    ("mcp/config.py", "_read_json"): "MCP configuration (.mcp.json, ~/.claude.json)",
    ("mcp/config.py", "load_dynamic"): "--mcp-config files: configuration",
    ("mcp/connection.py", "McpConnection.stderr_tail"): "a server's own stderr log, for the user",
    ("permissions/settings.py", "SettingsSource.read_json"): "settings files",
    ("permissions/settings.py", "save_allow_rule"): "settings.local.json, rewritten with a rule",
    ("results.py", "ResultStore._persist"): "the session's own spill file of a tool result",
    ("session/memory_imports.py", "ImportApprovals.record"): "writes tui-agent's own memory-imports answers",
    ("session/memory_imports.py", "_read_json"): "tui-agent's answers and ~/.claude.json: the user's config",
    ("session/lock.py", "holder_pid"): "a session lock's pid (the agent's own file)",
    ("shell_mode.py", "saved_output"): "a `!` command's whole output, only from a session's own tool-results/ (shown, never sent)",
    ("session/lock.py", "is_free"): "a session lock, tried and let go (the agent's own file)",
    ("session/reader.py", "read_lines"): "session transcripts (the agent's own files)",
    ("session/writer.py", "Session.read"): "the session's own transcript",
    ("session/writer.py", "_ends_with_newline"): "the session's own transcript",
    ("trust.py", "_projects"): "the user's config (folder trust answers)",
    ("sandbox/bridge.py", "_serve"): "runs inside the sandbox as its own process: opens /dev/null for its forwarder",
    ("trust.py", "remember_trust"): "the user's config (folder trust answers)",
    ("trust.py", "_settings_lines"): "settings files (what the trust question shows)",
    ("user_settings.py", "*"): "settings files, read for their keys",
}


def _reading_calls() -> list[tuple[str, str, int]]:
    """(module, enclosing function, line) of every call in core/ that opens or reads a file."""
    found: list[tuple[str, str, int]] = []
    for path in sorted(CORE.rglob("*.py")):
        module = path.relative_to(CORE).as_posix()
        stack: list[str] = []

        class Visitor(ast.NodeVisitor):
            def generic_visit(self, node: ast.AST) -> None:
                named = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                if named:
                    stack.append(node.name)  # type: ignore[attr-defined]
                if isinstance(node, ast.Call):
                    fn = node.func
                    name = fn.id if isinstance(fn, ast.Name) else fn.attr if isinstance(fn, ast.Attribute) else None
                    if name in READING_CALLS:
                        found.append((module, ".".join(stack) or "<module>", node.lineno))
                super().generic_visit(node)
                if named:
                    stack.pop()

        Visitor().visit(ast.parse(path.read_text(encoding="utf-8")))
    return found


def test_nothing_in_core_opens_a_file_outside_the_gate_and_the_listed_readers() -> None:
    calls = _reading_calls()
    assert ("access.py", "read_head") in {(m, f) for m, f, _ in calls}, "the scan finds the gate's own reader"
    strays = [f"{m}:{line} in {f}" for m, f, line in calls if (m, f) not in ALLOWED and (m, "*") not in ALLOWED]
    assert not strays, (
        "these open files in core/ outside core/access.py; content for the model must go through ReadGate.check "
        f"and access.read_head (or, if it is not for the model, add it to ALLOWED with the reason): {strays}"
    )


def test_the_readers_that_put_files_into_requests_use_the_gate() -> None:
    """Each reader of files for the model names the gate (the behaviour is tested in test_reads_for_the_model)."""
    for module in ("mentions.py", "session/memory.py", "session/memory_context.py", "context/carryover.py", "context/compaction.py"):
        source = (CORE / module).read_text(encoding="utf-8")
        assert "access import" in source, f"{module} does not use core.access"
    for module in ("session/memory.py", "context/carryover.py", "mentions.py"):
        tree = ast.parse((CORE / module).read_text(encoding="utf-8"))
        names = {n.func.attr for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)}
        assert not names & READING_CALLS, f"{module} reads files itself"


# --- the gate's answers


def engine(work: Path, home: Path, **rules: list[str]) -> PermissionEngine:
    (work / ".claude").mkdir(parents=True, exist_ok=True)
    (work / ".claude" / "settings.json").write_text(json.dumps({"permissions": rules}))
    return PermissionEngine(work, home=home, project_dir=work, config_dir=home / "cfg")


@pytest.fixture
def places(tmp_path: Path) -> tuple[Path, Path]:
    work, home = tmp_path / "work", tmp_path / "home"
    (work / "src").mkdir(parents=True)
    (work / "src" / "a.py").write_text("a")
    (work / ".env").write_text("TOKEN=x")
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("KEY")
    (home / "notes").mkdir()
    (home / "notes" / "n.md").write_text("notes")
    return work, home


def test_inside_the_workspace_yes_outside_no_and_a_deny_rule_wins(places: tuple[Path, Path]) -> None:
    work, home = places
    gate = ReadGate(Workspace.at(work), engine(work, home, deny=["Read(./.env)"]))
    assert gate.check(work / "src" / "a.py").allowed
    assert gate.check(home / ".ssh" / "id_rsa").verdict == "ask"
    env = gate.check(".env")
    assert env.verdict == "deny" and "Read(./.env)" in env.reason


def test_a_read_allow_rule_opens_that_folder_only(places: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    work, home = places
    monkeypatch.setenv("HOME", str(home))
    gate = ReadGate(Workspace.at(work), engine(work, home, allow=["Read(~/notes/**)"]))
    notes = gate.check(home / "notes" / "n.md")
    assert notes.allowed and notes.by_rule
    assert not gate.check(home / ".ssh" / "id_rsa").allowed


def test_a_link_is_judged_where_it_resolves_and_by_its_own_name_for_deny_rules(places: tuple[Path, Path]) -> None:
    work, home = places
    (work / "key.txt").symlink_to(home / ".ssh" / "id_rsa")
    (work / "secrets").mkdir()
    (work / "secrets" / "real.txt").write_text("s")
    (work / "alias.txt").symlink_to(work / "secrets" / "real.txt")
    gate = ReadGate(Workspace.at(work), engine(work, home, deny=["Read(./alias.txt)"]))
    assert gate.check(work / "key.txt").verdict == "ask"  # a link out of the project is an outside read
    assert gate.check(work / "alias.txt").verdict == "deny"


def test_an_ask_rule_is_a_no_for_reads_nobody_can_be_asked_about(places: tuple[Path, Path]) -> None:
    work, home = places
    gate = ReadGate(Workspace.at(work), engine(work, home, ask=["Read(./src/**)"]))
    assert gate.check(work / "src" / "a.py").verdict == "ask"


def test_without_rules_only_the_working_folders(places: tuple[Path, Path]) -> None:
    work, home = places
    gate = ReadGate(Workspace.at(work))
    assert gate.check(work / "src" / "a.py").allowed and not gate.check(home / "notes" / "n.md").allowed


def test_the_reader_stats_first_and_reads_only_what_it_needs(tmp_path: Path) -> None:
    big = tmp_path / "big.md"
    big.write_bytes(b"x" * 5_000_000)
    with pytest.raises(TooLarge):
        read_text_head(big, max_chars=10, max_bytes=4 * 1024 * 1024)
    head = read_head(big, 100)
    assert head is not None and len(head.data) == 100 and head.cut and head.size == 5_000_000
    text = read_text_head(big, max_chars=10)
    assert text is not None and text.text == "x" * 10 and text.cut
    (tmp_path / "bin").write_bytes(b"\0\1\2")
    assert read_text_head(tmp_path / "bin", max_chars=10) is None
