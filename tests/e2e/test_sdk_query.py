"""`query()` of the real claude-agent-sdk with `cli_path` set to tui-agent: one-shot runs, the
`can_use_tool` callback, hooks, flags the SDK passes. The scripted model answers on a loopback port."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from claude_agent_sdk import (
    AssistantMessage,
    HookMatcher,
    PermissionResultAllow,
    PermissionResultDeny,
    ResultError,
    ResultMessage,
    StreamEvent,
    SystemMessage,
    ToolPermissionContext,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
    query,
)

from tests.e2e.sdk_support import result_text
from tui_agent.providers.scripted import Reply, Text, ToolUse


async def collect(prompt: str, options: Any) -> list[Any]:
    return [m async for m in query(prompt=prompt, options=options)]


class TestOneShot:
    async def test_query_runs_tools_and_ends_with_one_success_result(self, make_run):
        """init first, the assistant's tool calls, their results as a user message, the answer, one result."""
        run = make_run([])
        readme = str(run.work / "README.md")
        run.model._script = [
            Reply([Text("Looking."), ToolUse("Read", {"file_path": readme}, id="read"), ToolUse("Glob", {"pattern": "**/*.py"}, id="glob")]),
            Reply([Text("One Python file; the README says hello.")]),
        ]
        messages = await collect("look around", run.options())

        assert isinstance(messages[0], SystemMessage) and messages[0].subtype == "init"
        init = messages[0].data
        assert init["cwd"] == str(run.work) and "Read" in init["tools"] and init["permissionMode"] == "default"
        assert init["model"] and init["session_id"] and init["claude_code_version"]
        calls = [b for m in messages if isinstance(m, AssistantMessage) for b in m.content if isinstance(b, ToolUseBlock)]
        assert [(c.id, c.name) for c in calls] == [("read", "Read"), ("glob", "Glob")]
        results = {b.tool_use_id: b for m in messages if isinstance(m, UserMessage) and isinstance(m.content, list) for b in m.content if isinstance(b, ToolResultBlock)}
        assert "Demo project" in str(results["read"].content) and "a.py" in str(results["glob"].content)
        assistant = [m for m in messages if isinstance(m, AssistantMessage)]
        assert all(m.model == "claude-sonnet-4-6" and m.message_id for m in assistant)
        assert assistant[0].stop_reason == "tool_use" and assistant[-1].stop_reason == "end_turn"
        result = messages[-1]
        assert isinstance(result, ResultMessage) and sum(isinstance(m, ResultMessage) for m in messages) == 1
        assert result.subtype == "success" and not result.is_error and result.num_turns == 2
        assert result.result == "One Python file; the README says hello."
        assert result.session_id == init["session_id"] and result.total_cost_usd is not None

    async def test_the_sdk_default_empty_system_prompt_sends_no_system_prompt(self, make_run):
        run = make_run([Reply([Text("hi")])])
        await collect("hello", run.options())
        assert "system" not in run.requests[0]

    async def test_a_system_prompt_from_the_program_is_the_whole_system_prompt(self, make_run):
        run = make_run([Reply([Text("hi")])])
        await collect("hello", run.options(system_prompt="You answer in haiku."))
        assert [b["text"] for b in run.requests[0]["system"]] == ["You answer in haiku."]


class TestCanUseTool:
    async def test_deny_reaches_the_model_and_a_second_write_runs_with_the_programs_input(self, make_run):
        """What asks in the app asks the program: a Write (denied, with words the model gets), then a
        second Write (allowed, with the program's own input, validated again)."""
        run = make_run([])
        first, second = run.work / "first.txt", run.work / "second.txt"
        run.model._script = [
            Reply([ToolUse("Write", {"file_path": str(first), "content": "one\n"}, id="w1")]),
            Reply([ToolUse("Write", {"file_path": str(second), "content": "two\n"}, id="w2")]),
            Reply([Text("Wrote second.txt.")]),
        ]
        asked: list[tuple[str, dict[str, Any], str | None]] = []

        async def can_use_tool(name: str, tool_input: dict[str, Any], ctx: ToolPermissionContext):
            asked.append((name, tool_input, ctx.tool_use_id))
            if len(asked) == 1:
                return PermissionResultDeny(message="Not first.txt: write second.txt instead.")
            return PermissionResultAllow(updated_input={**tool_input, "content": "two, as the program wrote it\n"})

        messages = await collect("write something", run.options(can_use_tool=can_use_tool))

        assert [(n, i) for n, _, i in asked] == [("Write", "w1"), ("Write", "w2")]
        assert asked[0][1] == {"file_path": str(first), "content": "one\n"}
        assert not first.exists()
        assert second.read_text() == "two, as the program wrote it\n"
        denied = run.tool_results(1)["w1"]
        assert denied["is_error"] and "Not first.txt: write second.txt instead." in result_text(denied)
        assert not run.tool_results(2)["w2"].get("is_error")
        result = messages[-1]
        assert isinstance(result, ResultMessage) and result.subtype == "success"
        assert [d["tool_use_id"] for d in result.permission_denials] == ["w1"]

    async def test_a_read_outside_the_workspace_asks_the_program_and_runs_when_allowed(self, make_run, tmp_path):
        outside = tmp_path / "outside"
        outside.mkdir()
        (outside / "notes.txt").write_text("the secret is 42\n")
        run = make_run([Reply([ToolUse("Read", {"file_path": str(outside / "notes.txt")}, id="r1")]), Reply([Text("42.")])])
        asked: list[str] = []

        async def can_use_tool(name: str, tool_input: dict[str, Any], ctx: ToolPermissionContext):
            asked.append(name)
            return PermissionResultAllow()

        await collect("read my notes", run.options(can_use_tool=can_use_tool))
        assert asked == ["Read"]
        assert "the secret is 42" in result_text(run.tool_results(1)["r1"])

    async def test_allow_with_a_session_rule_is_not_asked_again(self, make_run):
        from claude_agent_sdk.types import PermissionRuleValue, PermissionUpdate

        run = make_run([])
        run.model._script = [
            Reply([ToolUse("Bash", {"command": "touch one.txt"}, id="b1")]),
            Reply([ToolUse("Bash", {"command": "touch two.txt"}, id="b2")]),
            Reply([Text("both")]),
        ]
        asked: list[str] = []

        async def can_use_tool(name: str, tool_input: dict[str, Any], ctx: ToolPermissionContext):
            asked.append(tool_input["command"])
            rule = PermissionUpdate(type="addRules", rules=[PermissionRuleValue(tool_name="Bash", rule_content="touch *")],
                                    behavior="allow", destination="session")
            return PermissionResultAllow(updated_permissions=[rule])

        await collect("echo twice", run.options(can_use_tool=can_use_tool))
        assert asked == ["touch one.txt"]
        assert (run.work / "one.txt").exists() and (run.work / "two.txt").exists()

    async def test_an_updated_input_that_is_invalid_is_an_error_result_and_nothing_runs(self, make_run):
        run = make_run([])
        target = run.work / "x.txt"
        run.model._script = [Reply([ToolUse("Write", {"file_path": str(target), "content": "x"}, id="w")]), Reply([Text("ok")])]

        async def can_use_tool(name: str, tool_input: dict[str, Any], ctx: ToolPermissionContext):
            return PermissionResultAllow(updated_input={"file_path": str(target), "contents": 3})

        await collect("write", run.options(can_use_tool=can_use_tool))
        block = run.tool_results(1)["w"]
        assert block["is_error"] and "`content` is missing" in result_text(block)
        assert not target.exists()

    async def test_deny_with_interrupt_ends_the_turn_as_interrupted(self, make_run):
        run = make_run([])
        run.model._script = [Reply([ToolUse("Write", {"file_path": str(run.work / "x.txt"), "content": "x"}, id="w")]), Reply([Text("never")])]

        async def can_use_tool(name: str, tool_input: dict[str, Any], ctx: ToolPermissionContext):
            return PermissionResultDeny(message="stop everything", interrupt=True)

        # A result that is an error makes the SDK raise after it; collect until then.
        seen: list[Any] = []
        with pytest.raises(ResultError) as raised:
            async for m in query(prompt="write", options=run.options(can_use_tool=can_use_tool)):
                seen.append(m)
        assert raised.value.subtype == "error_during_execution"
        result = seen[-1]
        assert isinstance(result, ResultMessage) and result.subtype == "error_during_execution" and result.is_error
        assert len(run.requests) == 1, "the model is not asked again after an interrupting deny"


class TestHooks:
    async def test_pre_tool_use_callback_blocks_and_post_tool_use_callback_sees_the_output(self, make_run):
        run = make_run([])
        readme = str(run.work / "README.md")
        run.model._script = [
            Reply([ToolUse("Bash", {"command": "echo ran > ran.txt"}, id="sh"), ToolUse("Read", {"file_path": readme}, id="rd")]),
            Reply([Text("Done.")]),
        ]
        pre_seen: list[dict[str, Any]] = []
        post_seen: list[dict[str, Any]] = []

        async def block_shell(hook_input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
            pre_seen.append(hook_input)
            return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                           "permissionDecisionReason": "No shell in this test."}}

        async def after_read(hook_input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
            post_seen.append(hook_input)
            return {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "The program checked this file."}}

        hooks = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[block_shell])],
                 "PostToolUse": [HookMatcher(matcher="Read|Grep", hooks=[after_read])]}
        messages = await collect("go", run.options(hooks=hooks, allowed_tools=["Bash"]))

        assert not (run.work / "ran.txt").exists()
        assert [h["tool_name"] for h in pre_seen] == ["Bash"], "the matcher keeps the Read from the Bash hook"
        pre = pre_seen[0]
        assert pre["hook_event_name"] == "PreToolUse" and pre["tool_input"] == {"command": "echo ran > ran.txt"}
        assert pre["tool_use_id"] == "sh" and pre["permission_mode"] == "default" and pre["cwd"] == str(run.work)
        assert Path(pre["transcript_path"]).is_file() and pre["session_id"] == messages[-1].session_id
        blocked = run.tool_results(1)["sh"]
        assert blocked["is_error"] and "No shell in this test." in result_text(blocked)
        [post] = post_seen
        assert post["hook_event_name"] == "PostToolUse" and post["tool_name"] == "Read" and post["tool_use_id"] == "rd"
        assert "Demo project" in json.dumps(post["tool_response"])
        assert "The program checked this file." in result_text(run.tool_results(1)["rd"])
        assert [d["tool_use_id"] for d in messages[-1].permission_denials] == ["sh"]

    async def test_pre_tool_use_callback_may_approve_what_would_ask(self, make_run):
        run = make_run([])
        run.model._script = [Reply([ToolUse("Write", {"file_path": str(run.work / "ok.txt"), "content": "ok\n"}, id="w")]), Reply([Text("ok")])]

        async def approve(hook_input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
            return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}

        await collect("write", run.options(hooks={"PreToolUse": [HookMatcher(matcher=None, hooks=[approve])]}))
        assert (run.work / "ok.txt").read_text() == "ok\n"


class TestPromptHooks:
    async def test_user_prompt_submit_adds_context_and_stop_continues_once(self, make_run):
        """UserPromptSubmit sees the prompt and adds words the model gets with it; a Stop callback that
        blocks once continues the conversation with its reason, and the prompt still has one result."""
        run = make_run([Reply([Text("First answer.")]), Reply([Text("Checked again: all good.")])])
        seen: list[dict[str, Any]] = []

        async def on_prompt(hook_input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
            seen.append(hook_input)
            return {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "The user's name is Ada."}}

        async def on_stop(hook_input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
            seen.append(hook_input)
            if hook_input["stop_hook_active"]:
                return {}
            return {"decision": "block", "reason": "Double-check your answer before stopping."}

        hooks = {"UserPromptSubmit": [HookMatcher(hooks=[on_prompt])], "Stop": [HookMatcher(hooks=[on_stop])]}
        messages = await collect("how are things?", run.options(hooks=hooks))

        assert [(h["hook_event_name"], h.get("prompt"), h.get("stop_hook_active")) for h in seen] == [
            ("UserPromptSubmit", "how are things?", None), ("Stop", None, False), ("Stop", None, True)]
        first = run.requests[0]["messages"][0]["content"]
        assert [b["text"] for b in first] == ["how are things?", "The user's name is Ada."]
        assert run.requests[1]["messages"][-1]["content"][-1]["text"] == "Double-check your answer before stopping."
        results = [m for m in messages if isinstance(m, ResultMessage)]
        assert len(results) == 1 and results[0].result == "Checked again: all good."
        assert sum(isinstance(m, SystemMessage) and m.subtype == "init" for m in messages) == 1

    async def test_user_prompt_submit_may_block_the_prompt(self, make_run):
        run = make_run([Reply([Text("never sent")])])

        async def block(hook_input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
            return {"decision": "block", "reason": "No questions about the weather."}

        seen: list[Any] = []
        with pytest.raises(ResultError, match="No questions about the weather"):
            async for m in query(prompt="weather?", options=run.options(hooks={"UserPromptSubmit": [HookMatcher(hooks=[block])]})):
                seen.append(m)
        assert run.requests == [] and isinstance(seen[-1], ResultMessage) and seen[-1].is_error


class TestSettingsCommandHooks:
    async def test_a_post_tool_use_command_hook_from_settings_json_sees_the_output_and_adds_words(self, make_run, tmp_path):
        """`settings` as a JSON string (as the SDK passes it) with a PostToolUse command hook: the hook
        gets Claude Code's input on stdin, tool_response included, and its additionalContext reaches
        the model with the result. The same hooks run in -p and the app (they are the engine's)."""
        import shlex
        import sys

        dump = tmp_path / "post.json"
        script = tmp_path / "post_hook.py"
        script.write_text(
            "import json, sys\n"
            f"open({str(dump)!r}, 'w').write(sys.stdin.read())\n"
            "print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PostToolUse', 'additionalContext': 'Linted: fine.'}}))\n"
        )
        command = f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"
        settings = {"hooks": {"PostToolUse": [{"matcher": "Read", "hooks": [{"type": "command", "command": command}]}]}}
        run = make_run([])
        readme = str(run.work / "README.md")
        run.model._script = [Reply([ToolUse("Read", {"file_path": readme}, id="rd")]), Reply([Text("ok")])]
        await collect("read", run.options(settings=json.dumps(settings)))
        payload = json.loads(dump.read_text())
        assert (payload["hook_event_name"], payload["tool_name"], payload["tool_use_id"]) == ("PostToolUse", "Read", "rd")
        assert payload["tool_input"] == {"file_path": readme} and "Demo project" in json.dumps(payload["tool_response"])
        assert result_text(run.tool_results(1)["rd"]).endswith("Linted: fine.")


class TestFlagsAndModes:
    async def test_the_flags_tui_agent_acts_on_take_effect_and_the_others_are_named_once(self, make_run, tmp_path):
        """One run with every flag the SDK passes. Each acted-on flag shows in what the model was sent or in
        what the tool calls did; each call that no flag or settings file covers asks the program (denied)."""
        run = make_run([])
        added, other = tmp_path / "added", tmp_path / "other"
        for folder in (added, other):
            folder.mkdir()
            (folder / "notes.txt").write_text(f"notes of {folder.name}\n")
        (run.work / ".claude").mkdir()
        (run.work / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"allow": ["Bash(mkdir from_project)"]}}))
        (run.work / ".claude" / "settings.local.json").write_text(json.dumps({"permissions": {"allow": ["Bash(mkdir from_local)"]}}))
        calls = {
            "touch": ("Bash", {"command": "touch by_rule.txt"}),  # allowed_tools
            "mkdir": ("Bash", {"command": "mkdir from_flag"}),  # allowed_tools, its second rule
            "unlisted": ("Bash", {"command": "mkdir unlisted"}),  # no rule: asks
            "rm": ("Bash", {"command": "rm README.md"}),  # denied by --settings, never asked
            "project": ("Bash", {"command": "mkdir from_project"}),  # project settings are read
            "local": ("Bash", {"command": "mkdir from_local"}),  # local settings are not: asks
            "added": ("Read", {"file_path": str(added / "notes.txt")}),  # add_dirs: read without asking
            "other": ("Read", {"file_path": str(other / "notes.txt")}),  # not added: asks
            "write": ("Write", {"file_path": str(run.work / "new.txt"), "content": "new\n"}),  # acceptEdits
            "grep": ("Grep", {"pattern": "hello"}),  # disallowed_tools: denied, never asked
        }
        run.model._script = [Reply([ToolUse(name, args, id=key) for key, (name, args) in calls.items()]),
                             Reply([Text("fine"), ToolUse("StructuredOutput", {"verdict": "fine"}, id="so")])]
        asked: list[str] = []

        async def can_use_tool(name: str, tool_input: dict[str, Any], ctx: ToolPermissionContext):
            asked.append(ctx.tool_use_id or "")
            return PermissionResultDeny(message="not asked for")

        options = run.options(
            can_use_tool=can_use_tool,
            tools=["Read", "Grep", "Bash", "Write"], allowed_tools=["Bash(touch *)", "Bash(mkdir from_flag)"],
            disallowed_tools=["Grep"], max_turns=3, max_budget_usd=5.0, model="claude-haiku-4-5", fallback_model="claude-sonnet-4-5",
            permission_mode="acceptEdits", settings=json.dumps({"permissions": {"deny": ["Bash(rm *)"]}}),
            add_dirs=[str(added)],
            include_partial_messages=True, include_hook_events=True, setting_sources=["user", "project"],
            thinking={"type": "enabled", "budget_tokens": 2048}, effort="high", betas=["context-1m-2025-08-07"],
            output_format={"type": "json_schema", "schema": {"type": "object"}}, plugins=[{"type": "local", "path": str(tmp_path)}],
        )
        messages = await collect("hi", options)

        result = messages[-1]
        assert isinstance(result, ResultMessage) and result.subtype == "success" and result.result == '{"verdict":"fine"}'
        assert result.structured_output == {"verdict": "fine"}, "output_format: the StructuredOutput call is the result"
        first = run.requests[0]
        assert first["model"] == "claude-haiku-4-5"
        assert first["thinking"] == {"type": "enabled", "budget_tokens": 2048}
        # --tools chooses the tools; --disallowedTools Grep denies its calls (tui-agent still lists it).
        assert sorted(t["name"] for t in first["tools"]) == ["Bash", "Grep", "Read", "StructuredOutput", "Write"]
        assert sorted(messages[0].data["tools"]) == ["Bash", "Grep", "Read", "StructuredOutput", "Write"]
        assert messages[0].data["permissionMode"] == "acceptEdits"
        assert any(isinstance(m, StreamEvent) for m in messages), "include_partial_messages streams events"
        assert sorted(asked) == ["local", "other", "unlisted"]
        results = run.tool_results(1)
        assert [k for k in calls if results[k].get("is_error")] == ["unlisted", "rm", "local", "other", "grep"]
        assert (run.work / "by_rule.txt").exists() and (run.work / "from_flag").is_dir() and (run.work / "from_project").is_dir()
        assert not (run.work / "unlisted").exists() and not (run.work / "from_local").exists()
        assert (run.work / "README.md").exists() and "Bash(rm *) in --settings" in result_text(results["rm"])
        assert "Grep in --disallowedTools" in result_text(results["grep"])
        assert "notes of added" in result_text(results["added"])
        assert (run.work / "new.txt").read_text() == "new\n"
        assert sorted(d["tool_use_id"] for d in result.permission_denials) == ["grep", "local", "other", "rm", "unlisted"]
        notes = "\n".join(run.stderr)
        for flag in ("--fallback-model", "--include-hook-events",
                     "--effort", "--betas", "--plugin-dir"):
            assert notes.count(f"{flag} is accepted") == 1, flag
        for flag in ("--setting-sources", "--max-thinking-tokens", "--max-turns", "--max-budget-usd", "--add-dir", "--json-schema"):
            assert f"{flag} is accepted" not in notes, flag

    @staticmethod
    def looping(body: dict[str, Any], index: int) -> Reply:
        """A model that calls a tool on every turn, never answering."""
        return Reply([ToolUse("Glob", {"pattern": "*.md"}, id=f"g{index}")])

    @staticmethod
    async def ended_with_error(run: Any, **options: Any) -> tuple[ResultError, list[Any]]:
        """The ResultError a looping run's query raises, and every message it gave before."""
        seen: list[Any] = []
        with pytest.raises(ResultError) as raised:
            async for m in query(prompt="loop", options=run.options(**options)):
                seen.append(m)
        return raised.value, seen

    async def test_max_turns_ends_a_looping_run_with_error_max_turns(self, make_run):
        run = make_run(self.looping)
        error, seen = await self.ended_with_error(run, max_turns=2)
        assert error.subtype == "error_max_turns"
        assert isinstance(seen[-1], ResultMessage) and seen[-1].subtype == "error_max_turns" and seen[-1].num_turns == 2
        assert len(run.requests) == 2

    async def test_max_budget_usd_ends_the_run_once_spent(self, make_run):
        run = make_run(self.looping)
        error, seen = await self.ended_with_error(run, max_budget_usd=0.0001)
        assert error.subtype == "error_max_budget_usd"
        result = seen[-1]
        assert isinstance(result, ResultMessage) and result.subtype == "error_max_budget_usd"
        assert len(run.requests) == 1 and result.total_cost_usd >= 0.0001

    async def test_partial_messages_stream_the_text_as_it_arrives(self, make_run):
        run = make_run([Reply([Text("streamed in small pieces")], chunk=5)])
        messages = await collect("hi", run.options(include_partial_messages=True))
        events = [m.event for m in messages if isinstance(m, StreamEvent)]
        deltas = [e["delta"]["text"] for e in events if e["type"] == "content_block_delta"]
        assert "".join(deltas) == "streamed in small pieces" and len(deltas) > 1
        # Every event of the stream, in order, as Claude Code streams them.
        kinds = [e["type"] for e in events if e["type"] != "content_block_delta"]
        assert kinds == ["message_start", "content_block_start", "content_block_stop", "message_delta", "message_stop"]

    async def test_dont_ask_denies_what_no_rule_allows(self, make_run):
        run = make_run([])
        run.model._script = [Reply([ToolUse("Write", {"file_path": str(run.work / "x.txt"), "content": "x"}, id="w"),
                                    ToolUse("Read", {"file_path": str(run.work / "README.md")}, id="r")]), Reply([Text("ok")])]
        messages = await collect("write", run.options(permission_mode="dontAsk"))
        assert not (run.work / "x.txt").exists()
        results = run.tool_results(1)
        assert results["w"]["is_error"] and "dontAsk" in result_text(results["w"])
        assert not results["r"].get("is_error")
        assert [d["tool_use_id"] for d in messages[-1].permission_denials] == ["w"]
