"""Extended thinking in `tui-agent -p`: the flag reaches the request over the real wire, and thinking,
signature and redacted thinking go back to the model exactly as they came."""

from __future__ import annotations

import json

from tests.e2e.test_headless import env, run_cli, serve, work  # noqa: F401  (fixtures)
from tui_agent.providers.scripted import RedactedThinking, Reply, Text, Thinking, ToolUse


def test_max_thinking_tokens_reaches_the_request_and_thinking_blocks_go_back_unchanged(env, work):  # noqa: F811
    script = [
        Reply([Thinking("look first\n", "sig-α"), RedactedThinking("ENCRYPTED=="), ToolUse("Glob", {"pattern": "*.md"}, id="toolu_g")]),
        Reply([Text("one README")]),
    ]
    with serve(script, env) as server:
        proc = run_cli(["-p", "find docs", "--model", "claude-sonnet-4-5", "--max-thinking-tokens", "3000",
                        "--output-format", "stream-json", "--verbose"], env, work)
    assert proc.returncode == 0, proc.stderr
    first, second = server.model.requests
    assert first["thinking"] == {"type": "enabled", "budget_tokens": 3000}
    assert "interleaved-thinking-2025-05-14" in server.model.request_headers[0]["anthropic-beta"]
    assert json.dumps(second["messages"][1]["content"][:2], ensure_ascii=False) == json.dumps(
        [{"type": "thinking", "thinking": "look first\n", "signature": "sig-α"}, {"type": "redacted_thinking", "data": "ENCRYPTED=="}],
        ensure_ascii=False)
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assistant = next(m for m in lines if m["type"] == "assistant")
    assert assistant["message"]["content"][0]["type"] == "thinking"


def test_a_negative_budget_is_a_clear_error(env, work):  # noqa: F811
    proc = run_cli(["-p", "hi", "--max-thinking-tokens", "-5"], env, work)
    assert proc.returncode == 2 and "--max-thinking-tokens must not be negative" in proc.stderr


def test_p_context_prints_the_breakdown_without_asking_the_model(env, work):  # noqa: F811
    (work / "CLAUDE.md").write_text("Use tabs.\n" * 50)
    with serve([], env) as server:
        proc = run_cli(["-p", "/context", "--output-format", "json"], env, work)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.splitlines()[-1])
    assert result["num_turns"] == 0 and server.model.requests == []
    text = result["result"]
    assert text.startswith("## Context Usage") and "| System prompt |" in text and "| Autocompact buffer |" in text
    assert str(work / "CLAUDE.md") in text
