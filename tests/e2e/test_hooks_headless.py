"""Settings command hooks of every kind in `tui-agent -p` (the same dispatcher as the app and the SDK
protocol: core/hook_events.py). Real `tui-agent -p` processes, the scripted model on a loopback port."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

from tests.e2e.test_headless import env, run_cli, serve, work  # noqa: F401 (fixtures)
from tui_agent.providers.scripted import Reply, Text, ToolUse

HOOK = """\
import json, sys
data = json.load(sys.stdin)
open(sys.argv[1], "a").write(json.dumps(data) + "\\n")
event = data["hook_event_name"]
if event == "UserPromptSubmit":
    print("Context from the prompt hook.")  # plain stdout: context for the model
elif event == "Stop" and not data["stop_hook_active"]:
    print(json.dumps({"decision": "block", "reason": "Say it once more."}))
elif event == "PostToolUse":
    print(json.dumps({"continue": False, "stopReason": "No more tools today."}))
"""


def _settings(tmp_path: Path, log: Path) -> str:
    script = tmp_path / "hook.py"
    script.write_text(HOOK)
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(script))} {shlex.quote(str(log))}"
    events = ("SessionStart", "UserPromptSubmit", "PostToolUse", "Stop", "SessionEnd")
    return json.dumps({"hooks": {e: [{"hooks": [{"type": "command", "command": command}]}] for e in events}})


def _seen(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def test_prompt_and_stop_hooks_run_in_print_mode(env, work, tmp_path):
    log = tmp_path / "hooks.jsonl"
    script = [Reply([Text("first")]), Reply([Text("second")])]
    with serve(script, env) as server:
        proc = run_cli(["-p", "hi", "--output-format", "json", "--settings", _settings(tmp_path, log)], env, work)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["result"] == "second", "the Stop hook's block continued the conversation once"
    seen = _seen(log)
    assert [s["hook_event_name"] for s in seen] == ["SessionStart", "UserPromptSubmit", "Stop", "Stop", "SessionEnd"]
    assert seen[0]["source"] == "startup" and seen[1]["prompt"] == "hi"
    texts = [b["text"] for b in server.model.requests[0]["messages"][0]["content"]]
    assert texts == ["hi", "Context from the prompt hook."]
    assert server.model.requests[1]["messages"][-1]["content"][-1]["text"] == "Say it once more."


def test_continue_false_ends_a_print_run_with_the_reason(env, work, tmp_path):
    log = tmp_path / "hooks.jsonl"
    script = [Reply([ToolUse("Read", {"file_path": str(work / "README.md")}, id="rd")]), Reply([Text("never")])]
    with serve(script, env) as server:
        proc = run_cli(["-p", "read", "--output-format", "json", "--settings", _settings(tmp_path, log)], env, work)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["subtype"] == "success" and out["detail"] == "No more tools today." and len(server.model.requests) == 1
    assert "No more tools today." in proc.stderr
    assert "Stop" not in [s["hook_event_name"] for s in _seen(log)]


def test_session_start_says_resume_when_a_session_is_resumed(env, work, tmp_path):
    log = tmp_path / "hooks.jsonl"
    settings = _settings(tmp_path, log)
    with serve([Reply([Text("one")]), Reply([Text("one again")]), Reply([Text("two")])], env):
        first = run_cli(["-p", "hi", "--output-format", "json", "--settings", settings], env, work)
        session_id = json.loads(first.stdout)["session_id"]
        log.write_text("")
        second = run_cli(["-p", "more", "--output-format", "json", "--resume", session_id, "--settings", settings], env, work)
    assert second.returncode == 0, second.stderr
    starts = [s for s in _seen(log) if s["hook_event_name"] == "SessionStart"]
    assert [(s["source"], s["session_id"]) for s in starts] == [("resume", session_id)]
