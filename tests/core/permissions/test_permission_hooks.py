"""PreToolUse hooks, run as real subprocesses from settings files."""

from __future__ import annotations

import json
import shlex
import sys
import time
from pathlib import Path
from typing import Any

from tui_agent.core.permissions import HookSpec


def hook_script(env, name: str, body: str) -> str:
    """A Python hook script; the command line runs it with this interpreter."""
    path = env.outside / f"{name}.py"
    path.write_text("import json, sys, time\n" + body)
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(path))}"


def hooks_settings(*groups: tuple[str, str, float | None], permissions: dict[str, Any] | None = None) -> dict[str, Any]:
    pre = [
        {"matcher": matcher, "hooks": [{"type": "command", "command": command, **({"timeout": t} if t else {})}]}
        for matcher, command, t in groups
    ]
    return {"hooks": {"PreToolUse": pre}, "permissions": permissions or {}}


def json_decision(decision: str, reason: str = "") -> str:
    out = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": decision, "permissionDecisionReason": reason}}
    return f"print(json.dumps({out!r}))\n"


async def test_hook_gets_the_call_on_stdin(env) -> None:
    dump = env.outside / "payload.json"
    cmd = hook_script(env, "dump", f"open({str(dump)!r}, 'w').write(sys.stdin.read())\n")
    env.write(env.project_settings, hooks_settings(("Bash", cmd, None)))
    engine = env.engine(session_id="sess-1")
    await engine.decide(env.check("Bash", command="ls -la"))
    assert json.loads(dump.read_text()) == {  # Claude Code's PreToolUse input (an engine alone has no transcript)
        "session_id": "sess-1",
        "transcript_path": "",
        "hook_event_name": "PreToolUse",
        "permission_mode": "default",
        "tool_name": "Bash",
        "tool_input": {"command": "ls -la"},
        "tool_use_id": "toolu_1",
        "cwd": str(env.project),
    }


async def test_exit_2_blocks_with_stderr(env) -> None:
    cmd = hook_script(env, "block", "sys.stderr.write('no curl please\\n'); sys.exit(2)\n")
    env.write(env.project_settings, hooks_settings(("Bash", cmd, None), permissions={"allow": ["Bash"]}))
    engine = env.engine()
    decision = await engine.decide(env.check("Bash", "toolu_h", command="curl x"))
    assert (decision.behavior, decision.message) == ("deny", "no curl please")
    assert "PreToolUse hook" in decision.source
    assert engine.denials[0]["tool_use_id"] == "toolu_h"


async def test_json_decisions(env) -> None:
    for decision, behavior_for_read, behavior_for_edit in (("deny", "deny", "deny"), ("ask", "ask", "ask"), ("allow", "allow", "allow")):
        cmd = hook_script(env, f"json_{decision}", json_decision(decision, f"because {decision}"))
        env.write(env.project_settings, hooks_settings(("", cmd, None)))
        engine = env.engine()
        read = await engine.decide(env.check("Read", file_path="src/a.py"))
        edit = await engine.decide(env.check("Edit", file_path="src/a.py"))
        assert (read.behavior, edit.behavior) == (behavior_for_read, behavior_for_edit), decision
        if decision != "allow":
            assert read.message == f"because {decision}"


async def test_legacy_json(env) -> None:
    block = hook_script(env, "legacy_block", "print(json.dumps({'decision': 'block', 'reason': 'legacy no'}))\n")
    env.write(env.project_settings, hooks_settings(("Edit|Write", block, None)))
    engine = env.engine()
    decision = await engine.decide(env.check("Write", file_path="src/x"))
    assert (decision.behavior, decision.message) == ("deny", "legacy no")
    assert (await engine.decide(env.check("Bash", command="ls"))).behavior == "allow"  # matcher didn't match
    approve = hook_script(env, "legacy_ok", "print(json.dumps({'decision': 'approve'}))\n")
    env.write(env.project_settings, hooks_settings(("Edit|Write", approve, None)))
    assert (await env.engine().decide(env.check("Write", file_path="src/x"))).behavior == "allow"


async def test_hook_allow_never_beats_deny_rule_or_plan(env) -> None:
    cmd = hook_script(env, "allow", json_decision("allow"))
    env.write(env.project_settings, hooks_settings(("*", cmd, None), permissions={"deny": ["Bash(rm *)"]}))
    engine = env.engine()
    assert (await engine.decide(env.check("Bash", command="rm -rf x"))).behavior == "deny"
    assert (await engine.decide(env.check("Bash", command="mv a b"))).behavior == "allow"
    engine.mode = "plan"
    assert (await engine.decide(env.check("Bash", command="mv a b"))).behavior == "deny"


async def test_plain_output_and_failures(env) -> None:
    chatty = hook_script(env, "chatty", "print('just saying')\n")
    failing = hook_script(env, "failing", "sys.stderr.write('oops'); sys.exit(1)\n")
    env.write(env.project_settings, hooks_settings(("Bash", chatty, None), ("Bash", failing, None)))
    engine = env.engine()
    assert (await engine.decide(env.check("Bash", command="mv a b"))).behavior == "ask"
    assert (await engine.decide(env.check("Bash", command="ls"))).behavior == "allow"
    warnings = env.warnings()
    assert len(warnings) == 2 and all("failed (exit 1): oops" in w for w in warnings)


async def test_timeout_kills_the_process_group(env) -> None:
    marker = env.outside / "survived"
    # The hook starts a child that would write the marker later; killing the group must stop it too.
    child = hook_script(env, "child", f"time.sleep(1.5)\nopen({str(marker)!r}, 'w')\n")
    cmd = hook_script(env, "slow", f"import subprocess\nsubprocess.Popen({child!r}, shell=True)\ntime.sleep(30)\n")
    env.write(env.project_settings, hooks_settings(("Bash", cmd, 0.5)))
    engine = env.engine()
    start = time.monotonic()
    decision = await engine.decide(env.check("Bash", command="mv a b"))
    assert time.monotonic() - start < 20  # the hook's own sleep (30 s) was not waited out
    assert decision.behavior == "ask"
    assert [level for level, text in env.notices if "timed out after 0.5 s" in text] == ["error"]
    time.sleep(1.5)
    assert not marker.exists()


async def test_matching_hooks_run_in_parallel(env) -> None:
    # A rendezvous, not a stopwatch: each hook waits until the other has started, so run one after the
    # other the first would give up waiting (and the deny would never come).
    def meeting(me: str, other: str, then: str) -> str:
        here, there = env.outside / me, env.outside / other
        return (f"import pathlib\npathlib.Path({str(here)!r}).touch()\nend = time.monotonic() + 20\n"
                f"while not pathlib.Path({str(there)!r}).exists() and time.monotonic() < end:\n    time.sleep(0.01)\n"
                f"if pathlib.Path({str(there)!r}).exists():\n    {then}\n")
    sleepy = hook_script(env, "sleepy", meeting("sleepy-started", "deny-started", "pass"))
    deny = hook_script(env, "deny_late", meeting("deny-started", "sleepy-started", "sys.stderr.write('late no'); sys.exit(2)"))
    env.write(env.project_settings, hooks_settings(("Bash", sleepy, None), ("B.*", deny, None), ("Read", sleepy, None)))
    decision = await env.engine().decide(env.check("Bash", command="ls"))
    assert (decision.behavior, decision.message) == ("deny", "late no")


def test_matcher_forms() -> None:
    def spec(matcher: str) -> HookSpec:
        return HookSpec(matcher, "true", 60, "test")

    assert spec("").applies_to("Bash") and spec("*").applies_to("Edit")
    assert spec("Edit|Write").applies_to("Write") and not spec("Edit|Write").applies_to("Bash")
    assert spec("Notebook.*").applies_to("NotebookEdit") and not spec("Notebook.*").applies_to("Read")
    assert not spec("Bash").applies_to("BashOutput")


def test_hook_timeout_default_and_source(env) -> None:
    env.write(env.user_settings, hooks_settings(("Bash", "true", None), ("Edit", "true", 5)))
    hooks = env.engine().settings.hooks
    assert [(h.timeout, h.source) for h in hooks] == [(60.0, str(env.user_settings)), (5.0, str(env.user_settings))]
    assert Path(hooks[0].source).name == "settings.json"
