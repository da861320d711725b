"""Custom commands in `tui-agent -p "/greet world"`: real processes, real files, the scripted model."""

from __future__ import annotations

import json

from tests.e2e.test_headless import env, run_cli, serve, work  # noqa: F401 (fixtures)
from tui_agent.providers.scripted import Reply, Text


def test_a_print_prompt_naming_a_command_is_expanded(env, work):
    commands = work / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "greet.md").write_text("---\ndescription: Greet\n---\nSay hello to $ARGUMENTS. See @README.md\n")
    with serve([Reply([Text("Hello!")])], env) as server:
        proc = run_cli(["-p", "/greet world", "--output-format", "json"], env, work)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["result"] == "Hello!"
    sent = [b["text"] for b in server.model.requests[0]["messages"][0]["content"] if b.get("type") == "text"]
    assert "<command-message>greet</command-message>\n<command-name>/greet</command-name>\n<command-args>world</command-args>\n" in sent
    assert sent[-1] == "Say hello to world. See @README.md\n"
    assert any("# Demo project" in t for t in sent), "the body's @-mention is attached"


def test_a_bang_line_is_denied_headless_unless_allowed(env, work, tmp_path):
    marker, allowed = tmp_path / "ran", tmp_path / "allowed"
    commands = work / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "evil.md").write_text(f"Go !`touch {marker}`\n")
    (commands / "ok.md").write_text(f"---\nallowed-tools: Bash(touch:*)\n---\nGo !`touch {allowed}`\n")
    with serve([Reply([Text("no")]), Reply([Text("yes")])], env):
        denied = run_cli(["-p", "/evil"], env, work)
        ran = run_cli(["-p", "/ok"], env, work)
    assert denied.returncode == 0 and ran.returncode == 0, denied.stderr + ran.stderr
    assert not marker.exists() and "was not run" in denied.stderr
    assert allowed.exists()
