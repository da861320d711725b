"""Project memory: which files, in which order, imports, dedupe, and where they land in the request."""

from __future__ import annotations

import os
from pathlib import Path

from tui_agent.core.events import Notice
from tui_agent.core.session.memory import MemoryReader, imports_in
from tui_agent.providers.scripted import Reply, Text, ToolUse
from tui_agent.tools.read import ReadTool


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def names(files, root: Path) -> list[str]:
    return [str(f.path.relative_to(root)) if f.path.is_relative_to(root) else str(f.path) for f in files]


class TestWhichFilesInWhichOrder:
    def test_broadest_first_then_each_directory_down_to_the_working_one(self, tmp_path):
        home, managed = tmp_path / "home", tmp_path / "etc" / "CLAUDE.md"
        write(managed, "managed")
        write(home / ".claude" / "CLAUDE.md", "user")
        write(home / ".claude" / "rules" / "style.md", "user rule")
        top, work = tmp_path / "top", tmp_path / "top" / "work"
        write(top / "CLAUDE.md", "top")
        write(work / "CLAUDE.local.md", "local")
        write(work / "CLAUDE.md", "work")
        write(work / "AGENTS.md", "agents")
        write(work / ".claude" / "CLAUDE.md", "dot")
        write(work / ".claude" / "rules" / "b.md", "rule b")
        write(work / ".claude" / "rules" / "a.md", "rule a")
        write(work / "sub" / "CLAUDE.md", "not yet")
        files = MemoryReader(work, home=home, managed=managed).startup()
        assert [f.content for f in files] == ["managed", "user", "user rule", "top", "work", "agents", "dot", "rule a", "rule b", "local"]
        assert [f.kind for f in files] == ["Managed", "User", "User", "Project", "Project", "Project", "Project", "Project", "Project", "Local"]

    def test_agents_md_that_links_to_or_repeats_claude_md_is_read_once(self, tmp_path):
        work = tmp_path / "w"
        write(work / "CLAUDE.md", "same rules\n")
        os.symlink(work / "CLAUDE.md", work / "AGENTS.md")
        write(work / ".claude" / "AGENTS.md", "same rules")  # same content, other file
        files = MemoryReader(work, home=tmp_path / "h", managed=tmp_path / "none").startup()
        assert names(files, work) == ["CLAUDE.md"]


class TestImports:
    def test_an_import_follows_the_file_that_imports_it_relative_to_that_file(self, tmp_path, monkeypatch):
        work = tmp_path / "w"
        write(work / "CLAUDE.md", "see @docs/a.md and @~/prefs.md\n\nthen more")
        write(work / "docs" / "a.md", "A imports @b.md")
        write(work / "docs" / "b.md", "B")
        write(tmp_path / "h" / "prefs.md", "prefs")
        write(work / ".claude" / "CLAUDE.md", "dot")
        prefs = (tmp_path / "h" / "prefs.md").resolve()  # outside the project: loads once approved
        files = MemoryReader(work, home=tmp_path / "h", managed=tmp_path / "none", approved=lambda real: real == prefs)
        monkeypatch.setenv("HOME", str(tmp_path / "h"))
        got = files.startup()
        assert [f.content for f in got] == ["see @docs/a.md and @~/prefs.md\n\nthen more", "A imports @b.md", "B", "prefs", "dot"]
        assert got[1].imported_by == work / "CLAUDE.md" and got[2].depth == 2

    def test_imports_stop_four_levels_down(self, tmp_path):
        work = tmp_path / "w"
        write(work / "CLAUDE.md", "@l1.md")
        for i in range(1, 7):
            write(work / f"l{i}.md", f"@l{i + 1}.md")
        got = MemoryReader(work, home=tmp_path / "h", managed=tmp_path / "none").startup()
        assert [f.path.name for f in got] == ["CLAUDE.md", "l1.md", "l2.md", "l3.md", "l4.md"]

    def test_a_cycle_is_read_once(self, tmp_path):
        work = tmp_path / "w"
        write(work / "CLAUDE.md", "@a.md")
        write(work / "a.md", "a @b.md")
        write(work / "b.md", "b @a.md @CLAUDE.md")
        got = MemoryReader(work, home=tmp_path / "h", managed=tmp_path / "none").startup()
        assert [f.path.name for f in got] == ["CLAUDE.md", "a.md", "b.md"]

    def test_never_inside_code_spans_or_fences(self):
        text = "use `@not/this.md` and\n\n```\n@nor/that.md\n```\n\n    @indented/code.md\n\nbut @yes.md, and me@example.com"
        assert imports_in(text) == ["yes.md,"]


class TestPlacementInTheRequest:
    async def test_a_system_reminder_opens_the_first_user_message_and_the_prompt_is_its_own_block(self, make_harness, tmp_path):
        work = tmp_path / "work"
        write(work / "CLAUDE.md", "Always answer in French.")
        write(work / "CLAUDE.local.md", "My local note.")
        h = make_harness([Reply([Text("oui")]), Reply([Text("encore")])])
        await h.agent.run("hello")
        await h.agent.run("again")
        for request in h.requests:
            first = request["messages"][0]["content"]
            reminder = first[0]["text"]
            assert reminder.startswith("<system-reminder>\nAs you answer the user's questions")
            assert f"Contents of {work / 'CLAUDE.md'} (project instructions, checked into the codebase):\n\nAlways answer in French." in reminder
            assert reminder.index("CLAUDE.md (project") < reminder.index("CLAUDE.local.md (user's private project instructions")
            assert "# currentDate\nToday's date is" in reminder
            assert "may or may not be relevant" not in reminder
            assert first[1]["text"] == "hello"
            assert "French" not in str(request["system"])
        assert h.requests[0]["messages"][0]["content"][0] == h.requests[1]["messages"][0]["content"][0]  # cache-stable
        assert h.agent.history[0] == {"role": "user", "content": "hello"}  # not stored in the history

    async def test_a_subdirectory_file_arrives_after_the_result_of_the_first_read_under_it(self, make_harness, tmp_path):
        work = tmp_path / "work"
        write(work / "pkg" / "CLAUDE.md", "pkg rules")
        write(work / "pkg" / "deep" / "CLAUDE.md", "deep rules")
        target = write(work / "pkg" / "deep" / "x.py", "x = 1\n")
        other = write(work / "pkg" / "y.py", "y = 1\n")
        h = make_harness(
            [Reply([ToolUse("Read", {"file_path": str(target)})]), Reply([ToolUse("Read", {"file_path": str(other)})]), Reply([Text("ok")])],
            tools=[ReadTool()],
        )
        await h.agent.run("look")
        results = h.requests[1]["messages"][2]["content"]
        assert results[0]["type"] == "tool_result"
        reminder = results[1]["text"]
        assert reminder.startswith("<system-reminder>\nContents of") and "pkg rules" in reminder and "deep rules" in reminder
        assert reminder.index("pkg rules") < reminder.index("deep rules")
        # Loaded once: the second read under pkg/ brings nothing new.
        assert [b["type"] for b in h.requests[2]["messages"][4]["content"]] == ["tool_result"]
        assert "pkg rules" not in str(h.requests[0])

    async def test_over_40k_characters_warns_once_naming_the_largest_file(self, make_harness, tmp_path):
        work = tmp_path / "work"
        write(work / "CLAUDE.md", "x" * 45_000)
        h = make_harness([Reply([Text("ok")])])
        warnings = [e.text for e in h.events if isinstance(e, Notice) and e.level == "warning"]
        assert len(warnings) == 1 and str(work / "CLAUDE.md") in warnings[0]
