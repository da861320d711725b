"""Issue 24: every read on the model's behalf asks the gate. The real agent against the scripted model, real files
in a scratch repository and a scratch HOME holding a fake `~/.ssh/id_rsa`; the key (or another secret) must never be
in any request body nor in the transcript, and the legitimate uses still work."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from tests.core.context.scripts import conversation
from tests.core.support import Harness
from tui_agent.core.events import Notice
from tui_agent.core.mentions import run_prompt
from tui_agent.core.session.memory_imports import ImportApprovals
from tui_agent.providers.scripted import Reply, Text, ToolUse
from tui_agent.tools.read import ReadTool

KEY_MARK = "KEYMATERIAL-4f9c2e"
KEY = f"-----BEGIN OPENSSH PRIVATE KEY-----\n{KEY_MARK}\n-----END OPENSSH PRIVATE KEY-----\n"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def sent(h: Harness) -> str:
    """Every request body the model received, and the transcript on disk."""
    transcript = h.agent.session.transcript_path
    return json.dumps(h.requests) + (transcript.read_text() if transcript.exists() else "")


def warnings(h: Harness) -> list[str]:
    return [e.text for e in h.events if isinstance(e, Notice) and e.level == "warning"]


@pytest.fixture
def home(tmp_path: Path, data_home: Path) -> Path:
    home = tmp_path / "home"
    write(home / ".ssh" / "id_rsa", KEY)
    return home


@pytest.fixture
def work(tmp_path: Path, home: Path) -> Path:
    work = tmp_path / "work"
    (work / ".git").mkdir(parents=True)  # a repository: the project is this folder
    return work


def rules(folder: Path, **kinds: list[str]) -> None:
    write(folder / ".claude" / "settings.json", json.dumps({"permissions": kinds}))


class TestMemoryImports:
    async def test_imports_of_the_key_and_of_a_file_outside_are_not_sent_one_inside_loads(self, make_harness, work, home, tmp_path):
        write(tmp_path / "outside.txt", "OUTSIDE-7d1")
        write(work / "CLAUDE.md", "# rules\n@~/.ssh/id_rsa\n@../outside.txt\n@docs/guide.md\n")
        write(work / "docs" / "guide.md", "GUIDE-INSIDE-3b2")
        h = make_harness([Reply([Text("ok")])])
        await h.agent.run("hi")
        assert "GUIDE-INSIDE-3b2" in json.dumps(h.requests[0])
        assert KEY_MARK not in sent(h) and "OUTSIDE-7d1" not in sent(h)
        waiting = h.agent.memory.imports_to_ask()
        assert waiting == [(home / ".ssh" / "id_rsa").resolve(), (tmp_path / "outside.txt").resolve()]
        assert any("id_rsa" in w and "not loaded" in w for w in warnings(h))

    async def test_a_chain_that_leaves_the_project_at_depth_3_stops_there(self, make_harness, work, home):
        write(work / "CLAUDE.md", "@chain/one.md")
        write(work / "chain" / "one.md", "ONE @two.md")
        write(work / "chain" / "two.md", "TWO @../../home/.ssh/id_rsa")
        h = make_harness([Reply([Text("ok")])])
        await h.agent.run("hi")
        assert "TWO" in json.dumps(h.requests[0]) and KEY_MARK not in sent(h)

    async def test_a_claude_md_or_rule_that_links_to_the_key_is_an_outside_file(self, make_harness, work, home):
        (work / "CLAUDE.md").symlink_to(home / ".ssh" / "id_rsa")
        (work / ".claude" / "rules").mkdir(parents=True)
        (work / ".claude" / "rules" / "key.md").symlink_to(home / ".ssh" / "id_rsa")
        (work / "sub").mkdir()
        (work / "sub" / "CLAUDE.md").symlink_to(home / ".ssh" / "id_rsa")
        write(work / "sub" / "x.py", "x = 1\n")
        h = make_harness([Reply([ToolUse("Read", {"file_path": str(work / "sub" / "x.py")})]), Reply([Text("ok")])], tools=[ReadTool()])
        await h.agent.run("hi")
        assert KEY_MARK not in sent(h)
        assert h.agent.memory.imports_to_ask() == [(home / ".ssh" / "id_rsa").resolve()]

    async def test_an_outside_import_the_user_approved_loads_and_so_does_one_a_read_rule_names(self, make_harness, work, home, monkeypatch):
        write(home / "notes" / "n.md", "NOTES-9a1")
        write(home / "other" / "o.md", "OTHER-5c5")
        write(work / "CLAUDE.md", "@~/notes/n.md\n@~/other/o.md")
        rules(home, allow=["Read(~/notes/**)"])  # the user's own settings
        ImportApprovals(work, work, home=home).record([(home / "other" / "o.md").resolve()], approved=True)
        h = make_harness([Reply([Text("ok")])])
        await h.agent.run("hi")
        first = json.dumps(h.requests[0])
        assert "NOTES-9a1" in first and "OTHER-5c5" in first and h.agent.memory.imports_to_ask() == []

    @pytest.mark.parametrize("entry, loads", [
        ({"hasClaudeMdExternalIncludesApproved": True, "hasClaudeMdExternalIncludesWarningShown": True}, True),
        ({"hasClaudeMdExternalIncludesApproved": False, "hasClaudeMdExternalIncludesWarningShown": True}, False),
        ({"hasClaudeMdExternalIncludesApproved": False, "hasClaudeMdExternalIncludesWarningShown": False}, False),
    ])
    async def test_claude_codes_answer_in_claude_json_is_the_users(self, make_harness, work, home, entry, loads):
        write(home / "shared" / "s.md", "SHARED-2e8")
        write(work / "CLAUDE.md", "@~/shared/s.md")
        write(home / ".claude.json", json.dumps({"projects": {str(work.resolve()): entry}}))
        h = make_harness([Reply([Text("ok")])])
        await h.agent.run("hi")
        assert ("SHARED-2e8" in json.dumps(h.requests[0])) is loads
        never_asked = not entry["hasClaudeMdExternalIncludesWarningShown"]
        assert bool(h.agent.memory.imports_to_ask()) is never_asked  # a "no" is not asked again

    async def test_a_7_mb_claude_md_is_skipped_unread_with_a_warning(self, make_harness, work):
        write(work / "CLAUDE.md", "HUGE-START " + "word " * 1_600_000)  # about 8 MB
        started = time.monotonic()
        h = make_harness([Reply([Text("ok")])])
        await h.agent.run("hi")
        assert time.monotonic() - started < 3
        assert "HUGE-START" not in json.dumps(h.requests)
        assert any("4 MiB" in w and "CLAUDE.md" in w for w in warnings(h))

    async def test_a_memory_file_over_40000_characters_is_cut_with_a_note(self, make_harness, work):
        write(work / "CLAUDE.md", "START " + "y" * 60_000 + " TAIL-END")
        h = make_harness([Reply([Text("ok")])])
        await h.agent.run("hi")
        reminder = h.requests[0]["messages"][0]["content"][0]["text"]
        assert "START" in reminder and "TAIL-END" not in reminder and "is cut here" in reminder
        assert len(reminder) < 42_000


class TestMentions:
    async def test_at_env_is_not_attached_when_a_read_deny_rule_covers_it(self, make_harness, work):
        write(work / ".env", "API_TOKEN=ENVSECRET-81f")
        rules(work, deny=["Read(./.env)"])
        h = make_harness([Reply([Text("ok")])])
        await run_prompt(h.agent, "what is in @.env")
        assert "ENVSECRET-81f" not in sent(h)
        assert any("@.env was not attached" in w for w in warnings(h))

    async def test_without_the_rule_it_is_attached_and_a_read_rule_opens_a_folder_outside(self, make_harness, work, home):
        write(work / ".env", "API_TOKEN=ENVSECRET-81f")
        write(home / "notes" / "n.md", "NOTES-9a1")
        rules(home, allow=["Read(~/notes/**)"])
        h = make_harness([Reply([Text("ok")])])
        await run_prompt(h.agent, "see @.env and @~/notes/n.md and @~/.ssh/id_rsa")
        body = json.dumps(h.requests[0])
        assert "ENVSECRET-81f" in body and "NOTES-9a1" in body and KEY_MARK not in sent(h)


class TestSubdirectoryMemory:
    async def test_not_loaded_when_the_read_that_would_trigger_it_was_denied(self, make_harness, work):
        write(work / "pkg" / "CLAUDE.md", "PKG-RULES-6d0")
        secret = write(work / "pkg" / "secret.txt", "s")
        other = write(work / "pkg" / "ok.txt", "fine")
        rules(work, deny=["Read(./pkg/secret.txt)"])
        h = make_harness([Reply([ToolUse("Read", {"file_path": str(secret)})]), Reply([Text("denied")]),
                          Reply([ToolUse("Read", {"file_path": str(other)})]), Reply([Text("ok")])], tools=[ReadTool()])
        await h.agent.run("read the secret")
        assert "PKG-RULES-6d0" not in json.dumps(h.requests)
        await h.agent.run("read the other one")  # an allowed read still brings the folder's memory
        assert "PKG-RULES-6d0" in json.dumps(h.requests[-1])


def read_then_compact_script(paths: list[Path]) -> tuple[Any, dict[str, list[dict[str, Any]]]]:
    turns = [Reply([ToolUse("Read", {"file_path": str(p)}) for p in paths]), Reply([Text("read them")]), Reply([Text("after")])]
    return conversation(turns)


class TestCarryOverAfterCompaction:
    async def test_a_denied_read_of_the_key_does_not_come_back(self, make_harness, work, home):
        inside = write(work / "notes.txt", "INSIDE-NOTE-44c")
        handler, seen = read_then_compact_script([home / ".ssh" / "id_rsa", inside])
        h = make_harness(handler, tools=[ReadTool()])
        await h.agent.run("read my key")  # -p: nobody to ask, the read outside the folder is denied
        finished = await h.agent.compact()
        assert finished.outcome == "compacted"
        await h.agent.run("go on")
        assert KEY_MARK not in sent(h)
        assert "INSIDE-NOTE-44c" in json.dumps(seen["turns"][-1])  # the read that succeeded is carried over

    async def test_a_read_denied_by_a_rule_does_not_come_back(self, make_harness, work):
        env = write(work / ".env", "API_TOKEN=ENVSECRET-81f")
        rules(work, deny=["Read(./.env)"])
        handler, seen = read_then_compact_script([env])
        h = make_harness(handler, tools=[ReadTool()])
        await h.agent.run("read .env")
        await h.agent.compact()
        await h.agent.run("go on")
        assert "ENVSECRET-81f" not in sent(h)

    async def test_a_file_read_before_a_deny_rule_was_added_is_not_carried_over(self, make_harness, work):
        env = write(work / ".env", "API_TOKEN=ENVSECRET-81f")
        handler, seen = read_then_compact_script([env])
        h = make_harness(handler, tools=[ReadTool()])
        await h.agent.run("read .env")
        rules(work, deny=["Read(./.env)"])
        h.agent.policy.settings.reload(h.agent.policy.settings.source_for(work / ".claude" / "settings.json"), report_changes=False)
        await h.agent.compact()
        await h.agent.run("go on")
        assert "ENVSECRET-81f" not in json.dumps(seen["turns"][-1])


class TestTheUsersOwnFiles:
    async def test_a_users_claude_md_linked_to_dotfiles_loads_its_outside_imports_ask(self, make_harness, work, home):
        write(home / "dotfiles" / "CLAUDE.md", "DOTFILES-RULES-0c1 @~/dotfiles/more.md")
        write(home / "dotfiles" / "more.md", "MORE-7e7")
        (home / ".claude").mkdir(parents=True, exist_ok=True)
        (home / ".claude" / "CLAUDE.md").symlink_to(home / "dotfiles" / "CLAUDE.md")
        write(home / ".claude" / "rules" / "mine.md", "MY-RULE-2f2 @../extra.md")
        write(home / ".claude" / "extra.md", "EXTRA-INSIDE-CLAUDE-9d9")
        h = make_harness([Reply([Text("ok")])])
        await h.agent.run("hi")
        first = json.dumps(h.requests[0])
        assert "DOTFILES-RULES-0c1" in first and "MY-RULE-2f2" in first and "EXTRA-INSIDE-CLAUDE-9d9" in first
        assert "MORE-7e7" not in first and h.agent.memory.imports_to_ask() == [(home / "dotfiles" / "more.md").resolve()]


async def test_at_a_link_named_env_is_judged_by_the_name_typed_too(make_harness, work):
    write(work / "config" / "env.real", "API_TOKEN=ENVSECRET-81f")
    (work / ".env").symlink_to(work / "config" / "env.real")
    rules(work, deny=["Read(./.env)"])
    h = make_harness([Reply([Text("ok")])])
    await run_prompt(h.agent, "what is in @.env")
    assert "ENVSECRET-81f" not in sent(h)


async def test_a_claude_md_above_the_working_folder_linking_to_the_key_is_outside(make_harness, tmp_path, home):
    # An unpacked archive (no repository): its top folder's CLAUDE.md is an ancestor of where the user starts.
    work = tmp_path / "work"
    (work.parent / "CLAUDE.md").symlink_to(home / ".ssh" / "id_rsa")
    work.mkdir()
    h = make_harness([Reply([Text("ok")])])
    await h.agent.run("hi")
    assert KEY_MARK not in sent(h)
