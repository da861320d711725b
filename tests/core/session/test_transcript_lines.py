"""Transcript lines in Claude Code's shape, checked against golden lines Claude Code 2.1.197 wrote itself
(`claude -p` against the scripted model, a Read and a Bash call in one response; paths sanitised)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.core.support import sample_tools
from tui_agent.core.session import load
from tui_agent.core.session.reader import rebuild
from tui_agent.providers.scripted import Reply, Text, ToolUse

FIXTURES = Path(__file__).parent / "fixtures"
ISO_MS_Z = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


def golden(name: str) -> list[dict]:
    return [json.loads(line) for line in (FIXTURES / name).read_text().splitlines() if line.strip()]


def golden_line(kind: str, pred=lambda l: True) -> dict:
    return next(l for l in golden("claude_code_tool_turn.jsonl") if l.get("type") == kind and pred(l))


def is_result(line: dict) -> bool:
    content = line["message"]["content"]
    return isinstance(content, list) and content[0].get("type") == "tool_result"


async def two_tool_turn(make_harness):
    h = make_harness([Reply([Text("Let me look."), ToolUse("SleepRead", {"text": "a"}), ToolUse("SleepRead", {"text": "b"})]), Reply([Text("All done.")])], tools=sample_tools())
    await h.agent.run("read the file")
    await h.agent.close()
    return h, h.agent.session.read()


class TestOurLinesHaveClaudeCodesShape:
    async def test_every_field_claude_code_writes_on_a_message_line_is_there_with_its_type(self, make_harness):
        h, lines = await two_tool_turn(make_harness)
        prompt, text, tool1, tool2, result1, result2, answer, end = lines
        pairs = [
            (prompt, golden_line("user", lambda l: isinstance(l["message"]["content"], str))),
            (text, golden_line("assistant")),
            (result1, golden_line("user", is_result)),
            (answer, golden_line("assistant", lambda l: l["message"]["content"][0]["type"] == "text" and l["message"]["content"][0]["text"] == "All done.")),
        ]
        shared = {"parentUuid", "isSidechain", "type", "message", "uuid", "timestamp", "userType", "entrypoint", "cwd", "sessionId", "version", "gitBranch"}
        for ours, theirs in pairs:
            assert shared <= set(theirs)  # the golden file really has them
            assert shared <= set(ours), shared - set(ours)
            for key in shared - {"parentUuid"}:
                assert type(ours[key]) is type(theirs[key]), key
            assert ISO_MS_Z.match(ours["timestamp"])
        assert {"toolUseResult", "sourceToolAssistantUUID"} <= set(result1)
        assert set(golden_line("assistant")["message"]) - {"stop_details"} <= set(text["message"])
        assert end["type"] == "tui-agent-run" and end["reason"] == "completed"

    async def test_each_assistant_block_is_its_own_line_sharing_the_message_id_and_usage(self, make_harness):
        h, lines = await two_tool_turn(make_harness)
        assistant = [l for l in lines if l["type"] == "assistant"]
        first = assistant[:3]
        assert [len(l["message"]["content"]) for l in first] == [1, 1, 1]
        assert len({l["message"]["id"] for l in first}) == 1 and first[0]["message"]["id"].startswith("msg_")
        assert all(l["message"]["usage"]["output_tokens"] > 0 for l in assistant)
        assert assistant[3]["message"]["id"] != first[0]["message"]["id"]

    async def test_parent_links_chain_like_claude_codes(self, make_harness):
        """Each block hangs from the one before; each result from its own tool_use line; the next
        response from the last result (as in the golden file)."""
        h, lines = await two_tool_turn(make_harness)
        prompt, text, tool1, tool2, result1, result2, answer, _ = lines
        assert prompt["parentUuid"] is None
        assert text["parentUuid"] == prompt["uuid"] and tool1["parentUuid"] == text["uuid"] and tool2["parentUuid"] == tool1["uuid"]
        assert result1["parentUuid"] == tool1["uuid"] == result1["sourceToolAssistantUUID"]
        assert result2["parentUuid"] == tool2["uuid"]
        assert answer["parentUuid"] == result2["uuid"]
        gold = golden("claude_code_tool_turn.jsonl")
        g_tools = [l for l in gold if l["type"] == "assistant" and l["message"]["content"][0]["type"] == "tool_use"]
        g_results = [l for l in gold if l["type"] == "user" and is_result(l)]
        assert [r["parentUuid"] for r in g_results] == [t["uuid"] for t in g_tools]

    async def test_our_file_reads_back_into_the_exact_history(self, make_harness):
        h, _ = await two_tool_turn(make_harness)
        assert load(h.agent.session.transcript_path).history == h.agent.history

    async def test_session_file_lives_in_claude_codes_layout_under_our_data_dir(self, make_harness, data_home):
        h, _ = await two_tool_turn(make_harness)
        path = h.agent.session.transcript_path
        work = str(h.agent.workspace.root)
        assert path == data_home / "tui-agent" / "projects" / re.sub(r"[^A-Za-z0-9]", "-", work) / f"{h.agent.session.id}.jsonl"
        assert h.agent.session.dir == path.with_suffix("")  # tool-results/ go in <id>/


class TestReadingClaudeCodesLines:
    def test_golden_file_rebuilds_one_merged_assistant_message_with_both_results(self):
        conv = load(FIXTURES / "claude_code_tool_turn.jsonl")
        roles = [m["role"] for m in conv.history]
        assert roles == ["user", "assistant", "user", "assistant"]
        assert [b["type"] for b in conv.history[1]["content"]] == ["text", "tool_use", "tool_use"]
        results = [b for b in conv.history[2]["content"] if b["type"] == "tool_result"]
        tool_ids = [b["id"] for b in conv.history[1]["content"] if b["type"] == "tool_use"]
        # The Read result is off the parent chain (it hangs from its own tool_use line) and still found.
        assert [r["tool_use_id"] for r in results] == tool_ids
        assert conv.history[2]["content"][-1]["text"].startswith("<system-reminder>\nContents of /home/user/project/sub/CLAUDE.md")
        assert conv.repairs == [] and not conv.ended_mid_turn
        assert conv.model == "claude-sonnet-4-6" and conv.permission_mode == "default"

    def test_compaction_summary_opens_the_conversation_and_preserved_messages_follow(self):
        conv = load(FIXTURES / "claude_code_compacted.jsonl")
        assert conv.compacted
        assert conv.history[0]["role"] == "user"
        assert conv.history[0]["content"].startswith("This session is being continued from a previous conversation")
        assert "read the file" not in json.dumps(conv.history)  # everything before the boundary is gone
        assert conv.history[-1] == {"role": "assistant", "content": [{"type": "text", "text": "All done."}]}

    def test_sidechains_unknown_types_and_torn_lines_are_skipped(self, tmp_path):
        lines = golden("claude_code_tool_turn.jsonl")
        last = next(l for l in reversed(lines) if l.get("uuid"))
        side = {**last, "uuid": "side-1", "parentUuid": last["uuid"], "isSidechain": True,
                "message": {**last["message"], "id": "msg_side", "content": [{"type": "text", "text": "subagent says"}]}}
        odd = {"type": "future-line-type", "uuid": "x", "parentUuid": last["uuid"], "whatever": 1}
        path = tmp_path / "s.jsonl"
        path.write_text("\n".join(json.dumps(l) for l in [*lines, side, odd]) + '\n{"type": "assistant", "uu')
        conv = load(path)
        assert "subagent says" not in json.dumps(conv.history)
        assert conv.history == load(FIXTURES / "claude_code_tool_turn.jsonl").history
        assert any("unreadable" in r for r in conv.repairs)

    def test_a_branch_is_followed_from_the_newest_leaf(self):
        lines = golden("claude_code_tool_turn.jsonl")
        prompt = next(l for l in lines if l.get("type") == "user")
        branch = {**prompt, "uuid": "b1", "parentUuid": prompt["uuid"], "type": "assistant",
                  "message": {"id": "msg_b", "role": "assistant", "model": "m", "content": [{"type": "text", "text": "other branch"}]}}
        conv = rebuild([*lines, branch])
        assert [m["role"] for m in conv.history] == ["user", "assistant"]
        assert conv.history[1]["content"][0]["text"] == "other branch"


class TestTheLineModelsDocumentTheFormat:
    async def test_every_line_we_write_and_every_golden_message_line_validates(self, make_harness):
        from tui_agent.core.session.lines import CustomTitleLine, MessageLine, RunLine

        h, lines = await two_tool_turn(make_harness)
        h.agent.session.set_name("named")
        models = {"user": MessageLine, "assistant": MessageLine, "tui-agent-run": RunLine, "custom-title": CustomTitleLine}
        for line in h.agent.session.read():
            models[line["type"]].model_validate(line)
        for line in golden("claude_code_tool_turn.jsonl") + golden("claude_code_compacted.jsonl"):
            if line["type"] in ("user", "assistant"):
                MessageLine.model_validate(line)

    def test_a_message_line_missing_its_message_is_skipped_and_counted(self, tmp_path):
        lines = golden("claude_code_tool_turn.jsonl")
        last = next(l for l in reversed(lines) if l.get("uuid"))
        broken = {k: v for k, v in last.items() if k != "message"} | {"uuid": "broken", "parentUuid": last["uuid"], "type": "user"}
        conv = rebuild([*lines, broken])
        assert conv.history == load(FIXTURES / "claude_code_tool_turn.jsonl").history
        assert any("unreadable" in r for r in conv.repairs)
