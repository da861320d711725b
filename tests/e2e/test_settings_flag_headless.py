"""`--settings '{...}'` as SDK programs pass it: parsed in memory, never written to (or read from) a temp folder.

Real `tui-agent -p` processes with their own TMPDIR, the scripted model on a loopback port.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from tests.e2e.test_headless import env, run_cli, serve, work  # noqa: F401 (fixtures)
from tui_agent.providers.scripted import Reply, Text, ToolUse

SECRET = "sk-secret-from-settings-env-4242"


def _tmpdir(env: dict[str, str], tmp_path: Path) -> Path:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env["TMPDIR"] = str(tmp)  # tempfile.gettempdir() of the child
    return tmp


def _files_holding(root: Path, needle: str) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and needle.encode() in p.read_bytes()]


def test_json_settings_apply_and_nothing_reaches_the_disk(env, work, tmp_path):
    tmp = _tmpdir(env, tmp_path)
    text = json.dumps({"permissions": {"allow": ["Write"]}, "env": {"SECRET_TOKEN": SECRET}})
    target = work / "new.txt"
    script = [Reply([ToolUse("Write", {"file_path": str(target), "content": "x"}, id="w")]), Reply([Text("done")])]
    with serve(script, env):
        proc = run_cli(["-p", "write", "--output-format", "json", "--settings", text], env, work)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["result"] == "done" and out["permission_denials"] == []  # the JSON's allow rule applied
    assert target.read_text() == "x"
    assert list(tmp.iterdir()) == [], "nothing is written to the temp folder"
    assert _files_holding(tmp_path, SECRET) == [], "the env block stays out of every file"


def test_a_planted_file_with_the_old_name_is_never_read(env, work, tmp_path):
    """The old code kept the JSON in $TMPDIR/tui-agent-settings-<sha256[:16]>.json and reused an existing
    file of that name: another local user could plant one that allows everything."""
    tmp = _tmpdir(env, tmp_path)
    text = json.dumps({"permissions": {"ask": ["Write"]}})
    planted = tmp / f"tui-agent-settings-{hashlib.sha256(text.encode()).hexdigest()[:16]}.json"
    planted.write_text(json.dumps({"permissions": {"allow": ["Write"]}}))
    target = work / "new.txt"
    script = [Reply([ToolUse("Write", {"file_path": str(target), "content": "x"}, id="w")]), Reply([Text("done")])]
    with serve(script, env):
        proc = run_cli(["-p", "write", "--output-format", "json", "--settings", text], env, work)
    assert proc.returncode == 0, proc.stderr
    assert [d["tool_use_id"] for d in json.loads(proc.stdout)["permission_denials"]] == ["w"]
    assert not target.exists()


def test_rules_in_json_are_relative_to_the_working_folder(env, work, tmp_path):
    """As Claude Code's getSettingsRootPathForSource: flag settings without a file -> the original cwd."""
    _tmpdir(env, tmp_path)
    (work / "notes.txt").write_text("private\n")
    text = json.dumps({"permissions": {"deny": ["Read(/notes.txt)"]}})
    script = [Reply([ToolUse("Read", {"file_path": str(work / "notes.txt")}, id="r")]), Reply([Text("done")])]
    with serve(script, env):
        proc = run_cli(["-p", "read", "--output-format", "json", "--allowedTools", "Read", "--settings", text], env, work)
    assert proc.returncode == 0, proc.stderr
    assert [d["tool_use_id"] for d in json.loads(proc.stdout)["permission_denials"]] == ["r"]


def test_a_malformed_json_object_is_reported_as_settings_flag(env, work, tmp_path):
    tmp = _tmpdir(env, tmp_path)
    with serve([Reply([Text("done")])], env):
        proc = run_cli(["-p", "hi", "--settings", '{"permissions": {"allow": "Write"}}'], env, work)
    assert proc.returncode == 0, proc.stderr
    assert "--settings: permissions.allow" in proc.stderr and "Traceback" not in proc.stderr
    assert list(tmp.iterdir()) == []
