"""`tui-agent -p "/compact [instructions]" --resume ID` compacts the session, as `claude -p "/compact"`
does: stream-json says `status: compacting`, then `compact_boundary` with its metadata, then a result;
the next `-p` carries on from the summary."""

from __future__ import annotations

import json

from tests.core.context.scripts import conversation, custom_instructions
from tests.e2e.test_headless import env, run_cli, serve, work  # noqa: F401  (fixtures)
from tui_agent.core.context.summary import CONTINUED
from tui_agent.providers.scripted import Reply, Text


def test_compact_as_the_prompt_compacts_the_resumed_session(env, work):
    handler, seen = conversation([Reply([Text("first answer")]), Reply([Text("after compaction")])])
    with serve(handler, env):
        first = run_cli(["-p", "hello", "--output-format", "json"], env, work)
        sid = json.loads(first.stdout)["session_id"]
        proc = run_cli(["-p", "/compact keep the greeting", "--resume", sid, "--output-format", "stream-json", "--verbose"], env, work)
        after = run_cli(["-p", "and now?", "--resume", sid, "--output-format", "json"], env, work)
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(l) for l in proc.stdout.splitlines()]
    kinds = [(l["type"], l.get("subtype"), l.get("status")) for l in lines]
    assert kinds[0] == ("system", "status", "compacting")
    boundary = next(l for l in lines if l.get("subtype") == "compact_boundary")
    assert boundary["compact_metadata"]["trigger"] == "manual" and boundary["compact_metadata"]["pre_tokens"] > 0
    assert lines[-1]["type"] == "result" and lines[-1]["is_error"] is False and lines[-1]["session_id"] == sid
    assert custom_instructions(seen["summaries"][0]) == "keep the greeting"
    assert json.loads(after.stdout)["result"] == "after compaction"
    texts = json.dumps(seen["turns"][-1])
    assert CONTINUED in texts and "first answer" not in texts


def test_compact_with_nothing_to_compact_is_an_error(env, work):
    with serve([Reply([Text("x")])], env):
        proc = run_cli(["-p", "/compact", "--output-format", "json"], env, work)
    assert proc.returncode == 1
    result = json.loads(proc.stdout)
    assert result["is_error"] and result["result"] == "Not enough messages to compact."
