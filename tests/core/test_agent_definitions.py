"""Subagent definition files: Claude Code's format, where they are looked for, reload, clear errors."""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path
from typing import Any

from tui_agent.core.agents.definitions import AgentCatalog, describe_catalog, parse_definition, resolve_model, search_dirs


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text)
    return path


class TestParsing:
    def test_front_matter_fields_and_body(self) -> None:
        d = parse_definition("---\nname: rev\ndescription: Reviews\ntools: Read, Grep ,Glob\ndisallowedTools: Grep\nmodel: haiku\ncolor: red\n---\n\nBe careful.\n", "x.md")
        assert (d.name, d.description, d.tools, d.disallowed_tools, d.model) == ("rev", "Reviews", ["Read", "Grep", "Glob"], ["Grep"], "haiku")
        assert d.system_prompt == "Be careful."
        assert d.tools_label() == "Read, Glob"

    def test_tools_as_a_yaml_list_and_defaults(self) -> None:
        d = parse_definition("---\nname: a\ndescription: b\ntools: [Read, Bash]\n---\nbody", "x.md")
        assert d.tools == ["Read", "Bash"] and d.model == "inherit"
        d = parse_definition("---\nname: a\ndescription: b\n---\n", "x.md")
        assert d.tools is None and d.tools_label() == "*"

    def test_problems_name_the_file_and_the_field(self) -> None:
        for text, expected in (
            ("no front matter", "x.md: no YAML front matter"),
            ("---\nname: a\n", "x.md: the YAML front matter is not closed"),
            ("---\nname: [a\n---\n", "x.md: invalid YAML front matter"),
            ("---\nname: a\n---\nbody", "x.md: description: Field required"),
            ("---\n- a\n---\n", "x.md: the front matter must be a mapping"),
            ("---\nname: a\ndescription: b\ntools: 3\n---\n", "x.md: tools: Value error, must be a comma-separated list"),
        ):
            try:
                parse_definition(text, "x.md")
            except ValueError as exc:
                assert str(exc).startswith(expected), str(exc)
            else:
                raise AssertionError(f"accepted: {text!r}")

    def test_model_aliases(self) -> None:
        assert resolve_model("inherit", "claude-x") == "claude-x"
        assert resolve_model(None, "claude-x") == "claude-x"
        assert resolve_model("sonnet", "claude-x") == "claude-sonnet-4-6"
        assert resolve_model("claude-opus-4-1", "claude-x") == "claude-opus-4-1"


class TestCatalog:
    def test_searched_from_the_working_folder_up_to_the_git_root_and_home(self, tmp_path: Path) -> None:
        repo = tmp_path / "repo"
        (repo / ".git").mkdir(parents=True)
        cwd = repo / "pkg" / "sub"
        cwd.mkdir(parents=True)
        home = tmp_path / "home"
        dirs = search_dirs(cwd, home)
        assert dirs == [home / ".claude/agents", repo / ".claude/agents", repo / "pkg/.claude/agents", cwd / ".claude/agents"]
        write(home / ".claude/agents", "a.md", "---\nname: shared\ndescription: from home\n---\n")
        write(repo / ".claude/agents", "a.md", "---\nname: shared\ndescription: from the repo\n---\n")
        write(cwd / ".claude/agents", "b.md", "---\nname: local\ndescription: here\n---\n")
        write(tmp_path / ".claude/agents", "c.md", "---\nname: outside\ndescription: above the git root\n---\n")
        catalog = AgentCatalog(cwd, home)
        names = [d.name for d in catalog.definitions()]
        assert names == ["general-purpose", "Explore", "Plan", "shared", "local"]
        assert catalog.find("shared").description == "from the repo"

    def test_outside_a_git_repository_only_the_working_folder(self, tmp_path: Path) -> None:
        cwd = tmp_path / "a" / "b"
        cwd.mkdir(parents=True)
        assert search_dirs(cwd, tmp_path / "home") == [tmp_path / "home/.claude/agents", cwd / ".claude/agents"]

    def test_files_are_reloaded_when_they_change_and_broken_ones_are_reported(self, tmp_path: Path) -> None:
        folder = tmp_path / ".claude" / "agents"
        catalog = AgentCatalog(tmp_path, tmp_path / "home")
        assert catalog.find("rev") is None
        path = write(folder, "rev.md", "---\nname: rev\ndescription: one\n---\n")
        assert catalog.find("rev").description == "one"
        path.write_text("---\nname: rev\ndescription: two, longer\n---\n")
        os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 1_000_000))
        assert catalog.find("rev").description == "two, longer"
        write(folder, "bad.md", "---\nname: bad\n---\n")
        assert catalog.find("rev") is not None
        assert catalog.problems == (f"{folder / 'bad.md'}: description: Field required",)
        listing = describe_catalog(catalog)
        assert "  rev · tools: * · model: inherit\n      two, longer\n      from " in listing and "Not loaded:" in listing and "bad.md" in listing
        path.unlink()
        assert catalog.find("rev") is None
        assert "- general-purpose: " in catalog.listing() and catalog.listing().startswith("Available agent types for the Agent tool:\n")

    def test_a_lookup_while_another_thread_loads_the_files_sees_them(self, tmp_path: Path) -> None:
        """The app's thread lists the types (`/agents`) while the agent's thread is still in the first load: the
        listing has the files too, not only the built-in types (seen in CI on a worker's first UI test)."""
        write(tmp_path / ".claude/agents", "rev.md", "---\nname: rev\ndescription: one\n---\n")
        catalog = AgentCatalog(tmp_path, tmp_path / "home")
        in_load, release = threading.Event(), threading.Event()

        def pause_in_parse(frame: Any, event: str, arg: Any) -> None:
            if event == "call" and frame.f_code.co_name == "parse_definition":
                in_load.set()
                release.wait(30)

        def first_lookup() -> None:
            sys.settrace(pause_in_parse)  # this thread only
            catalog.state()

        loader = threading.Thread(target=first_lookup)
        loader.start()
        try:
            assert in_load.wait(30)
            names = [d.name for d in catalog.definitions()]
        finally:
            release.set()
            loader.join(30)
        assert "rev" in names
        assert "rev" in [d.name for d in catalog.definitions()]


def test_the_subagent_modules_never_import_textual() -> None:
    import subprocess
    import sys

    code = (
        "import sys, tui_agent.core.agents.runner, tui_agent.core.agents.definitions, tui_agent.core.agents.sidechain, "
        "tui_agent.tools.agent, tui_agent.protocol.subagent_messages;"
        "bad=[m for m in sys.modules if m == 'textual' or m.startswith('textual.')];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
