"""Output styles (core/output_styles.py) from real files in a scratch project and home: the built-ins, a custom
style, `keep-coding-instructions`, the settings' `outputStyle`, precedence, bad files, and the switch for the
session. The text is read from the request the scripted model received."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tui_agent.core.events import Notice
from tui_agent.core.output_styles import (
    BUILT_IN_STYLES, current_style_name, load_styles, save_choice, select_style, style_names,
)
from tui_agent.providers.scripted import Reply, Text

CODING = "# Doing software engineering work"


def style_file(folder: Path, file: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / file
    path.write_text(text)
    return path


def choose(work: Path, name: str) -> None:
    (work / ".claude").mkdir(parents=True, exist_ok=True)
    (work / ".claude" / "settings.json").write_text(json.dumps({"outputStyle": name}))


def system_text(request: dict) -> str:
    return "".join(block["text"] for block in request["system"])


PIRATE = """---
name: Pirate
description: Talks like a pirate
---
Answer like a pirate. PIRATE_MARKER
"""


@pytest.fixture
def work(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    return folder


class TestFiles:
    def test_front_matter_defaults_and_precedence(self, tmp_path):
        home, project = tmp_path / "home", tmp_path / "proj"
        style_file(home / ".claude" / "output-styles", "pirate.md", PIRATE.replace("PIRATE_MARKER", "FROM_HOME"))
        style_file(project / ".claude" / "output-styles", "pirate.md", PIRATE)
        style_file(project / ".claude" / "output-styles", "terse.md", "# Be terse\nOne line answers.\n")
        style_file(project / ".claude" / "output-styles", "keep.md", "---\nkeep-coding-instructions: true\n---\nKeep.\n")
        styles = load_styles(project, home)
        assert list(styles)[:2] == ["Explanatory", "Learning"]
        assert styles["Pirate"].source == "projectSettings" and "PIRATE_MARKER" in styles["Pirate"].prompt, "the project wins"
        assert styles["Pirate"].description == "Talks like a pirate" and not styles["Pirate"].keep_coding_instructions
        assert styles["terse"].description == "Be terse", "no front matter: the file's name and first line"
        assert styles["keep"].keep_coding_instructions

    def test_a_broken_file_is_skipped_with_a_reason_and_the_rest_load(self, tmp_path):
        folder = tmp_path / "proj" / ".claude" / "output-styles"
        style_file(folder, "bad.md", "---\nname: [unclosed\n---\nbody\n")
        style_file(folder, "good.md", PIRATE)
        problems: list[str] = []
        styles = load_styles(tmp_path / "proj", tmp_path / "home", problems)
        assert "Pirate" in styles and len(problems) == 1 and "bad.md" in problems[0] and "YAML" in problems[0]

    def test_a_style_that_links_out_of_its_folder_is_never_read(self, tmp_path):
        """A repository's style that is really the user's key: skipped and named, its text read by no one."""
        key = tmp_path / "home" / ".ssh" / "id_rsa"
        key.parent.mkdir(parents=True)
        key.write_text("---\nname: Key\ndescription: d\n---\nPRIVATE-KEY-MARKER\n")
        folder = tmp_path / "proj" / ".claude" / "output-styles"
        style_file(folder, "good.md", PIRATE)
        (folder / "key.md").symlink_to(key)
        problems: list[str] = []
        styles = load_styles(tmp_path / "proj", tmp_path / "home", problems)
        assert "Pirate" in styles and "Key" not in styles
        assert not any("PRIVATE-KEY-MARKER" in style.prompt for style in styles.values())
        assert len(problems) == 1 and "key.md" in problems[0] and "links out" in problems[0]

    def test_the_built_ins_are_ours_and_keep_the_coding_guidance(self):
        assert set(BUILT_IN_STYLES) == {"Explanatory", "Learning"}
        assert all(s.keep_coding_instructions and s.source == "built-in" for s in BUILT_IN_STYLES.values())
        assert "TODO(human)" in BUILT_IN_STYLES["Learning"].prompt and "Insight" in BUILT_IN_STYLES["Explanatory"].prompt


class TestInThePrompt:
    async def test_a_custom_style_chosen_in_settings_replaces_the_coding_guidance(self, make_harness, work):
        style_file(work / ".claude" / "output-styles", "pirate.md", PIRATE)
        choose(work, "Pirate")
        h = make_harness([Reply([Text("arr")])])
        await h.agent.run("hi")
        text = system_text(h.requests[0])
        # Where Claude Code puts it: after the environment block, under its own heading.
        assert text.index("# Environment") < text.index("# Output Style: Pirate\nAnswer like a pirate. PIRATE_MARKER")
        assert 'according to the "Output Style" section' in text
        assert CODING not in text, "keep-coding-instructions is false by default"
        assert "# Permissions" in text and "# Acting with care" in text
        assert current_style_name(h.agent) == "Pirate"

    async def test_keep_coding_instructions_keeps_them(self, make_harness, work):
        style_file(work / ".claude" / "output-styles", "pirate.md", PIRATE.replace("---\nA", "keep-coding-instructions: true\n---\nA"))
        choose(work, "Pirate")
        h = make_harness([Reply([Text("arr")])])
        await h.agent.run("hi")
        text = system_text(h.requests[0])
        assert CODING in text and "# Output Style: Pirate" in text

    @pytest.mark.parametrize("setting, name", [("Explanatory", "Explanatory"), ("learning", "Learning")])
    async def test_a_built_in_from_settings(self, make_harness, work, setting, name):
        choose(work, setting)
        h = make_harness([Reply([Text("ok")])])
        await h.agent.run("hi")
        text = system_text(h.requests[0])
        assert f"# Output Style: {name}\n" in text and CODING in text
        assert current_style_name(h.agent) == name

    async def test_a_user_style_from_home(self, make_harness, work, tmp_path):
        style_file(tmp_path / "home" / ".claude" / "output-styles", "mine.md", "---\nname: Mine\n---\nMINE_MARKER\n")
        choose(work, "Mine")
        h = make_harness([Reply([Text("ok")])])
        await h.agent.run("hi")
        assert "# Output Style: Mine\nMINE_MARKER" in system_text(h.requests[0])
        assert style_names(h.agent.policy) == ["default", "Explanatory", "Learning", "Mine"]

    async def test_an_unknown_style_is_named_once_and_the_default_is_used(self, make_harness, work):
        choose(work, "Nonexistent")
        h = make_harness([Reply([Text("ok")]), Reply([Text("ok")])])
        await h.agent.run("hi")
        await h.agent.run("again")
        warnings = [e.text for e in h.of(Notice) if "Nonexistent" in e.text]
        assert len(warnings) == 1 and "not found" in warnings[0]
        text = system_text(h.requests[0])
        assert "# Output Style" not in text and CODING in text
        assert current_style_name(h.agent) == "default"

    async def test_a_replaced_system_prompt_has_no_style(self, make_harness, work):
        choose(work, "Explanatory")
        h = make_harness([Reply([Text("ok")])], system_prompt="Only this.")
        await h.agent.run("hi")
        assert [b["text"] for b in h.requests[0]["system"]] == ["Only this."]


class TestSwitching:
    async def test_select_style_changes_the_next_request_and_back(self, make_harness, work):
        h = make_harness([Reply([Text("1")]), Reply([Text("2")]), Reply([Text("3")])])
        await h.agent.run("one")
        select_style(h.agent, "explanatory")
        await h.agent.run("two")
        select_style(h.agent, "default")
        await h.agent.run("three")
        texts = [system_text(r) for r in h.requests]
        assert "# Output Style" not in texts[0] and "# Output Style: Explanatory" in texts[1] and texts[2] == texts[0]
        with pytest.raises(KeyError):
            select_style(h.agent, "Nope")
        assert current_style_name(h.agent) == "default"

    async def test_the_session_choice_wins_over_the_settings(self, make_harness, work):
        choose(work, "Learning")
        h = make_harness([Reply([Text("1")])])
        select_style(h.agent, "Explanatory")
        await h.agent.run("one")
        assert "# Output Style: Explanatory" in system_text(h.requests[0])

    async def test_a_saved_choice_keeps_the_files_other_keys_and_applies_to_the_next_session(self, make_harness, work):
        local = work / ".claude" / "settings.local.json"
        local.parent.mkdir(parents=True)
        local.write_text(json.dumps({"permissions": {"allow": ["Bash(ls)"]}}))
        h = make_harness([Reply([Text("1")])])
        assert save_choice(h.agent.policy, "Learning") == local
        assert json.loads(local.read_text()) == {"permissions": {"allow": ["Bash(ls)"]}, "outputStyle": "Learning"}
        later = make_harness([Reply([Text("2")])])
        await later.agent.run("hi")
        assert "# Output Style: Learning" in system_text(later.requests[0])
