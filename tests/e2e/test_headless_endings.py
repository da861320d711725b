"""`tui-agent -p` ends a run cut by max_tokens, refused, or rejected for its key with a clear non-zero exit."""

from __future__ import annotations

import json

from tests.e2e.test_headless import env, run_cli, serve, work  # noqa: F401  (fixtures)
from tui_agent.providers.scripted import Reply, Text, fault


def test_a_rejected_key_is_one_line_naming_the_variable_and_exit_1(env, work):
    with serve([fault(401, "invalid x-api-key")] * 3, env) as server:
        proc = run_cli(["-p", "hi"], env, work)
    assert proc.returncode == 1
    errors = [l for l in proc.stderr.splitlines() if l.strip()]
    assert len(errors) == 1 and "ANTHROPIC_API_KEY" in errors[0] and "401" in errors[0], proc.stderr
    assert len(server.model.requests) == 1, "never retried"


def test_an_answer_cut_four_times_ends_with_max_tokens_and_a_non_zero_exit(env, work):
    script = [Reply([Text(f"part{i} ")], stop_reason="max_tokens") for i in range(4)]
    with serve(script, env):
        proc = run_cli(["-p", "hi", "--output-format", "json"], env, work)
    assert proc.returncode == 1
    result = json.loads(proc.stdout)
    assert result["is_error"] and result["reason"] == "max_tokens" and result["subtype"] == "error_during_execution"
    assert result["result"] == "part0 part1 part2 part3 "
