"""@-mentions in the core (the app and `-p` both use them): which mentions attach, and how."""

from __future__ import annotations

from pathlib import Path

from tui_agent.core.mentions import attach_mentions, mentioned_paths, prompt_with_mentions
from tui_agent.tools.base import FileReadState, ToolContext, Workspace


def context(root: Path) -> ToolContext:
    return ToolContext(Workspace.at(root), root / ".session", FileReadState())


def test_mentions_are_found_at_word_starts_quoted_or_bare() -> None:
    text = 'see @a.py, @"my notes.md" and mail@example.com and @a.py again'
    assert mentioned_paths(text) == ["a.py,", "my notes.md", "a.py"]


async def test_only_existing_paths_inside_the_workspace_attach(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.py").write_text("x = 1\n")
    (root / "my notes.md").write_text("note\n")
    (tmp_path / "secret.txt").write_text("s\n")
    ctx = context(root)
    att = await attach_mentions('look at @a.py, @"my notes.md", @missing.py and @../secret.txt', ctx)
    assert att.paths == [root / "a.py", root / "my notes.md"]
    assert len(att.blocks) == 4 and "x = 1" in att.blocks[1]["text"] and "note" in att.blocks[3]["text"]
    assert att.problems == ["@../secret.txt is outside the workspace; it was not attached."]


async def test_a_prompt_without_mentions_is_sent_as_typed(tmp_path: Path) -> None:
    prompt, att = await prompt_with_mentions("no mentions here", context(tmp_path))
    assert prompt == "no mentions here" and att.blocks == []
