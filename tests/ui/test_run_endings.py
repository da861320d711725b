"""The app tells how a run ended when it was not a plain answer: a rejected key, an answer cut by the
output limit, a refusal; and the prompt works again after each."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui_agent.providers.scripted import Reply, Text, fault
from tui_agent.ui.widgets.transcript_items import NoticeLine

from tests.ui.app_support import build, transcript_text, until_idle
from tests.ui.app_support import type_keys


@pytest.mark.parametrize("script,expected", [
    ([fault(401, "invalid x-api-key")], "ANTHROPIC_API_KEY"),
    ([Reply([Text(f"part{i} ")], stop_reason="max_tokens") for i in range(4)], "output token limit"),
    ([Reply([Text("No.")], stop_reason="refusal")], "declined"),
], ids=["401", "max_tokens", "refusal"])
async def test_an_error_ending_is_a_notice_and_the_prompt_works_again(project: Path, script, expected: str) -> None:
    app, model = build(project, [*script, Reply([Text("second answer")])])
    async with app.run_test(size=(100, 32)) as pilot:
        await type_keys(pilot, *"hi", "enter")
        await until_idle(pilot, app)
        notices = [item for item in app.transcript.items if isinstance(item, NoticeLine)]
        assert notices and expected in notices[-1].text and notices[-1].kind == "error"
        await type_keys(pilot, *"again", "enter")
        await until_idle(pilot, app)
        assert "second answer" in transcript_text(app)
