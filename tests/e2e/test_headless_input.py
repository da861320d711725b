"""Input `-p` must take as Claude Code does: a session id is a UUID; a prompt that starts with a path is a
prompt (issue 10, point 8)."""

from __future__ import annotations

import json
import uuid

from tests.e2e.test_headless import env, run_cli, serve, work  # noqa: F401  (fixtures)
from tui_agent.providers.scripted import Reply, Text


class TestSessionId:
    def test_a_session_id_that_is_not_a_uuid_is_refused_as_claude_code_does(self, env, work, tmp_path):
        for bad in ("../../escaped", str(tmp_path / "abs"), "sess-1", "", "1234"):
            proc = run_cli(["-p", "hi", "--session-id", bad], env, work)
            assert proc.returncode == 1, (bad, proc.stderr)
            assert proc.stderr == "Error: Invalid session ID. Must be a valid UUID.\n"
            assert proc.stdout == ""
        assert not any(p.name.startswith(("escaped", "abs")) for p in tmp_path.rglob("*"))

    def test_a_uuid_session_id_is_used(self, env, work):
        sid = str(uuid.uuid4())
        with serve([Reply([Text("ok")])], env):
            proc = run_cli(["-p", "hi", "--session-id", sid, "--output-format", "json"], env, work)
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout)["session_id"] == sid


def test_a_prompt_starting_with_a_path_is_sent_to_the_model(env, work):
    with serve([Reply([Text("Let me look.")])], env) as server:
        proc = run_cli(["-p", "/usr/bin/python crashes on start"], env, work)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "Let me look."
    assert server.model.requests[0]["messages"][0]["content"][0]["text"] == "/usr/bin/python crashes on start"
