"""The checkpoint store: the real Agent, its real Write and Edit tools and the scripted model change files
over several prompts; the store keeps what each file was and puts it back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.core.support import Harness
from tui_agent.core.checkpoints import SERVICE_KEY, CheckpointStore, UnknownPrompt
from tui_agent.providers.scripted import Reply, Text, ToolUse


def store_of(h: Harness) -> CheckpointStore:
    return h.agent.context.services[SERVICE_KEY]


def prompt_uuids(h: Harness) -> list[str]:
    """The uuids of the transcript's prompt lines, in order."""
    return [line["uuid"] for line in h.agent.session.read()
            if line.get("type") == "user" and isinstance(line["message"]["content"], str)]


def two_prompts(work: Path) -> list[Any]:
    """Prompt 1: edit a.txt, create b.txt. Prompt 2: edit a.txt again, create c/d.txt, rewrite keep.txt unchanged."""
    a, b, d, keep = (str(work / n) for n in ("a.txt", "b.txt", "c/d.txt", "keep.txt"))
    return [
        Reply([ToolUse("Read", {"file_path": a}, id="r1"), ToolUse("Read", {"file_path": keep}, id="r2")]),
        Reply([ToolUse("Edit", {"file_path": a, "old_string": "two", "new_string": "TWO"}, id="e1"),
               ToolUse("Write", {"file_path": b, "content": "bee\n"}, id="w1")]),
        Reply([Text("first done")]),
        Reply([ToolUse("Edit", {"file_path": a, "old_string": "one", "new_string": "ONE\nand more"}, id="e2"),
               ToolUse("Write", {"file_path": d, "content": "dee\n"}, id="w2"),
               ToolUse("Write", {"file_path": keep, "content": "same\n"}, id="w3")]),
        Reply([Text("second done")]),
    ]


def setup_files(work: Path) -> None:
    work.mkdir(exist_ok=True)
    (work / "a.txt").write_text("one\ntwo\nthree\n")
    (work / "keep.txt").write_text("same\n")


async def run_two(make_harness: Any, tmp_path: Path, **settings: Any) -> tuple[Harness, Path]:
    work = tmp_path / "work"
    setup_files(work)
    h = make_harness(two_prompts(work), permission_mode="acceptEdits", **settings)
    assert (await h.agent.run("first")).reason == "completed"
    assert (await h.agent.run("second")).reason == "completed"
    return h, work


class TestRecording:
    async def test_each_prompt_keeps_what_its_tools_changed_keyed_by_the_transcript_uuid(self, make_harness, tmp_path):
        h, work = await run_two(make_harness, tmp_path)
        store = store_of(h)
        first, second = prompt_uuids(h)
        assert store.prompts() == [first, second]
        assert (store.root.parent == h.agent.session.dir), "under the session's folder: pruned with it"
        one = {c.path.name: (c.added, c.removed, c.created) for c in store.changes_in(first)}
        assert one == {"a.txt": (1, 1, False), "b.txt": (1, 0, True)}
        two = {c.path.name: (c.added, c.removed, c.created) for c in store.changes_in(second)}
        assert two == {"a.txt": (2, 1, False), "d.txt": (1, 0, True), "keep.txt": (0, 0, False)}
        since = {c.path.name: (c.added, c.removed) for c in store.changes_since(first)}
        assert since == {"a.txt": (3, 2), "b.txt": (1, 0), "d.txt": (1, 0), "keep.txt": (0, 0)}
        assert [c.summary() for c in store.changes_in(first)][0].endswith("a.txt +1 -1")

    async def test_unchanged_content_is_stored_once(self, make_harness, tmp_path):
        h, work = await run_two(make_harness, tmp_path)
        store = store_of(h)
        blobs = sorted(p.name for p in store.blobs.root.iterdir())
        # a.txt before prompt 1, a.txt before prompt 2, keep.txt ("same\n"): created files store no content.
        assert len(blobs) == 3
        size = store.blobs.size()
        store.begin_prompt("third")
        for _ in range(3):
            (work / "twin.txt").write_text("same\n")  # the same content under another name
            store.before_write(work / "twin.txt")
            store.before_write(work / "keep.txt")
        assert store.blobs.size() == size and len(list(store.blobs.root.iterdir())) == 3


class TestRestore:
    async def test_restore_to_the_first_prompt_puts_back_changed_files_and_removes_created_ones(self, make_harness, tmp_path):
        h, work = await run_two(make_harness, tmp_path)
        first, second = prompt_uuids(h)
        report = store_of(h).restore(first)
        assert (work / "a.txt").read_text() == "one\ntwo\nthree\n"
        assert not (work / "b.txt").exists() and not (work / "c" / "d.txt").exists()
        assert (work / "keep.txt").read_text() == "same\n"
        assert {p.name for p in report.restored} == {"a.txt"}
        assert {p.name for p in report.removed} == {"b.txt", "d.txt"}
        assert report.hand_edited == () and (report.insertions, report.deletions) == (5, 2)
        assert all(c.added == c.removed == 0 for c in store_of(h).changes_since(first)), "nothing left to undo"

    async def test_restore_to_the_second_prompt_keeps_the_first_prompts_changes(self, make_harness, tmp_path):
        h, work = await run_two(make_harness, tmp_path)
        first, second = prompt_uuids(h)
        store_of(h).restore(second)
        assert (work / "a.txt").read_text() == "one\nTWO\nthree\n"
        assert (work / "b.txt").read_text() == "bee\n" and not (work / "c" / "d.txt").exists()

    async def test_a_file_edited_by_hand_afterwards_is_reported_and_overwritten_only_when_asked(self, make_harness, tmp_path):
        h, work = await run_two(make_harness, tmp_path)
        first, _ = prompt_uuids(h)
        store = store_of(h)
        (work / "a.txt").write_text("my own words\n")
        (work / "b.txt").write_text("bee, and mine\n")
        (work / "c" / "d.txt").unlink()  # gone by hand: already as it was before prompt 1, nothing to overwrite
        assert {p.name for p in store.hand_edited(first)} == {"a.txt", "b.txt"}
        kept = store.restore(first, overwrite_edited=False)
        assert {p.name for p in kept.kept} == {"a.txt", "b.txt"} and kept.removed == () and kept.restored == ()
        assert (work / "a.txt").read_text() == "my own words\n" and (work / "b.txt").exists()
        done = store.restore(first)
        assert {p.name for p in done.hand_edited} == {"a.txt", "b.txt"} and done.kept == ()
        assert (work / "a.txt").read_text() == "one\ntwo\nthree\n" and not (work / "b.txt").exists()
        assert store.hand_edited(first) == [], "what a restore leaves is the store's own again"

    async def test_a_file_deleted_by_hand_is_brought_back(self, make_harness, tmp_path):
        h, work = await run_two(make_harness, tmp_path)
        first, _ = prompt_uuids(h)
        (work / "a.txt").unlink()
        report = store_of(h).restore(first)
        assert [p.name for p in report.hand_edited] == ["a.txt"]
        assert (work / "a.txt").read_text() == "one\ntwo\nthree\n"

    async def test_an_unknown_prompt_is_an_error_that_changes_nothing(self, make_harness, tmp_path):
        h, work = await run_two(make_harness, tmp_path)
        before = {p.name: p.read_bytes() for p in work.rglob("*") if p.is_file()}
        try:
            store_of(h).restore("no-such-prompt")
        except UnknownPrompt:
            pass
        else:
            raise AssertionError("an unknown prompt must raise")
        assert {p.name: p.read_bytes() for p in work.rglob("*") if p.is_file()} == before

    async def test_a_resumed_session_still_rewinds_to_its_earlier_prompts(self, make_harness, tmp_path):
        h, work = await run_two(make_harness, tmp_path)
        first, _ = prompt_uuids(h)
        reopened = CheckpointStore(store_of(h).root)  # what a resume builds from the same folder
        assert reopened.prompts() == store_of(h).prompts()
        (work / "a.txt").write_text("by hand\n")
        assert [p.name for p in reopened.hand_edited(first)] == ["a.txt"]
        reopened.restore(first)
        assert (work / "a.txt").read_text() == "one\ntwo\nthree\n" and not (work / "b.txt").exists()


class TestSetting:
    async def test_file_checkpointing_enabled_false_in_settings_turns_it_off(self, make_harness, tmp_path):
        settings = tmp_path / "home" / ".claude" / "settings.json"
        settings.parent.mkdir(parents=True)
        settings.write_text(json.dumps({"fileCheckpointingEnabled": False}))
        h, work = await run_two(make_harness, tmp_path)
        store = store_of(h)
        assert store.prompts() == [] and not store.root.exists()
        assert (work / "b.txt").exists(), "the tools themselves ran as usual"


class TestPromptsWithoutChanges:
    async def test_a_session_that_changes_nothing_has_no_checkpoint_folder(self, make_harness, tmp_path):
        h = make_harness([Reply([Text("just talk")])])
        await h.agent.run("hello")
        store = store_of(h)
        assert store.prompts() == prompt_uuids(h) and not store.root.exists()

    def test_a_prompt_that_changed_nothing_is_a_rewind_target_and_is_saved_with_the_next_change(self, tmp_path):
        work = tmp_path / "work"
        setup_files(work)
        store = CheckpointStore(tmp_path / "session" / "checkpoints")
        store.begin_prompt("talk-only")
        store.begin_prompt("changes")
        store.before_write(work / "a.txt")
        (work / "a.txt").write_text("changed\n")
        store.after_write(work / "a.txt", b"changed\n")
        reopened = CheckpointStore(store.root)
        assert reopened.prompts() == ["talk-only", "changes"]
        assert [p.name for p in reopened.restore("talk-only").restored] == ["a.txt"]
        assert (work / "a.txt").read_text() == "one\ntwo\nthree\n"


class TestStoreFailure:
    async def test_a_checkpoint_that_cannot_be_saved_stops_the_write_with_a_clear_error(self, make_harness, tmp_path):
        work = tmp_path / "work"
        setup_files(work)
        a = str(work / "a.txt")
        h = make_harness([Reply([ToolUse("Read", {"file_path": a}, id="r")]),
                          Reply([ToolUse("Write", {"file_path": a, "content": "new\n"}, id="w")]), Reply([Text("ok")])],
                         permission_mode="acceptEdits")
        store = store_of(h)
        store.root.mkdir(parents=True)
        (store.root / "blobs").write_text("not a folder")  # where the blobs go cannot be written
        assert (await h.agent.run("write it")).reason == "completed"
        result = h.requests[2]["messages"][-1]["content"][0]
        assert result["is_error"] and "The file was not changed: its checkpoint could not be saved" in str(result["content"])
        assert (work / "a.txt").read_text() == "one\ntwo\nthree\n"


class TestWhatIsAPrompt:
    async def test_a_stop_hooks_continuation_belongs_to_the_prompt_it_continues(self, make_harness, tmp_path):
        """A Stop hook that blocks sends its words as a user message; the changes after it are still the
        prompt's, so a rewind to the prompt undoes them too."""
        work = tmp_path / "work"
        setup_files(work)
        marker = tmp_path / "stopped-once"
        hook = f"test -f {marker} || {{ touch {marker}; echo '{{\"decision\": \"block\", \"reason\": \"write c.txt too\"}}'; }}"
        settings = tmp_path / "home" / ".claude" / "settings.json"
        settings.parent.mkdir(parents=True)
        settings.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": hook}]}]}}))
        h = make_harness([
            Reply([ToolUse("Write", {"file_path": str(work / "b.txt"), "content": "b\n"}, id="w1")]),
            Reply([Text("b written")]),
            Reply([ToolUse("Write", {"file_path": str(work / "c.txt"), "content": "c\n"}, id="w2")]),
            Reply([Text("c written too")]),
        ], permission_mode="acceptEdits")
        ended = await h.agent.run("write b.txt")
        assert ended.reason == "completed" and marker.exists() and (work / "c.txt").exists()
        [prompt] = store_of(h).prompts()
        assert prompt == prompt_uuids(h)[0]
        assert {c.path.name for c in store_of(h).changes_in(prompt)} == {"b.txt", "c.txt"}
