"""The hook dispatcher (core/hook_events.py) with real command hooks: scripts in a temp folder, named in a
settings file, run as subprocesses by a real Agent on the scripted model."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

from tests.core.support import SleepRead, SleepWrite, assert_history_valid
from tui_agent.core.events import HookFinished, HookStarted, Notice
from tui_agent.core.hook_events import HOOK_EVENTS, HookDispatcher, dispatcher_of
from tui_agent.core.permission_types import PermissionAnswer
from tui_agent.core.permissions.hooks import HookSpec
from tui_agent.providers.scripted import Conversations, Reply, Text, ToolUse
from tui_agent.tools.agent import AgentTool
from tui_agent.tools.bash import BashTool

HOOK = """\
import json, sys
log, answers = sys.argv[1], sys.argv[2]
data = json.load(sys.stdin)
with open(log, "a") as f:
    f.write(json.dumps(data) + "\\n")
answer = json.load(open(answers)).get(data["hook_event_name"], {})
if isinstance(answer, list):  # one answer per call, the last one repeated
    done = sum(1 for line in open(log) if json.loads(line)["hook_event_name"] == data["hook_event_name"])
    answer = answer[min(done, len(answer)) - 1]
sys.stdout.write(answer.get("stdout", "") if isinstance(answer.get("stdout", ""), str) else json.dumps(answer["stdout"]))
sys.stderr.write(answer.get("stderr", ""))
sys.exit(answer.get("exit", 0))
"""


class Hooks:
    """A settings file whose every event runs one recording hook script; `answer(event, ...)` sets what it says."""

    def __init__(self, tmp: Path, events: tuple[str, ...] = HOOK_EVENTS, matcher: str = "") -> None:
        self.log = tmp / "hook-log.jsonl"
        self.answers = tmp / "answers.json"
        self.answers.write_text("{}")
        script = tmp / "hook.py"
        script.write_text(HOOK)
        command = " ".join(shlex.quote(str(p)) for p in (sys.executable, script, self.log, self.answers))
        self.settings = tmp / "hook-settings.json"
        self.settings.write_text(json.dumps({
            "permissions": {"allow": ["Bash"]},
            "hooks": {e: [{"matcher": matcher, "hooks": [{"type": "command", "command": command}]}] for e in events},
        }))

    def answer(self, event: str, *, stdout: Any = "", stderr: str = "", exit: int = 0) -> None:
        answers = json.loads(self.answers.read_text())
        answers[event] = {"stdout": stdout, "stderr": stderr, "exit": exit}
        self.answers.write_text(json.dumps(answers))

    def answers_in_turn(self, event: str, *outputs: Any) -> None:
        answers = json.loads(self.answers.read_text())
        answers[event] = [{"stdout": o} for o in outputs]
        self.answers.write_text(json.dumps(answers))

    @property
    def seen(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.log.read_text().splitlines()] if self.log.exists() else []

    def of(self, event: str) -> list[dict[str, Any]]:
        return [h for h in self.seen if h["hook_event_name"] == event]


def tools() -> list[Any]:
    return [AgentTool(), SleepRead(), SleepWrite(), BashTool()]


def last_user_texts(body: dict[str, Any]) -> list[str]:
    content = body["messages"][-1]["content"]
    return [content] if isinstance(content, str) else [b.get("text", "") for b in content if b.get("type") == "text"]


class TestThroughAnAgent:
    async def test_tool_prompt_and_session_events_carry_claude_codes_fields(self, make_harness, tmp_path):
        """One run: SessionStart, UserPromptSubmit (its context reaches the model), PreToolUse (replacing
        the input), PostToolUse (shown the input that RAN), PostToolUseFailure (the error), Stop (blocking
        once, so the conversation goes on with its reason); SessionEnd when the session closes."""
        hooks = Hooks(tmp_path)
        hooks.answer("UserPromptSubmit", stdout={"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "Hooked context."}})
        hooks.answer("PreToolUse", stdout={"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"command": "echo replaced"}}})
        hooks.answer("PostToolUse", stdout={"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "Post words."}})
        hooks.answers_in_turn("Stop", {"decision": "block", "reason": "Check once more."}, {})
        h = make_harness([
            Reply([ToolUse("Bash", {"command": "echo original"}, id="ok")]),
            Reply([ToolUse("Bash", {"command": "echo original"}, id="bad")]),
            Reply([Text("first done")]),
            Reply([Text("checked")]),
        ], tools=tools(), settings_file=hooks.settings)
        hooks.answer("PreToolUse", stdout={"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"command": "echo replaced"}}})
        ended = await h.agent.run("go")
        assert ended.reason == "completed" and ended.result == "checked"
        assert last_user_texts(h.requests[0]) == ["go", "Hooked context."]
        assert last_user_texts(h.requests[3]) == ["Check once more."]
        names = [e["hook_event_name"] for e in hooks.seen]
        assert names[:2] == ["SessionStart", "UserPromptSubmit"] and names[-2:] == ["Stop", "Stop"]
        base = {"session_id": h.agent.session.id, "transcript_path": str(h.agent.session.transcript_path), "cwd": str(tmp_path / "work"),
                "permission_mode": "default"}
        for seen in hooks.seen:
            assert {k: seen[k] for k in base} == base, seen
        assert hooks.of("SessionStart")[0]["source"] == "startup"
        assert hooks.of("UserPromptSubmit")[0]["prompt"] == "go"
        pre = hooks.of("PreToolUse")[0]
        assert (pre["tool_name"], pre["tool_input"], pre["tool_use_id"]) == ("Bash", {"command": "echo original"}, "ok")
        [post] = hooks.of("PostToolUse")[:1]
        assert post["tool_input"] == {"command": "echo replaced"}, "PostToolUse sees the input that ran"
        assert "replaced" in json.dumps(post["tool_response"]) and post["tool_use_id"] == "ok" and isinstance(post["duration_ms"], int)
        assert "Post words." in json.dumps(h.requests[1]["messages"][-1])
        assert [s["stop_hook_active"] for s in hooks.of("Stop")] == [False, True]
        assert hooks.of("Stop")[0]["last_assistant_message"] == "first done"
        assert_history_valid(h.agent.history)
        await h.agent.close()
        assert hooks.of("SessionEnd")[0]["reason"] == "other"

    async def test_a_failing_call_fires_post_tool_use_failure_with_its_error(self, make_harness, tmp_path):
        hooks = Hooks(tmp_path, ("PostToolUse", "PostToolUseFailure"), matcher="Bash")
        hooks.answer("PostToolUseFailure", stdout={"hookSpecificOutput": {"hookEventName": "PostToolUseFailure", "additionalContext": "Try exit 0."}})
        h = make_harness([Reply([ToolUse("Bash", {"command": "echo oops >&2; exit 3"}, id="bad")]), Reply([Text("ok")])],
                         tools=tools(), settings_file=hooks.settings)
        await h.agent.run("go")
        assert [e["hook_event_name"] for e in hooks.seen] == ["PostToolUseFailure"]
        failure = hooks.seen[0]
        assert failure["tool_input"] == {"command": "echo oops >&2; exit 3"} and failure["is_interrupt"] is False
        assert "3" in failure["error"] and "tool_response" not in failure
        result = h.requests[1]["messages"][-1]["content"][0]
        assert result["is_error"] and "Try exit 0." in json.dumps(result)

    async def test_continue_false_ends_the_run_after_the_tools_with_the_stop_reason(self, make_harness, tmp_path):
        hooks = Hooks(tmp_path, ("PostToolUse", "Stop"))
        hooks.answer("PostToolUse", stdout={"continue": False, "stopReason": "Enough for today.", "systemMessage": "Stopped by policy."})
        h = make_harness([Reply([ToolUse("SleepRead", {"text": "a"}, id="r")]), Reply([Text("never")])], tools=tools(), settings_file=hooks.settings)
        ended = await h.agent.run("go")
        assert (ended.reason, ended.detail) == ("completed", "Enough for today.")
        assert len(h.requests) == 1 and not hooks.of("Stop"), "no further request and no Stop hook, as in Claude Code"
        assert any(isinstance(e, Notice) and "Stopped by policy." in e.text for e in h.events)
        assert_history_valid(h.agent.history)

    async def test_user_prompt_submit_exit_2_blocks_the_prompt(self, make_harness, tmp_path):
        hooks = Hooks(tmp_path, ("UserPromptSubmit",))
        hooks.answer("UserPromptSubmit", stderr="No prompts on Sunday.", exit=2)
        h = make_harness([Reply([Text("never")])], tools=tools(), settings_file=hooks.settings)
        ended = await h.agent.run("hello")
        assert ended.reason == "aborted" and "No prompts on Sunday." in ended.detail
        assert h.requests == [] and h.agent.history == []

    async def test_permission_request_answers_the_ask_and_notification_is_sent(self, make_harness, tmp_path):
        hooks = Hooks(tmp_path, ("PermissionRequest", "Notification"))
        hooks.answer("PermissionRequest", stdout={"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}})
        asked: list[Any] = []

        async def ask(request: Any) -> PermissionAnswer:
            asked.append(request)
            return PermissionAnswer("deny")

        h = make_harness([Reply([ToolUse("SleepWrite", {"text": "w"}, id="w")]), Reply([Text("done")])], tools=tools(), ask=ask,
                         settings_file=hooks.settings)
        dispatcher_of(h.agent.context.services).notify_asks = True  # as the protocol front end wires it
        await h.agent.run("write")
        assert asked == [], "the hook answered in the person's place"
        assert not h.requests[1]["messages"][-1]["content"][0].get("is_error")
        note, request = hooks.of("Notification")[0], hooks.of("PermissionRequest")[0]
        assert note["notification_type"] == "permission_prompt" and "SleepWrite" in note["message"]
        assert (request["tool_name"], request["tool_input"]) == ("SleepWrite", {"text": "w"})

    async def test_subagent_start_and_stop_around_a_subagent(self, make_harness, tmp_path):
        hooks = Hooks(tmp_path, ("SubagentStart", "SubagentStop", "PreToolUse", "PostToolUse"))
        hooks.answer("SubagentStart", stdout={"hookSpecificOutput": {"hookEventName": "SubagentStart", "additionalContext": "Be brief."}})
        hooks.answers_in_turn("SubagentStop", {"decision": "block", "reason": "Name the file too."}, {})
        routes = Conversations({
            "MAIN": [Reply([ToolUse("Agent", {"description": "Look", "prompt": "TASK: please"}, id="toolu_ag")]), Reply([Text("all done")])],
            "TASK": [Reply([ToolUse("SleepRead", {"text": "x"}, id="child_read")]), Reply([Text("sub report")]), Reply([Text("sub report: x")])],
        })
        h = make_harness(routes, tools=tools(), settings_file=hooks.settings)
        await h.agent.run("MAIN: go")
        [start], [stop, stop_again] = hooks.of("SubagentStart"), hooks.of("SubagentStop")
        assert start["agent_id"] == stop["agent_id"] and start["agent_type"] == stop["agent_type"] == "general-purpose"
        assert stop["stop_hook_active"] is False and stop["last_assistant_message"] == "sub report"
        assert Path(stop["agent_transcript_path"]).is_file()  # side-chain lines live in the session's transcript
        assert last_user_texts(routes.requests["TASK"][2]) == ["Name the file too."], "a block continues the subagent"
        assert stop_again["stop_hook_active"] is True and stop_again["last_assistant_message"] == "sub report: x"
        assert "sub report: x" in json.dumps(routes.requests["MAIN"][1]["messages"][-1])
        assert "Be brief." in json.dumps(routes.requests["TASK"][0]["messages"][0])
        child_post = next(p for p in hooks.of("PostToolUse") if p["tool_use_id"] == "child_read")
        child_pre = next(p for p in hooks.of("PreToolUse") if p["tool_use_id"] == "child_read")
        assert child_post["agent_id"] == child_pre["agent_id"] == start["agent_id"], "a subagent's tool hooks say which subagent"
        assert child_pre["agent_type"] == "general-purpose"
        assert "agent_id" not in next(p for p in hooks.of("PreToolUse") if p["tool_use_id"] == "toolu_ag")
        main_post = next(p for p in hooks.of("PostToolUse") if p["tool_use_id"] == "toolu_ag")
        assert "agent_id" not in main_post

    async def test_pre_compact_and_session_start_after_a_compaction(self, make_harness, tmp_path):
        from tests.core.context.scripts import conversation, read_turn

        hooks = Hooks(tmp_path, ("PreCompact", "SessionStart"))
        handler, _seen = conversation([read_turn("o" * 8_000, 30_000), Reply([Text("answer")])])
        h = make_harness(handler, tools=tools(), settings_file=hooks.settings)
        await h.agent.run("first")
        finished = await h.agent.compact()
        assert finished.outcome == "compacted"
        assert [(e["hook_event_name"], e.get("source") or e.get("trigger")) for e in hooks.seen] == [
            ("SessionStart", "startup"), ("PreCompact", "manual"), ("SessionStart", "compact")]
        assert hooks.of("PreCompact")[0]["custom_instructions"] is None


    async def test_clear_ends_one_session_and_starts_another_at_the_next_prompt(self, make_harness, tmp_path):
        from tui_agent.core.hook_points import cleared

        hooks = Hooks(tmp_path, ("SessionStart", "SessionEnd"))
        h = make_harness([Reply([Text("one")]), Reply([Text("two")])], tools=tools(), settings_file=hooks.settings)
        await h.agent.run("first")
        h.agent.history.clear()
        cleared(h.agent)  # what the app's /clear does
        await h.agent.run("second")
        assert [(e["hook_event_name"], e.get("source") or e.get("reason")) for e in hooks.seen] == [
            ("SessionStart", "startup"), ("SessionEnd", "clear"), ("SessionStart", "clear")]


class TestTheDispatcher:
    def dispatcher(self, tmp_path: Path, *commands: tuple[str, str, str]) -> tuple[HookDispatcher, list[tuple[str, str]]]:
        notices: list[tuple[str, str]] = []
        specs = [HookSpec(matcher, command, 5.0, "test", event) for event, matcher, command in commands]
        return HookDispatcher(session_id=lambda: "s1", transcript_path=lambda: tmp_path / "t.jsonl", cwd=tmp_path,
                              permission_mode=lambda: "default", commands=lambda: specs,
                              on_notice=lambda level, text: notices.append((level, text))), notices

    async def test_answers_are_combined_deny_beats_ask_beats_allow(self, tmp_path):
        def says(decision: str) -> str:
            out = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": decision, "permissionDecisionReason": decision}}
            return f"echo {shlex.quote(json.dumps(out))}"

        d, _ = self.dispatcher(tmp_path, ("PreToolUse", "Bash", says("allow")), ("PreToolUse", "B.*", says("ask")), ("PreToolUse", "Read", says("deny")))
        outcome = (await d.fire("PreToolUse", tool_name="Bash", tool_input={}, tool_use_id="t")).permission()
        assert (outcome.decision, outcome.reason) == ("ask", "ask")
        d, _ = self.dispatcher(tmp_path, ("PreToolUse", "*", "echo no >&2; exit 2"), ("PreToolUse", "", says("allow")))
        outcome = (await d.fire("PreToolUse", tool_name="Read", tool_input={}, tool_use_id="t")).permission()
        assert (outcome.decision, outcome.reason) == ("deny", "no")

    async def test_matchers_follow_each_events_field(self, tmp_path):
        d, _ = self.dispatcher(tmp_path, ("Notification", "permission_prompt", "exit 2"), ("PreCompact", "auto", "exit 2"),
                               ("SessionStart", "resume", "echo resumed"))
        assert (await d.fire("Notification", message="m", notification_type="permission_prompt")).blocked
        assert not (await d.fire("Notification", message="m", notification_type="idle_prompt")).replies
        assert not (await d.fire("PreCompact", trigger="manual", custom_instructions=None)).replies
        assert (await d.fire("SessionStart", source="resume")).additional_context == ["resumed"]
        assert not (await d.fire("SessionStart", source="startup")).replies

    async def test_a_hook_that_answers_garbage_is_named_and_decides_nothing(self, tmp_path):
        d, notices = self.dispatcher(
            tmp_path,
            ("Stop", "", "echo '{not json'"),
            ("Stop", "", "echo '{\"continue\": \"perhaps\"}'"),
            ("Stop", "", "echo 'oops' >&2; exit 1"),
        )
        result = await d.fire("Stop", stop_hook_active=False)
        assert not result.blocked and result.stop_reason is None and result.replies == ()
        texts = [t for _, t in notices]
        assert any("invalid JSON" in t for t in texts)
        assert any("invalid output" in t and "continue" in t for t in texts)
        assert any("failed (exit 1): oops" in t for t in texts)

    async def test_block_stop_and_messages(self, tmp_path):
        out = {"decision": "block", "reason": "Not yet.", "continue": False, "stopReason": "Halt.", "systemMessage": "Careful.", "suppressOutput": True}
        d, notices = self.dispatcher(tmp_path, ("PostToolUse", "", f"echo {shlex.quote(json.dumps(out))}"))
        result = await d.fire("PostToolUse", tool_name="Bash", tool_input={}, tool_response="x", tool_use_id="t")
        assert result.blocked and result.reason == "Not yet." and result.stop_reason == "Halt." and result.suppress_output
        assert result.feedback() == "PostToolUse hook feedback: Not yet."
        assert ("warning", "Careful.") in notices


class TestHowCommandsRun:
    """Claude Code's command hooks: exec form beside shell form, per-hook timeouts that kill the whole tree,
    SessionStart's words reaching the model, and the HookStarted / HookFinished events the lanes draw."""

    async def test_session_start_exec_and_shell_forms_give_the_model_their_words(self, make_harness, tmp_path):
        exec_form = {"type": "command", "command": sys.executable,
                     "args": ["-c", "import json, sys; print('ARGS ' + json.dumps(sys.argv[1:]))", "${CLAUDE_PROJECT_DIR}/x", "$HOME `id` $(touch pwned)"]}
        as_json = {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "From JSON."}}
        shell_form = {"type": "command", "command": f"echo {shlex.quote(json.dumps(as_json))}"}
        settings = tmp_path / "s.json"
        settings.write_text(json.dumps({"hooks": {"SessionStart": [{"matcher": "startup", "hooks": [exec_form, shell_form]}]}}))
        h = make_harness([Reply([Text("ok")])], tools=tools(), settings_file=settings)
        project_dir = dispatcher_of(h.agent.context.services).project_dir
        ended = await h.agent.run("go")
        assert ended.reason == "completed"
        texts = last_user_texts(h.requests[0])
        # Claude Code's framing (measured: 2.1.197 sends these very lines for the same two hooks).
        assert texts[0] == "go" and "SessionStart hook additional context: From JSON." in texts
        args = json.dumps([f"{project_dir}/x", "$HOME `id` $(touch pwned)"])
        assert f"SessionStart:startup hook success: ARGS {args}" in texts, texts
        assert not (tmp_path / "work" / "pwned").exists(), "the exec form runs no shell"
        started = [e for e in h.events if isinstance(e, HookStarted)]
        finished = {e.id: e for e in h.events if isinstance(e, HookFinished)}
        assert sorted(e.event for e in started) == ["SessionStart", "SessionStart"]
        assert any(e.command.startswith(shlex.quote(sys.executable) + " -c") for e in started)
        assert all(finished[e.id].status == "ok" and finished[e.id].t_end >= e.t for e in started)
        await h.agent.close()

    async def test_a_hook_past_its_timeout_is_killed_with_its_children_and_named(self, tmp_path):
        import psutil

        pids = tmp_path / "pids"
        command = f"sleep 300 & echo $! > {pids}; echo $$ >> {pids}; wait"
        notices: list[tuple[str, str]] = []
        events: list[Any] = []
        spec = HookSpec("", command, 0.5, "test settings", "Stop")
        d = HookDispatcher(session_id=lambda: "s1", transcript_path=lambda: tmp_path / "t.jsonl", cwd=tmp_path,
                           permission_mode=lambda: "default", commands=lambda: [spec],
                           on_notice=lambda level, text: notices.append((level, text)))
        d.on_event = events.append
        result = await d.fire("Stop", stop_hook_active=False)
        assert not result.blocked and result.replies == ()
        assert [(level, text) for level, text in notices] == [
            ("error", f"Stop hook `{command}` (test settings) timed out after 0.5 s and was stopped.")]
        for pid in map(int, pids.read_text().split()):
            assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE, pid
        [started, finished] = events
        assert isinstance(started, HookStarted) and isinstance(finished, HookFinished)
        assert (finished.status, finished.event, finished.command) == ("error", "Stop", command)
        assert finished.t_end - finished.t_start >= 0.5

    async def test_exit_2_is_drawn_as_a_block(self, tmp_path):
        events: list[Any] = []
        spec = HookSpec("", "echo no >&2; exit 2", 5.0, "test", "UserPromptSubmit")
        d = HookDispatcher(session_id=lambda: "s1", transcript_path=lambda: tmp_path / "t.jsonl", cwd=tmp_path,
                           permission_mode=lambda: "default", commands=lambda: [spec])
        d.on_event = events.append
        assert (await d.fire("UserPromptSubmit", prompt="x")).blocked
        assert [type(e).__name__ for e in events] == ["HookStarted", "HookFinished"] and events[1].status == "denied"
