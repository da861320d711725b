"""Claude Code session files of every shape its versions wrote (fixtures/README.md says where each shape comes
from) resume into a valid history: the first prompt first, every tool call with its own result, the model and
the permission mode of the last line that recorded them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.core.support import assert_history_valid
from tui_agent.core.session import load, open_session
from tui_agent.core.session.index import list_sessions
from tui_agent.core.session.paths import claude_projects_root, project_slug
from tui_agent.core.session.reader import CRASHED_TOOL, content_blocks, rebuild

FIXTURES = Path(__file__).parent / "fixtures"


def lines_of(name: str) -> list[dict]:
    return [json.loads(line) for line in (FIXTURES / name).read_text().splitlines() if line.strip()]


# fixture -> (its first prompt after any compaction, whether a compaction summary opens it, the model and the
# permission mode to restore)
CORPUS = {
    "claude_code_0.2.125_whole_messages.jsonl": ("why does test_parse_dates fail?", False, "claude-3-7-sonnet-20250219", ""),
    "claude_code_1.0.30_per_block_lines.jsonl": ("add input validation to the signup form", False, "claude-opus-4-20250514", ""),
    "claude_code_1.0.30_compact_summary_root_and_sidechain.jsonl": ("now list the files in that folder", True, "claude-sonnet-4-20250514", ""),
    "claude_code_1.0.128_compact_boundary_only.jsonl": ("", True, "claude-sonnet-4-5-20250929", ""),
    "claude_code_2.1.50_progress_lines_in_chain.jsonl": ("run the tests and fix what fails", False, "claude-opus-4-6", "acceptEdits"),
    "claude_code_2.1.100_queued_command_attachments.jsonl": ("rename parse_date to parse_iso_date everywhere", False, "claude-opus-4-6", "acceptEdits"),
    "claude_code_2.1.100_compacted_then_local_commands.jsonl": ("", True, "claude-opus-4-6", "acceptEdits"),
    "claude_code_tool_turn.jsonl": ("read the file", False, "claude-sonnet-4-6", "default"),
    "claude_code_compacted.jsonl": ("", True, "claude-sonnet-4-6", "default"),
}

# A compacted session's title in the listing: its very first prompt, from before the compaction (never the summary).
TITLE_OF_COMPACTED = {
    "claude_code_1.0.30_compact_summary_root_and_sidechain.jsonl": "now list the files in that folder",  # the file starts at the summary
    "claude_code_1.0.128_compact_boundary_only.jsonl": "what does the Makefile's release target do?",
    "claude_code_2.1.100_compacted_then_local_commands.jsonl": "summarise the repository layout",
    "claude_code_compacted.jsonl": "read the file",
}


def prompts(conv) -> list[str]:
    """The user's prompts as the history keeps them (what the listing and the screen show as typed)."""
    out = []
    for message, hidden in zip(conv.history, conv.hidden):
        if message["role"] != "user" or hidden:
            continue
        texts = [b["text"] for b in content_blocks(message["content"]) if b.get("type") == "text"]
        if texts and not any(b.get("type") == "tool_result" for b in content_blocks(message["content"])):
            out.append("\n".join(texts))
    return out


def tool_results_in_file(lines: list[dict]) -> dict[str, dict]:
    found = {}
    for line in lines:
        if line.get("type") == "user" and not line.get("isSidechain") and isinstance(line["message"]["content"], list):
            for block in line["message"]["content"]:
                if block.get("type") == "tool_result":
                    found[block["tool_use_id"]] = block
    return found


def install(work: Path, name: str) -> str:
    """The fixture in Claude Code's projects folder for `work`, as Claude Code would have left it."""
    text = (FIXTURES / name).read_text().replace("/home/user/project", str(work))
    session_id = next(l["sessionId"] for l in map(json.loads, text.splitlines()) if isinstance(l.get("sessionId"), str))
    folder = claude_projects_root() / project_slug(work.resolve())
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{session_id}.jsonl").write_text(text)
    return session_id


@pytest.mark.parametrize("name", sorted(CORPUS))
class TestEveryVersionResumes:
    def test_resumed_history_is_valid_and_starts_with_the_first_prompt(self, name, tmp_path, data_home):
        work = tmp_path / "work"
        work.mkdir()
        opened = open_session(work, resume=install(work, name))
        conv = opened.conversation
        assert_history_valid(conv.history)
        first, compacted, _, _ = CORPUS[name]
        if compacted:  # the summary opens the conversation, then the first prompt after it
            assert conv.history[0]["content"].startswith("This session is being continued")
            assert prompts(conv)[1:2] == ([first] if first else [])
        else:
            assert prompts(conv)[0] == first
        opened.session.close()

    def test_every_tool_call_has_the_result_the_file_recorded(self, name):
        lines = lines_of(name)
        conv = rebuild(lines)
        recorded = tool_results_in_file(lines)
        calls = [b for m in conv.history if m["role"] == "assistant" for b in m["content"] if b["type"] == "tool_use"]
        results = {b["tool_use_id"]: b for m in conv.history if m["role"] == "user" for b in content_blocks(m["content"]) if b.get("type") == "tool_result"}
        assert calls or name.startswith(("claude_code_1.0.128", "claude_code_2.1.100_compacted", "claude_code_compacted"))
        for call in calls:
            assert results[call["id"]] == recorded[call["id"]], call["name"]
            assert CRASHED_TOOL not in json.dumps(results[call["id"]])
        assert not conv.repairs and not conv.ended_mid_turn

    def test_the_model_and_permission_mode_come_from_the_last_line_that_recorded_them(self, name):
        _, _, model, mode = CORPUS[name]
        conv = rebuild(lines_of(name))
        assert (conv.model, conv.permission_mode) == (model, mode)

    def test_the_listing_shows_it_with_its_first_prompt(self, name, tmp_path, data_home):
        work = tmp_path / "work"
        work.mkdir()
        session_id = install(work, name)
        [info] = list_sessions(work)
        assert info.session_id == session_id and info.source == "claude-code" and info.message_count > 0
        first, compacted, _, _ = CORPUS[name]
        assert info.first_prompt == (TITLE_OF_COMPACTED[name] if compacted else first)  # never a compaction's summary
        assert not info.title.startswith("This session is being continued")


class TestProgressLines:
    """Claude Code 2.1.x before ~2.1.9x put progress lines (hooks, bash output, subagent steps) into the
    parentUuid chain; its later loader links around them (a line whose parent is a progress line takes that
    line's parent). Progress is never part of the conversation."""

    def test_a_chain_through_progress_lines_keeps_the_first_prompt_tool_calls_and_results(self):
        conv = load(FIXTURES / "claude_code_2.1.50_progress_lines_in_chain.jsonl")
        assert [m["role"] for m in conv.history] == ["user", "assistant", "user", "assistant", "user", "assistant", "user", "assistant"]
        assert conv.history[0]["content"] == "run the tests and fix what fails"
        assert [b["type"] for b in conv.history[1]["content"]] == ["thinking", "text", "tool_use"]
        assert [b["name"] for m in conv.history for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_use"] == ["Bash", "Task", "Edit"]
        assert conv.repairs == []  # linked around, not a broken chain repaired

    def test_a_subagents_steps_inside_progress_lines_stay_out_of_the_history(self):
        conv = load(FIXTURES / "claude_code_2.1.50_progress_lines_in_chain.jsonl")
        calls = [b["name"] for m in conv.history if m["role"] == "assistant" for b in m["content"] if b["type"] == "tool_use"]
        assert "Read" not in calls and "def parse(text)" not in json.dumps(conv.history)  # the subagent's own call and result
        assert "hook" not in json.dumps(conv.history)

    def test_progress_lines_chained_to_each_other_are_linked_around_in_any_order(self):
        lines = lines_of("claude_code_2.1.50_progress_lines_in_chain.jsonl")
        progress = [l for l in lines if l.get("type") == "progress"]
        others = [l for l in lines if l.get("type") != "progress"]
        # Progress lines written after the lines that hang from them (out of order) are linked around too.
        assert rebuild(others + progress).history == rebuild(lines).history

    def test_a_progress_line_hanging_off_the_chain_changes_nothing(self):
        lines = lines_of("claude_code_2.1.100_queued_command_attachments.jsonl")
        without = [l for l in lines if l.get("type") != "progress"]
        assert rebuild(lines).history == rebuild(without).history


class TestBrokenChains:
    def test_a_missing_parent_is_joined_to_the_line_before_it_and_said(self):
        lines = lines_of("claude_code_1.0.30_per_block_lines.jsonl")
        lost = next(i for i, l in enumerate(lines) if l["type"] == "user" and l["message"]["content"] == "also cover the email field")
        conv = rebuild(lines[:lost] + lines[lost + 1 :])
        assert prompts(conv)[0] == "add input validation to the signup form"
        assert any("1 missing line(s)" in r for r in conv.repairs)
        assert_history_valid(conv.history)

    def test_a_history_whose_start_is_lost_opens_with_a_note_so_the_api_takes_it(self):
        lines = lines_of("claude_code_0.2.125_whole_messages.jsonl")
        first = next(i for i, l in enumerate(lines) if l["type"] == "user")
        lines[first + 1]["parentUuid"] = None  # the first response, its prompt gone
        conv = rebuild(lines[:first] + lines[first + 1 :])
        assert conv.history[0]["role"] == "user" and conv.hidden[0] and "could not be read" in conv.history[0]["content"][0]["text"]
        assert conv.history[1]["role"] == "assistant" and conv.history[1]["content"][0]["text"] == "Let me look at the parser and run the test."
        assert_history_valid(conv.history)
        assert any("start of the conversation" in r for r in conv.repairs)


class TestQueuedCommands:
    """A prompt typed while Claude Code was busy is a `queued_command` attachment: Claude Code counts it as
    the user's prompt (a task notification delivered the same way is not one)."""

    def test_a_queued_prompt_is_kept_as_a_user_prompt_after_the_results_it_waited_for(self):
        conv = load(FIXTURES / "claude_code_2.1.100_queued_command_attachments.jsonl")
        assert prompts(conv) == ["rename parse_date to parse_iso_date everywhere", "also add a test for the new name"]
        i = next(i for i, m in enumerate(conv.history) if m["content"] == "also add a test for the new name")
        assert not conv.hidden[i]
        assert conv.history[i - 1]["content"][0]["type"] == "tool_result"  # the Edit's result came first
        assert conv.history[i + 1]["role"] == "assistant"

    def test_a_queued_prompt_made_of_blocks_keeps_its_text_and_images(self):
        lines = lines_of("claude_code_2.1.100_queued_command_attachments.jsonl")
        image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
        for line in lines:
            if line.get("type") == "attachment" and line["attachment"].get("commandMode") == "prompt":
                line["attachment"]["prompt"] = [{"type": "text", "text": "also add a test for the new name"}, image]
        conv = rebuild(lines)
        queued = next(m for m in conv.history if isinstance(m["content"], list) and image in m["content"])
        assert queued["content"] == [{"type": "text", "text": "also add a test for the new name"}, image]

    def test_a_task_notification_is_a_reminder_not_a_prompt(self):
        conv = load(FIXTURES / "claude_code_2.1.100_queued_command_attachments.jsonl")
        text = json.dumps(conv.history)
        assert "A background agent completed a task" in text and "<task-notification>" in text
        assert not any("task-notification" in p for p in prompts(conv))

    def test_the_listing_counts_a_queued_prompt(self, tmp_path, data_home):
        work = tmp_path / "work"
        work.mkdir()
        install(work, "claude_code_2.1.100_queued_command_attachments.jsonl")
        [info] = list_sessions(work)
        assert info.first_prompt == "rename parse_date to parse_iso_date everywhere"
        assert info.message_count == len(load(next(claude_projects_root().glob("*/*.jsonl"))).history)


class TestOlderShapes:
    def test_api_error_lines_are_not_sent_back_and_their_synthetic_model_is_never_restored(self):
        for name in ("claude_code_0.2.125_whole_messages.jsonl", "claude_code_1.0.30_per_block_lines.jsonl"):
            conv = load(FIXTURES / name)
            assert "API Error" not in json.dumps(conv.history)
            assert conv.model != "<synthetic>"
            assert "fix it" in prompts(conv) or "also cover the email field" in prompts(conv)

    def test_a_whole_response_in_one_line_is_one_message_with_every_block(self):
        conv = load(FIXTURES / "claude_code_0.2.125_whole_messages.jsonl")
        assert [b["type"] for b in conv.history[1]["content"]] == ["text", "tool_use", "tool_use"]
        assert conv.metas[1]["stop_reason"] == "tool_use"

    def test_per_block_lines_of_1_0_merge_with_their_thinking_kept(self):
        conv = load(FIXTURES / "claude_code_1.0.30_per_block_lines.jsonl")
        assert [b["type"] for b in conv.history[1]["content"]] == ["thinking", "text", "tool_use", "tool_use"]

    def test_local_command_lines_and_their_caveat_are_not_part_of_the_conversation(self):
        for name in ("claude_code_1.0.30_per_block_lines.jsonl", "claude_code_2.1.100_compacted_then_local_commands.jsonl"):
            text = json.dumps(load(FIXTURES / name).history)
            assert "<command-name>" not in text and "local-command-stdout" not in text and "Caveat:" not in text

    def test_a_1_0_compaction_summary_starts_its_own_chain_and_the_sidechain_stays_out(self):
        conv = load(FIXTURES / "claude_code_1.0.30_compact_summary_root_and_sidechain.jsonl")
        assert conv.history[0]["content"].startswith("This session is being continued")
        assert "find where sessions are stored" not in json.dumps(conv.history)
        assert "**/*session*.py" not in json.dumps(conv.history)

    def test_the_summary_line_names_the_session(self):
        assert load(FIXTURES / "claude_code_0.2.125_whole_messages.jsonl").name == "Date parser whitespace fix"


class TestModeAndModelAfterCompaction:
    """The lines after a compaction boundary carry neither the model nor the permission mode: both come from
    the last line before it that recorded them (or a later `permission-mode` line)."""

    def test_a_compaction_then_local_commands_restores_the_model_and_mode_of_before(self):
        conv = load(FIXTURES / "claude_code_2.1.100_compacted_then_local_commands.jsonl")
        assert conv.compacted and len(conv.history) == 1
        assert (conv.model, conv.permission_mode) == ("claude-opus-4-6", "acceptEdits")

    def test_resume_restores_the_mode_after_a_compaction(self, tmp_path, data_home):
        work = tmp_path / "work"
        work.mkdir()
        opened = open_session(work, resume=install(work, "claude_code_2.1.100_compacted_then_local_commands.jsonl"))
        assert opened.permission_mode == "acceptEdits" and opened.conversation.model == "claude-opus-4-6"
        opened.session.close()

    def test_a_permission_mode_line_wins_over_older_prompts(self):
        conv = load(FIXTURES / "claude_code_2.1.100_queued_command_attachments.jsonl")
        assert conv.permission_mode == "acceptEdits"  # the prompts said "default"; the mode was changed later

    def test_a_sidechains_model_is_not_the_sessions(self):
        lines = lines_of("claude_code_1.0.30_compact_summary_root_and_sidechain.jsonl")
        for line in lines:
            if line.get("isSidechain") and line["type"] == "assistant":
                line["message"]["model"] = "claude-3-5-haiku-20241022"
        lines.append({**next(l for l in lines if l.get("isSidechain") and l["type"] == "assistant"), "uuid": "late-side"})
        assert rebuild(lines).model == "claude-sonnet-4-20250514"


class TestTheLineModelsDocumentEveryVersion:
    def test_every_line_of_a_documented_type_in_the_corpus_validates(self):
        from tui_agent.core.session.lines import CompactBoundaryLine, MessageLine, PermissionModeLine, ProgressLine, QueuedCommandAttachment, SummaryLine

        models = {"user": MessageLine, "assistant": MessageLine, "summary": SummaryLine, "progress": ProgressLine, "permission-mode": PermissionModeLine}
        seen = set()
        for name in CORPUS:
            for line in lines_of(name):
                if line["type"] in models:
                    models[line["type"]].model_validate(line)
                    seen.add(line["type"])
                elif line.get("subtype") == "compact_boundary":
                    CompactBoundaryLine.model_validate(line)
                    seen.add("compact_boundary")
                elif line["type"] == "attachment" and line["attachment"]["type"] == "queued_command":
                    QueuedCommandAttachment.model_validate(line["attachment"])
                    seen.add("queued_command")
        assert seen == {*models, "compact_boundary", "queued_command"}
