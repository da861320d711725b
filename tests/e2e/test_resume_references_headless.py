"""`-r` / `--resume` takes a session id (a UUID) or a name, nothing else; Claude Code's files are only read.

Real `tui-agent -p` processes, their own HOME and data folder, the scripted model on a loopback port.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.e2e.test_headless import env, run_cli, serve, work  # noqa: F401  (fixtures)
from tests.e2e.test_sessions_headless import json_run, session_files
from tui_agent.core.session.paths import project_slug
from tui_agent.providers.scripted import Reply, Text

FIXTURE = Path(__file__).parents[1] / "core" / "session" / "fixtures" / "claude_code_tool_turn.jsonl"
CLAUDE_ID = "123fad4e-2c16-4b4f-b0ce-1f3acb31d650"


def refused(proc, value: str) -> None:
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stderr.strip().splitlines()[0] == f"No conversation found with session ID: {value}"  # Claude Code's words


def ours(env: dict[str, str], cwd: Path) -> Path:
    """Our sessions folder for `cwd`."""
    return Path(env["XDG_DATA_HOME"]) / "tui-agent" / "projects" / project_slug(cwd.resolve())


def tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_glob_never_picks_a_session_of_another_project(env, work, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    with serve([Reply([Text("secret plans")])], env) as server:
        json_run(["-p", "private"], env, other)
        proc = run_cli(["-p", "x", "-r", "*"], env, work)
        proc_q = run_cli(["-p", "x", "-r", "????????-*"], env, work)
    refused(proc, "*")
    refused(proc_q, "????????-*")
    assert len(server.model.requests) == 1, "nothing was resumed, nothing was sent"
    assert len(session_files(env)) == 1


@pytest.mark.parametrize("relative", [False, True])
def test_a_path_is_refused_and_nothing_is_written_beside_it(env, work, tmp_path, relative):
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.copy(FIXTURE, outside / "victim.jsonl")
    # From our sessions folder of `work`, `../../../outside/victim` leads to the same file.
    value = "../../../../outside/victim" if relative else str(outside / "victim")
    ours(env, work).mkdir(parents=True)  # the folder the relative path starts from exists, as after any session
    before = tree(outside)
    with serve([Reply([Text("resumed?")])], env) as server:
        proc = run_cli(["-p", "x", "-r", value], env, work)
    refused(proc, value)
    assert server.model.requests == []
    assert tree(outside) == before, "no file written or changed beside it"


def test_dot_dot_inside_the_sessions_folder_is_refused(env, work):
    ours(env, work).mkdir(parents=True)
    shutil.copy(FIXTURE, ours(env, work).parent / "x.jsonl")  # <root>/<slug>/../x.jsonl
    with serve([Reply([Text("resumed?")])], env) as server:
        proc = run_cli(["-p", "x", "-r", "../x"], env, work)
    refused(proc, "../x")
    assert server.model.requests == []


def test_a_claude_code_session_is_only_read_and_continues_in_a_new_session(env, work):
    folder = Path(env["HOME"]) / ".claude" / "projects" / project_slug(work.resolve())
    folder.mkdir(parents=True)
    theirs = folder / f"{CLAUDE_ID}.jsonl"
    shutil.copy(FIXTURE, theirs)
    original = theirs.read_bytes()
    with serve([Reply([Text("carried on")]), Reply([Text("again")])], env) as server:
        out, _ = json_run(["-p", "go on", "-r", CLAUDE_ID], env, work)
        by_path = run_cli(["-p", "x", "-r", str(theirs.with_suffix(""))], env, work)
    refused(by_path, str(theirs.with_suffix("")))
    assert out["result"] == "carried on" and out["session_id"] != CLAUDE_ID
    assert theirs.read_bytes() == original, "Claude Code's file is never written"
    assert [f.stem for f in session_files(env)] == [out["session_id"]]
    first = server.model.requests[0]["messages"][0]
    assert (first["content"] if isinstance(first["content"], str) else first["content"][-1]["text"]) == "read the file"
    assert len(server.model.requests) == 1
    assert json.loads(session_files(env)[0].read_text().splitlines()[-1])["sessionId"] == out["session_id"]
