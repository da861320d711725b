"""/compact in the app: the summary request carries the instructions, the compaction is shown with its
outcome, ESC during it leaves the conversation as it was, and prompts typed meanwhile wait for it."""

from __future__ import annotations

import json
from pathlib import Path

from tests.core.context.scripts import conversation, custom_instructions, summary_reply
from tests.ui.app_support import type_keys
from tests.ui.app_support import build, transcript_text, until, until_idle
from tui_agent.core.context.summary import CONTINUED
from tui_agent.providers.scripted import Reply, Text


async def test_compact_with_instructions_in_the_app(project: Path) -> None:
    handler, seen = conversation([Reply([Text("First answer.")]), Reply([Text("Second answer.")])])
    app, model = build(project, handler)
    async with app.run_test(size=(100, 32)) as pilot:
        await until(pilot, lambda: app.ready)
        await type_keys(pilot, *"hello there", "enter")
        await until_idle(pilot, app)
        await type_keys(pilot, *"/compact keep the greetings", "enter")
        await until(pilot, lambda: "Conversation compacted" in transcript_text(app))
        await until_idle(pilot, app)
        assert custom_instructions(seen["summaries"][0]) == "keep the greetings"
        assert app.agent.history[0]["content"][0]["text"].startswith(CONTINUED)
        await type_keys(pilot, *"and now?", "enter")
        await until_idle(pilot, app)
    last = seen["turns"][-1]
    assert "First answer." not in json.dumps(last) and "and now?" in json.dumps(last)


async def test_esc_during_compact_in_the_app_leaves_the_conversation_as_it_was(project: Path) -> None:
    hang = summary_reply()
    hang.hang_after = 4  # the summary starts, then the model goes quiet until ESC
    handler, seen = conversation([Reply([Text("First answer.")])], summary=lambda body, n: hang)
    app, model = build(project, handler)
    async with app.run_test(size=(100, 32)) as pilot:
        await until(pilot, lambda: app.ready)
        await type_keys(pilot, *"hello there", "enter")
        await until_idle(pilot, app)
        before = json.dumps(app.agent.history)
        await type_keys(pilot, *"/compact", "enter")
        await until(pilot, lambda: "Compacting conversation" in transcript_text(app) and app.agent.running)
        assert app.running and "esc to interrupt" in str(app.status.render())
        await pilot.press("escape")
        await until(pilot, lambda: "Compaction interrupted" in transcript_text(app))
        await until_idle(pilot, app)
        assert json.dumps(app.agent.history) == before
        assert not any(l.get("subtype") == "compact_boundary" for l in app.agent.session.read())
