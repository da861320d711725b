"""A malformed session file never breaks the session list: the reader turns whatever a line holds into a
valid history with the damage left out and said; a file with nothing readable (or that the system cannot
read) is one skipped row with its path and the reason; every other session is listed and resumes.

The fuzz goes systematically over the fixture corpus: every field of every line type (nested ones too) is
replaced by a value of each wrong type, and hypothesis adds random combinations of such damage."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.core.support import assert_history_valid
from tui_agent.core.session import NoConversationFound, open_session
from tui_agent.core.session.index import SessionInfo, describe, list_sessions, scan_sessions
from tui_agent.core.session.paths import claude_projects_root, project_slug, sessions_root
from tui_agent.core.session.reader import content_blocks, load, rebuild

FIXTURES = Path(__file__).parent / "fixtures"
CORPUS = sorted(p.name for p in FIXTURES.glob("*.jsonl"))
WRONG: list[Any] = [None, [], {}, 0, -1.5, True, "", "x", [None], [{"type": "text"}], {"type": "tool_use"}]


def lines_of(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (FIXTURES / name).read_text().splitlines() if line.strip()]


def paths(value: Any, prefix: tuple = ()) -> Iterator[tuple]:
    """Every key and list index inside `value`, depth first (the value itself excluded)."""
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, inner in items:
        yield prefix + (key,)
        yield from paths(inner, prefix + (key,))


def replaced(line: dict[str, Any], path: tuple, value: Any) -> dict[str, Any]:
    out = copy.deepcopy(line)
    node = out
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = copy.deepcopy(value)
    return out


def corruptions(name: str) -> Iterator[tuple[int, tuple]]:
    """(line, path) for every field of every line of the fixture, nested fields included."""
    for i, line in enumerate(lines_of(name)):
        for path in paths(line):
            yield i, path


BLOCK_FIELDS = {"text": {"text": str}, "tool_use": {"id": str, "name": str, "input": dict}, "thinking": {"thinking": str, "signature": str},
                "redacted_thinking": {"data": str}, "tool_result": {"tool_use_id": str}, "image": {"source": dict}}


def assert_sendable(conv) -> None:
    """What the API needs besides the message order: each block's fields have their types."""
    if conv.history:
        assert_history_valid(conv.history)
    for message in conv.history:
        assert message["role"] in ("user", "assistant")
        assert isinstance(message["content"], (str, list))
        for block in content_blocks(message["content"]):
            for field, typ in BLOCK_FIELDS.get(block["type"], {}).items():
                assert isinstance(block.get(field), typ), (block, field)
            if block["type"] in ("tool_use", "tool_result"):
                assert all(block.get(k) for k in ("id", "name", "tool_use_id") if k in BLOCK_FIELDS[block["type"]]), block  # never empty
            if block["type"] == "tool_result":
                assert isinstance(block.get("content", ""), (str, list)) and isinstance(block.get("is_error", False), bool), block
                for inner in block.get("content") if isinstance(block.get("content"), list) else []:
                    assert isinstance(inner, dict) and inner.get("type") in ("text", "image", "document", "search_result", "tool_reference"), block
                    assert inner["type"] != "text" or isinstance(inner.get("text"), str), block
    assert len(conv.history) == len(conv.metas) == len(conv.hidden)
    assert isinstance(conv.model, str) and isinstance(conv.permission_mode, str) and isinstance(conv.name, str)


def listed(conv) -> SessionInfo:
    return SessionInfo.of(conv, Path("/nowhere/s.jsonl"), "claude-code", 0.0, 0)


class TestEveryFieldOfEveryLineWithTheWrongType:
    @pytest.mark.parametrize("name", CORPUS)
    def test_no_wrong_type_in_any_field_makes_the_reader_raise_or_the_history_invalid(self, name):
        lines = lines_of(name)
        for i, path in corruptions(name):
            for value in WRONG:
                damaged = lines[:i] + [replaced(lines[i], path, value)] + lines[i + 1 :]
                try:
                    conv = rebuild(damaged)
                    assert_sendable(conv)
                    listed(conv)
                except Exception as exc:  # noqa: BLE001 - say which damage did it
                    raise AssertionError(f"{name} line {i} {path} = {value!r}: {exc!r}") from exc

    @pytest.mark.parametrize("name", CORPUS)
    def test_a_whole_line_of_the_wrong_type_or_without_each_field_is_survived(self, name):
        lines = lines_of(name)
        for i, line in enumerate(lines):
            for key in line:
                assert_sendable(rebuild(lines[:i] + [{k: v for k, v in line.items() if k != key}] + lines[i + 1 :]))
            for value in WRONG:
                for instead in (value, {"type": value}, {**line, "type": value}):
                    assert_sendable(rebuild(lines[:i] + [instead] + lines[i + 1 :]))


class TestRandomDamage:
    def test_a_null_uuid_does_not_pull_uuid_less_lines_into_the_chain(self, tmp_path):
        """Found by the test below: one chain line's uuid damaged to null made every line without a uuid (the
        title, the queue operations) look like a chain line, and reading it failed with KeyError."""
        lines = lines_of("claude_code_tool_turn.jsonl")
        attachment = next(i for i, line in enumerate(lines) if line.get("type") == "attachment")
        lines[attachment]["uuid"] = None  # a line type that belongs to the chain
        lines[attachment - 1]["type"] = None
        path = tmp_path / "0f0e0d0c-0b0a-4909-8807-060504030201.jsonl"
        path.write_text("".join(json.dumps(l) + "\n" for l in lines))
        assert_sendable(load(path))
        describe(path, "claude-code")

    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(name=st.sampled_from(CORPUS), hits=st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 10_000), st.sampled_from(WRONG)), min_size=1, max_size=6),
           drop=st.lists(st.integers(0, 10_000), max_size=3))
    def test_several_damaged_fields_and_missing_lines_still_load_and_list(self, tmp_path_factory, name, hits, drop):
        lines = lines_of(name)
        for line_pick, path_pick, value in hits:
            i = line_pick % len(lines)
            found = list(paths(lines[i]))
            if found:
                lines[i] = replaced(lines[i], found[path_pick % len(found)], value)
        for pick in drop:
            if lines:
                lines.pop(pick % len(lines))
        path = tmp_path_factory.mktemp("s") / "0f0e0d0c-0b0a-4909-8807-060504030201.jsonl"
        path.write_text("".join(json.dumps(l) + "\n" for l in lines))
        conv = load(path)
        assert_sendable(conv)
        describe(path, "claude-code")


def install(folder: Path, name: str, session_id: str, text: str | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{session_id}.jsonl"
    text = text if text is not None else (FIXTURES / name).read_text()
    # The file's name is its session id, as Claude Code and we name them.
    path.write_text(text.replace("123fad4e-2c16-4b4f-b0ce-1f3acb31d650", session_id))
    return path


def with_line(name: str, change) -> str:
    lines = lines_of(name)
    change(lines)
    return "".join(json.dumps(l) + "\n" for l in lines)


GOOD = "11111111-1111-4111-8111-111111111111"
BAD = "22222222-2222-4222-8222-222222222222"


class TestOneBadFileNeverHidesTheOthers:
    """The two shapes from the issue: a tool_use without an id (was a KeyError) and a compactMetadata that is
    not an object (was an AttributeError); and a file with no readable conversation at all."""

    def _tool_use_without_id(self, lines):
        for line in lines:
            for block in line.get("message", {}).get("content", []) if isinstance(line.get("message", {}).get("content"), list) else []:
                if block.get("type") == "tool_use":
                    del block["id"]

    def _compact_metadata_a_list(self, lines):
        for line in lines:
            if line.get("subtype") == "compact_boundary":
                line["compactMetadata"] = ["not", "an", "object"]

    @pytest.mark.parametrize("damage", ["_tool_use_without_id", "_compact_metadata_a_list"])
    def test_a_damaged_file_resumes_with_the_damage_left_out_and_said(self, damage, tmp_path, data_home):
        name = "claude_code_compacted.jsonl" if "compact" in damage else "claude_code_tool_turn.jsonl"
        folder = claude_projects_root() / project_slug(tmp_path.resolve())
        install(folder, name, GOOD)
        bad = install(folder, name, BAD, with_line(name, getattr(self, damage)))
        listing = scan_sessions(tmp_path)
        assert {i.session_id for i in listing.sessions} == {GOOD, BAD} and not listing.skipped
        conv = load(bad)
        assert_sendable(conv)
        if damage == "_tool_use_without_id":
            assert any("2 damaged part(s)" in r for r in conv.repairs)  # the two tool_use blocks
            assert "tool_use" not in json.dumps(conv.history)  # a call nobody can answer is left out, and so are its results

    def test_a_file_with_no_readable_conversation_is_a_skipped_row_with_its_path_and_reason(self, tmp_path, data_home):
        folder = sessions_root() / project_slug(tmp_path.resolve())
        install(folder, "claude_code_tool_turn.jsonl", GOOD)
        bad = install(folder, "", BAD, "\x00\x01garbage\n{\"type\": \"user\", \"message\": 5}\n[1, 2]\n")
        listing = scan_sessions(tmp_path)
        assert [i.session_id for i in listing.sessions] == [GOOD]
        [skipped] = listing.skipped
        assert skipped.path == bad and "3 unreadable lines" in skipped.reason
        assert [i.session_id for i in list_sessions(tmp_path)] == [GOOD]

    @pytest.mark.skipif(not Path("/proc/self/mem").exists(), reason="needs a file the system refuses to read")
    def test_a_file_the_system_cannot_read_is_a_skipped_row_with_the_error(self, tmp_path, data_home):
        folder = sessions_root() / project_slug(tmp_path.resolve())
        install(folder, "claude_code_tool_turn.jsonl", GOOD)
        bad = folder / f"{BAD}.jsonl"
        bad.symlink_to("/proc/self/mem")  # a regular file whose reading fails (EIO), even for root
        listing = scan_sessions(tmp_path)
        assert [i.session_id for i in listing.sessions] == [GOOD]
        [skipped] = listing.skipped
        assert skipped.path == bad and skipped.reason.startswith("could not be read: [Errno 5]")

    def test_resume_by_name_still_finds_the_good_session_and_says_which_file_was_skipped(self, tmp_path, data_home):
        folder = sessions_root() / project_slug(tmp_path.resolve())
        install(folder, "", GOOD, with_line("claude_code_tool_turn.jsonl", lambda ls: ls.append({"type": "custom-title", "customTitle": "good one", "sessionId": GOOD})))
        bad = install(folder, "", BAD, "not json at all\n")
        opened = open_session(tmp_path, resume="good one")
        assert opened.conversation.session_id == GOOD and opened.history
        opened.session.close()
        with pytest.raises(NoConversationFound) as err:
            open_session(tmp_path, resume="no such name")
        assert "No conversation found with session ID: no such name" in str(err.value)
        assert str(bad) in str(err.value) and "1 unreadable line" in str(err.value)

    def test_resume_by_the_id_of_a_skipped_file_says_why(self, tmp_path, data_home):
        folder = sessions_root() / project_slug(tmp_path.resolve())
        bad = install(folder, "", BAD, "{\"type\": \"assistant\", \"uu\n")
        with pytest.raises(NoConversationFound) as err:
            open_session(tmp_path, resume=BAD)
        assert str(bad) in str(err.value) and "no conversation could be read" in str(err.value)


class TestWhatTheChecksKeep:
    """The checks leave out only what the API would refuse: the blocks our tools and the API's own server
    tools write come back whole, and nothing is reported for them."""

    def _with_blocks(self, assistant_blocks, result_content):
        lines = lines_of("claude_code_tool_turn.jsonl")
        for line in lines:
            content = line.get("message", {}).get("content")
            if line["type"] == "assistant" and content[0]["type"] == "text" and content[0]["text"] == "Let me look.":
                line["message"]["content"] = assistant_blocks
            if line["type"] == "user" and isinstance(content, list) and content[0]["type"] == "tool_result" and content[0]["content"] == "hi":
                content[0]["content"] = result_content
        return rebuild(lines)

    def test_tool_search_results_and_server_tool_blocks_come_back_whole(self):
        server = [{"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "x"}},
                  {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [{"type": "web_search_result", "url": "https://e.x", "title": "t", "encrypted_content": "abc"}]},
                  {"type": "text", "text": "Let me look."}]
        refs = [{"type": "tool_reference", "tool_name": "mcp__docs__search"}, {"type": "text", "text": "1 tool found"}]
        conv = self._with_blocks(server, refs)
        assert conv.history[1]["content"][:3] == server
        result = next(b for b in conv.history[2]["content"] if b["type"] == "tool_result" and b["tool_use_id"] == "toolu_d81400d970ab4084b55f1d")
        assert result["content"] == refs
        assert conv.repairs == []

    def test_a_text_block_of_only_whitespace_is_left_out_without_a_word(self):
        conv = self._with_blocks([{"type": "text", "text": "\n\n"}], "hi")
        assert [b["type"] for b in conv.history[1]["content"]] == ["tool_use", "tool_use"]
        assert conv.repairs == []
