"""Subagents (the Agent tool): child agents on the real SDK, each conversation routed by the scripted model."""

from __future__ import annotations

import asyncio
import json
import os

import psutil

from tests.core.support import SleepRead, SleepWrite, assert_history_valid
from tui_agent.core.agents.runner import cancel_anywhere
from tui_agent.core.session.lines import RUN_LINE
from tui_agent.core.session.reader import load
from tui_agent.core.events import (
    PermissionAsked,
    SubagentEvent,
    SubagentFinished,
    SubagentStarted,
    ToolStarted,
    UsageUpdated,
)
from tui_agent.core.permission_types import PermissionAnswer
from tui_agent.providers.scripted import Conversations, Reply, Text, ToolUse
from tui_agent.tools.agent import AgentTool
from tui_agent.tools.bash import BashTool


def agent_call(task: str, description: str = "", **extra) -> ToolUse:
    return ToolUse("Agent", {"description": description or f"Do {task}", "prompt": f"{task}: please", **extra}, id=f"toolu_{task}")


def tools():
    return [AgentTool(), SleepRead(), SleepWrite(), BashTool()]


def child_events(h, tool_use_id: str) -> list:
    return [e.event for e in h.events if isinstance(e, SubagentEvent) and e.parent_tool_use_id == tool_use_id]


def texts(result_block: dict) -> str:
    content = result_block["content"]
    return content if isinstance(content, str) else "\n".join(b.get("text", "") for b in content)


class TestParallelSubagents:
    async def test_two_agent_calls_run_concurrently_each_with_its_own_conversation(self, make_harness):
        """Both children's first requests leave before either child's tool is done; each sees only its prompt."""
        routes = Conversations({
            "MAIN": [Reply([agent_call("TASKA"), agent_call("TASKB")]), Reply([Text("both done")])],
            "TASKA": [Reply([ToolUse("SleepRead", {"seconds": 0.4, "text": "a-data"})]), Reply([Text("A report")])],
            "TASKB": [Reply([ToolUse("SleepRead", {"seconds": 0.4, "text": "b-data"})]), Reply([Text("B report")])],
        })
        h = make_harness(routes, tools=tools())
        ended = await h.agent.run("MAIN: two things")
        assert ended.reason == "completed" and ended.result == "both done"
        a, b = routes.times["TASKA"], routes.times["TASKB"]
        assert a[0] < b[1] and b[0] < a[1], "the two children's requests overlap in time"
        for task in ("TASKA", "TASKB"):
            first = routes.requests[task][0]
            assert first["messages"] == [{"role": "user", "content": [{"type": "text", "text": f"{task}: please", "cache_control": {"type": "ephemeral"}}]}]
            assert "Agent" in [t["name"] for t in first["tools"]]  # depth 1 may still delegate
            second = routes.requests[task][1]
            results = [b for m in second["messages"] for b in m["content"] if b.get("type") == "tool_result"]
            assert [texts(r) for r in results] == [f"{task[-1].lower()}-data"]

    async def test_results_come_back_in_tool_use_order_and_child_tools_stay_out_of_the_parent(self, make_harness):
        """B finishes long before A; the parent still gets A's result first; no SleepRead in its history."""
        routes = Conversations({
            "MAIN": [Reply([agent_call("TASKA"), agent_call("TASKB")]), Reply([Text("ok")])],
            "TASKA": [Reply([ToolUse("SleepRead", {"seconds": 0.5, "text": "slow"})]), Reply([Text("A report")])],
            "TASKB": [Reply([Text("B report")])],
        })
        h = make_harness(routes, tools=tools())
        await h.agent.run("MAIN: go")
        finished = [e for e in h.events if isinstance(e, SubagentFinished)]
        assert [f.parent_tool_use_id for f in finished] == ["toolu_TASKB", "toolu_TASKA"]  # completion order
        results = h.agent.history[2]["content"]
        assert [r["tool_use_id"] for r in results] == ["toolu_TASKA", "toolu_TASKB"]
        assert texts(results[0]).startswith("A report\n") and texts(results[1]).startswith("B report\n")
        usage = results[0]["content"][1]["text"]
        assert usage.startswith("agentId: a") and "<usage>subagent_tokens: " in usage and "\ntool_uses: 1\n" in usage and "duration_ms: " in usage
        assert "SleepRead" not in json.dumps(h.agent.history)
        assert_history_valid(h.agent.history)

    async def test_child_usage_counts_in_the_session_totals(self, make_harness):
        routes = Conversations({
            "MAIN": [Reply([agent_call("TASKA")], input_tokens=100, output_tokens=10), Reply([Text("ok")], input_tokens=200, output_tokens=20)],
            "TASKA": [Reply([Text("A report")], input_tokens=1000, output_tokens=50)],
        })
        h = make_harness(routes, tools=tools())
        ended = await h.agent.run("MAIN: go")
        assert ended.usage["input_tokens"] == 1300 and ended.usage["output_tokens"] == 80
        top = [e for e in h.events if isinstance(e, UsageUpdated)]
        assert top[-1].total_output_tokens == 80
        assert [e.output_tokens for e in child_events(h, "toolu_TASKA") if isinstance(e, UsageUpdated)] == [50]

    async def test_task_alias_and_model_override_are_honoured(self, make_harness):
        routes = Conversations({
            "MAIN": [Reply([ToolUse("Task", {"description": "quick", "prompt": "TASKA: go", "model": "haiku"}, id="toolu_x")]), Reply([Text("ok")])],
            "TASKA": [Reply([Text("done")])],
        })
        h = make_harness(routes, tools=tools())
        await h.agent.run("MAIN: go")
        assert routes.requests["TASKA"][0]["model"] == "claude-haiku-4-5"
        assert routes.requests["MAIN"][0]["model"] == "claude-sonnet-4-6"
        started = [e for e in h.events if isinstance(e, SubagentStarted)]
        assert started[0].agent_type == "general-purpose" and started[0].model == "claude-haiku-4-5"

    async def test_the_tool_lists_the_agent_types_for_the_model(self, make_harness):
        h = make_harness(Conversations({}), tools=tools())
        await h.agent.run("hello")
        agent_tool = next(t for t in h.requests[0]["tools"] if t["name"] == "Agent")
        assert "Available agent types for the Agent tool:\n- general-purpose: General-purpose agent" in agent_tool["description"]
        assert "(Tools: *)" in agent_tool["description"]
        assert "- Explore: Read-only search agent" in agent_tool["description"]
        schema = agent_tool["input_schema"]
        assert sorted(schema["properties"]) == ["description", "isolation", "model", "prompt", "run_in_background", "subagent_type"]
        assert schema["required"] == ["description", "prompt"] and schema["additionalProperties"] is False

    async def test_isolation_is_refused_and_background_runs_in_the_foreground_with_a_note(self, make_harness):
        routes = Conversations({
            "MAIN": [Reply([agent_call("TASKA", isolation="worktree"), agent_call("TASKB", run_in_background=True)]), Reply([Text("ok")])],
            "TASKB": [Reply([Text("B report")])],
        })
        h = make_harness(routes, tools=tools())
        await h.agent.run("MAIN: go")
        a, b = h.agent.history[2]["content"]
        assert a["is_error"] and 'isolation "worktree" is not supported' in texts(a)
        assert "TASKA" not in routes.requests
        assert texts(b).startswith("B report") and "run_in_background is not supported" in texts(b)

    async def test_unknown_agent_type_names_the_available_ones(self, make_harness):
        routes = Conversations({"MAIN": [Reply([agent_call("TASKA", subagent_type="nope")]), Reply([Text("ok")])]})
        h = make_harness(routes, tools=tools())
        await h.agent.run("MAIN: go")
        result = h.agent.history[2]["content"][0]
        assert result["is_error"] and "Agent type 'nope' not found. Available agents: general-purpose, Explore, Plan" in texts(result)


class TestNesting:
    async def test_agents_nest_two_deep_and_no_further(self, make_harness):
        routes = Conversations({
            "MAIN": [Reply([agent_call("LEVEL1")]), Reply([Text("ok")])],
            "LEVEL1": [Reply([agent_call("LEVEL2")]), Reply([Text("level 1 report")])],
            "LEVEL2": [Reply([Text("level 2 report")])],
        })
        h = make_harness(routes, tools=tools())
        await h.agent.run("MAIN: go")
        level1_tools = [t["name"] for t in routes.requests["LEVEL1"][0]["tools"]]
        level2_tools = [t["name"] for t in routes.requests["LEVEL2"][0]["tools"]]
        assert "Agent" in level1_tools and "Agent" not in level2_tools
        assert "SleepRead" in level2_tools
        nested = [e for e in h.events if isinstance(e, SubagentEvent) and isinstance(e.event, SubagentEvent)]
        assert nested and nested[0].parent_tool_use_id == "toolu_LEVEL1" and nested[0].event.parent_tool_use_id == "toolu_LEVEL2"
        assert nested[0].innermost[0] == "toolu_LEVEL2"
        level1_second = routes.requests["LEVEL1"][1]
        assert "level 2 report" in json.dumps(level1_second["messages"][-1])


class TestDefinitions:
    async def test_a_definition_file_restricts_tools_and_replaces_the_system_prompt(self, make_harness, tmp_path):
        folder = tmp_path / "work" / ".claude" / "agents"
        folder.mkdir(parents=True)
        (folder / "napper.md").write_text(
            "---\nname: napper\ndescription: Sleeps on request\ntools: SleepRead, Agent\nmodel: opus\n---\n"
            "You are the napper. You only sleep.\n"
        )
        routes = Conversations({
            "MAIN": [Reply([agent_call("TASKA", subagent_type="napper")]), Reply([Text("ok")])],
            "TASKA": [Reply([ToolUse("SleepWrite", {"text": "no"})]), Reply([Text("could not")])],
        })
        h = make_harness(routes, tools=tools())
        await h.agent.run("MAIN: go")
        listing = next(t for t in h.requests[0]["tools"] if t["name"] == "Agent")["description"]
        assert "- napper: Sleeps on request (Tools: SleepRead, Agent)" in listing
        child = routes.requests["TASKA"][0]
        assert [t["name"] for t in child["tools"]] == ["Agent", "SleepRead"]
        assert child["system"][0]["text"].startswith("You are the napper. You only sleep.\n\nHere is useful information")
        assert "General-purpose" not in child["system"][0]["text"] and "tui-agent, a coding agent" not in child["system"][0]["text"]
        assert child["model"] == "claude-opus-4-6"
        second = routes.requests["TASKA"][1]
        assert "No such tool available: SleepWrite" in json.dumps(second["messages"])


class TestTranscript:
    async def test_child_lines_are_a_side_chain_of_the_session_transcript(self, make_harness):
        routes = Conversations({
            "MAIN": [Reply([agent_call("TASKA")]), Reply([Text("ok")])],
            "TASKA": [Reply([ToolUse("SleepRead", {"text": "x"})]), Reply([Text("A report")])],
        })
        h = make_harness(routes, tools=tools())
        await h.agent.run("MAIN: go")
        lines = [json.loads(line) for line in h.agent.session.transcript_path.read_text().splitlines()]
        side = [line for line in lines if line.get("isSidechain")]
        assert [line["type"] for line in side] == ["user", "assistant", "user", "assistant", RUN_LINE]
        assert {line["parent_tool_use_id"] for line in side} == {"toolu_TASKA"}
        assert len({line["agentId"] for line in side}) == 1 and side[0]["agentId"].startswith("a")
        assert side[0]["message"]["content"] == "TASKA: please"
        main = [line for line in lines if not line.get("isSidechain")]
        assert [line["type"] for line in main] == ["user", "assistant", "user", "assistant", RUN_LINE]
        # Each chain hangs together on its own: the side-chain starts from nothing and the main chain
        # never hangs from a side-chain line (a resume follows parentUuid from the last main line).
        side_ids = {line["uuid"] for line in side if "uuid" in line}
        assert side[0]["parentUuid"] is None
        assert not any(line.get("parentUuid") in side_ids for line in main)
        assert [m["role"] for m in load(h.agent.session.transcript_path).history] == ["user", "assistant", "user", "assistant"]


async def wait_for(predicate, timeout: float = 60.0) -> None:
    """Wait for a state, not a wall-clock deadline (the timeout is only a safety net)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        assert loop.time() < deadline, "timed out waiting"
        await asyncio.sleep(0.01)


def side_histories(h) -> dict[str, list[dict]]:
    """Each child's history as its side-chain transcript lines hold it."""
    out: dict[str, list[dict]] = {}
    for raw in h.agent.session.transcript_path.read_text().splitlines():
        line = json.loads(raw)
        if line.get("isSidechain") and line["type"] in ("user", "assistant"):
            out.setdefault(line["agentId"], []).append(line["message"])
    return out


def sleepers(marker: str) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        try:
            if marker in " ".join(proc.info["cmdline"] or []):
                found.append(proc)
        except psutil.Error:
            continue
    return found


class TestInterrupts:
    async def test_esc_during_two_subagents_shell_tools_leaves_no_process_and_valid_histories(self, make_harness):
        marker = f"3{os.getpid() % 1000}.5"
        routes = Conversations({
            "MAIN": [Reply([agent_call("TASKA"), agent_call("TASKB")])],
            "TASKA": [Reply([ToolUse("Bash", {"command": f"sleep {marker}"})])],
            "TASKB": [Reply([ToolUse("Bash", {"command": f"sleep {marker}"})])],
        })
        h = make_harness(routes, tools=tools(), permission_mode="bypassPermissions")
        run = asyncio.create_task(h.agent.run("MAIN: go"))
        started = lambda: [e for e in h.events if isinstance(e, SubagentEvent) and isinstance(e.event, ToolStarted) and e.event.name == "Bash"]
        await wait_for(lambda: len(started()) == 2 and len(sleepers(f"sleep {marker}")) >= 2)
        h.agent.abort()
        ended = await asyncio.wait_for(run, 60)
        assert ended.reason == "aborted"
        assert sleepers(f"sleep {marker}") == []
        assert_history_valid(h.agent.history)
        results = h.agent.history[2]["content"]
        assert [r["tool_use_id"] for r in results[:2]] == ["toolu_TASKA", "toolu_TASKB"]
        assert all(r["is_error"] and texts(r).startswith("Interrupted by user") for r in results[:2])
        children = side_histories(h)
        assert len(children) == 2
        for history in children.values():
            assert_history_valid(history)
            assert history[-1]["content"][-1] == {"type": "text", "text": "[Request interrupted by user]"}
        assert {f.reason for f in h.events if isinstance(f, SubagentFinished)} == {"aborted"}

    async def test_esc_while_a_subagent_streams_its_answer(self, make_harness):
        routes = Conversations({
            "MAIN": [Reply([agent_call("TASKA")])],
            "TASKA": [Reply([Text("a long answer " * 200)], chunk=5, delay=0.01)],
        })
        h = make_harness(routes, tools=tools())
        run = asyncio.create_task(h.agent.run("MAIN: go"))
        await wait_for(lambda: any(isinstance(e, SubagentEvent) and type(e.event).__name__ == "TextDelta" for e in h.events))
        h.agent.abort()
        ended = await asyncio.wait_for(run, 60)
        assert ended.reason == "aborted"
        assert_history_valid(h.agent.history)
        for history in side_histories(h).values():
            assert_history_valid(history)

    async def test_one_subagent_is_cancelled_alone_and_the_other_goes_on(self, make_harness):
        routes = Conversations({
            "MAIN": [Reply([agent_call("TASKA"), agent_call("TASKB")]), Reply([Text("carried on")])],
            "TASKA": [Reply([ToolUse("SleepRead", {"seconds": 30, "text": "never"})])],
            "TASKB": [Reply([ToolUse("SleepRead", {"seconds": 0.3, "text": "b"})]), Reply([Text("B report")])],
        })
        h = make_harness(routes, tools=tools())
        run = asyncio.create_task(h.agent.run("MAIN: go"))
        await wait_for(lambda: any(isinstance(e.event, ToolStarted) for e in h.events if isinstance(e, SubagentEvent) and e.parent_tool_use_id == "toolu_TASKA"))
        assert cancel_anywhere(h.agent, "toolu_TASKA")
        ended = await asyncio.wait_for(run, 60)
        assert ended.reason == "completed" and ended.result == "carried on"
        a, b = h.agent.history[2]["content"]
        assert a["is_error"] and texts(a).startswith("Cancelled by user after")
        assert texts(b).startswith("B report")
        assert_history_valid(h.agent.history)

    async def test_a_tool_inside_a_subagent_is_cancelled_alone(self, make_harness):
        routes = Conversations({
            "MAIN": [Reply([agent_call("TASKA")]), Reply([Text("ok")])],
            "TASKA": [Reply([ToolUse("SleepRead", {"seconds": 30}, id="toolu_inner")]), Reply([Text("inner was cancelled")])],
        })
        h = make_harness(routes, tools=tools())
        run = asyncio.create_task(h.agent.run("MAIN: go"))
        await wait_for(lambda: any(isinstance(e.event, ToolStarted) for e in h.events if isinstance(e, SubagentEvent)))
        assert cancel_anywhere(h.agent, "toolu_inner")
        ended = await asyncio.wait_for(run, 60)
        assert ended.reason == "completed"
        assert texts(h.agent.history[2]["content"][0]).startswith("inner was cancelled")


class TestPermissions:
    async def test_a_subagent_asks_through_the_parents_channel_labelled_with_itself(self, make_harness):
        asked = []

        async def ask(request):
            asked.append(request)
            return PermissionAnswer("allow_once")

        routes = Conversations({
            "MAIN": [Reply([agent_call("TASKA", description="Write the notes")]), Reply([Text("ok")])],
            "TASKA": [Reply([ToolUse("SleepWrite", {"text": "written"})]), Reply([Text("A report")])],
        })
        h = make_harness(routes, tools=tools(), ask=ask)
        await h.agent.run("MAIN: go")
        assert [r.agent for r in asked] == ["general-purpose: Write the notes"]
        assert [r.tool_name for r in asked] == ["SleepWrite"]
        wrapped = [e for e in h.events if isinstance(e, SubagentEvent) and isinstance(e.event, PermissionAsked)]
        assert wrapped and wrapped[0].parent_tool_use_id == "toolu_TASKA"
        second = routes.requests["TASKA"][1]
        assert '"content": "written"' in json.dumps(second["messages"])

    async def test_a_denied_subagent_tool_is_denied_in_the_child_only(self, make_harness):
        async def ask(request):
            return PermissionAnswer("deny", words="not now")

        routes = Conversations({
            "MAIN": [Reply([agent_call("TASKA")]), Reply([Text("ok")])],
            "TASKA": [Reply([ToolUse("SleepWrite", {"text": "x"})]), Reply([Text("I was denied")])],
        })
        h = make_harness(routes, tools=tools(), ask=ask)
        ended = await h.agent.run("MAIN: go")
        assert ended.reason == "completed"
        assert texts(h.agent.history[2]["content"][0]).startswith("I was denied")
        assert "not now" in json.dumps(routes.requests["TASKA"][1]["messages"])


class TestProgramAgents:
    """What a driving program's `agents` option (claude-agent-sdk, sent in `initialize`) gives a session."""

    async def test_a_program_agent_wins_over_a_file_of_the_same_name_and_keeps_its_turn_limit(self, make_harness, tmp_path):
        from tui_agent.core.agents.from_options import definitions_from_options

        routes = Conversations({
            "MAIN": [Reply([agent_call("TASKA", subagent_type="helper")]), Reply([Text("ok")])],
            "TASKA": [Reply([ToolUse("SleepRead", {"seconds": 0, "text": "x"})]) for _ in range(3)],
        })
        h = make_harness(routes, tools=tools())
        files = h.agent.workspace.root / ".claude" / "agents"
        files.mkdir(parents=True)
        (files / "helper.md").write_text("---\nname: helper\ndescription: from a file\n---\nFILE PROMPT\n")
        found = definitions_from_options({"helper": {"description": "From the program", "prompt": "PROGRAM PROMPT", "tools": ["SleepRead"], "maxTurns": 2}})
        host = h.agent.context.services["subagents"]
        host.catalog.add_program_agents(found.definitions)
        await h.agent.run("MAIN: go")
        child = routes.requests["TASKA"]
        assert "PROGRAM PROMPT" in json.dumps(child[0]["system"]) and "FILE PROMPT" not in json.dumps(child[0]["system"])
        assert [t["name"] for t in child[0]["tools"]] == ["SleepRead"]
        assert len(child) == 2, "maxTurns: 2 stops the subagent after its second response"
        assert "The agent stopped early (max_turns)" in texts(h.agent.history[2]["content"][0])

    async def test_asks_carry_the_asking_subagents_id(self, make_harness):
        asked = []

        async def ask(request):
            asked.append(request)
            return PermissionAnswer("allow_once")

        routes = Conversations({
            "MAIN": [Reply([agent_call("TASKA")]), Reply([Text("ok")])],
            "TASKA": [Reply([ToolUse("SleepWrite", {"text": "written"})]), Reply([Text("A report")])],
        })
        h = make_harness(routes, tools=tools(), ask=ask)
        await h.agent.run("MAIN: go")
        started = next(e for e in h.events if isinstance(e, SubagentStarted))
        assert [r.agent_id for r in asked] == [started.agent_id]

    async def test_a_running_subagent_is_stopped_by_its_agent_id(self, make_harness):
        routes = Conversations({
            "MAIN": [Reply([agent_call("TASKA")]), Reply([Text("carried on")])],
            "TASKA": [Reply([ToolUse("SleepRead", {"seconds": 30, "text": "never"})])],
        })
        h = make_harness(routes, tools=tools())
        run = asyncio.create_task(h.agent.run("MAIN: go"))
        await wait_for(lambda: any(isinstance(e.event, ToolStarted) for e in h.events if isinstance(e, SubagentEvent)))
        started = next(e for e in h.events if isinstance(e, SubagentStarted))
        host = h.agent.context.services["subagents"]
        assert not host.stop("a-no-such-agent", "Stopped")
        assert host.stop(started.agent_id, "Stopped by the program")
        ended = await asyncio.wait_for(run, 60)
        assert ended.reason == "completed" and ended.result == "carried on"
        assert texts(h.agent.history[2]["content"][0]).startswith("Stopped by the program after")
        finished = next(e for e in h.events if isinstance(e, SubagentFinished))
        assert finished.reason == "aborted" and not host.running


async def test_a_subagent_is_not_offered_the_tools_that_ask_the_person(make_harness):
    from tui_agent.tools.ask_user_question import AskUserQuestionTool
    from tui_agent.tools.plan_mode import EnterPlanModeTool, ExitPlanModeTool

    async def never(_request):  # an app is there to answer: the main conversation is offered them
        return PermissionAnswer("deny")

    routes = Conversations({"MAIN": [Reply([agent_call("CHILD")]), Reply([Text("ok")])], "CHILD": [Reply([Text("report")])]})
    h = make_harness(routes, tools=[*tools(), AskUserQuestionTool(), EnterPlanModeTool(), ExitPlanModeTool()], ask=never)
    await h.agent.run("MAIN: go")
    main_tools = [t["name"] for t in routes.requests["MAIN"][0]["tools"]]
    child_tools = [t["name"] for t in routes.requests["CHILD"][0]["tools"]]
    asking = {"AskUserQuestion", "EnterPlanMode", "ExitPlanMode"}
    assert asking <= set(main_tools)
    assert not asking & set(child_tools) and "SleepRead" in child_tools


async def test_a_subagent_keeps_its_own_todo_list_starting_empty(make_harness):
    from tui_agent.core.events import ToolFinished
    from tui_agent.tools.todo import TodoWriteTool

    main_list = [{"content": "Plan", "status": "in_progress", "activeForm": "Planning"}]
    child_list = [{"content": "Search", "status": "in_progress", "activeForm": "Searching"}]
    routes = Conversations({
        "MAIN": [Reply([ToolUse("TodoWrite", {"todos": main_list})]), Reply([agent_call("CHILD")]), Reply([Text("ok")])],
        "CHILD": [Reply([ToolUse("TodoWrite", {"todos": child_list})]), Reply([Text("report")])],
    })
    h = make_harness(routes, tools=[*tools(), TodoWriteTool()])
    await h.agent.run("MAIN: go")
    child_writes = [e.event for e in h.events if isinstance(e, SubagentEvent) and isinstance(e.event, ToolFinished)
                    and e.event.name == "TodoWrite"]
    assert child_writes and child_writes[0].data["old_todos"] == [], "the child's list starts empty"
    assert h.agent.context.services["todos"] == main_list, "the main list is untouched by the child's"
