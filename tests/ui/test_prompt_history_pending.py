"""Prompts sent before the session exists (typed while the app starts) go into the prompt history once it does,
naming it; if the app closes before it ever exists, they are written without one rather than lost."""

from __future__ import annotations

import json
from pathlib import Path

from tui_agent.ui.prompt_history import PromptHistory


def lines(path: Path) -> list[dict]:
    return [json.loads(l) for l in path.read_text().splitlines()]


def test_a_prompt_sent_before_the_session_is_written_when_it_starts_naming_it(tmp_path: Path) -> None:
    history = PromptHistory(tmp_path, path=tmp_path / "history.jsonl", claude_path=tmp_path / "none.jsonl")
    history.add("early", None)
    assert history.texts() == ["early"] and not (tmp_path / "history.jsonl").exists()  # offered at once, kept back
    history.session_started("s1")
    history.add("later", "s1")
    assert [(l["display"], l["sessionId"]) for l in lines(tmp_path / "history.jsonl")] == [("early", "s1"), ("later", "s1")]
    history.session_started("s1")  # nothing waits now: nothing written twice
    assert len(lines(tmp_path / "history.jsonl")) == 2


def test_closing_before_any_session_writes_the_waiting_prompts_without_one(tmp_path: Path) -> None:
    history = PromptHistory(tmp_path, path=tmp_path / "history.jsonl", claude_path=tmp_path / "none.jsonl")
    history.add("typed then quit", None)
    history.session_started(None)
    assert [(l["display"], l["sessionId"]) for l in lines(tmp_path / "history.jsonl")] == [("typed then quit", None)]
