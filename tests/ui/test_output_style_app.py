"""`/output-style` in the real app (Pilot): the list marks the style in force, an argument switches it, and the
next request the scripted model receives carries the style in its system prompt."""

from __future__ import annotations

import json
from pathlib import Path

from tui_agent.providers.scripted import Reply, Text
from tui_agent.ui.widgets.transcript_items import NoticeLine

from tests.ui.app_support import build, until, until_idle
from tests.ui.app_support import type_keys


def notices(app) -> str:
    return "\n".join(i.text for i in app.transcript.items if isinstance(i, NoticeLine))


def system_text(request: dict) -> str:
    return "".join(block["text"] for block in request.get("system", []))


async def test_output_style_lists_and_switches_for_the_next_request(project: Path) -> None:
    styles = project / ".claude" / "output-styles"
    styles.mkdir(parents=True)
    (styles / "pirate.md").write_text("---\nname: Pirate\ndescription: Talks like a pirate\n---\nAnswer like a pirate. PIRATE_MARKER\n")
    app, model = build(project, [Reply([Text("plain")]), Reply([Text("arr")])])
    async with app.run_test(size=(110, 36)) as pilot:
        await until(pilot, lambda: app.ready)
        await type_keys(pilot, *"hello", "enter")
        await until(pilot, lambda: len(model.requests) == 1)
        await until_idle(pilot, app)

        await type_keys(pilot, *"/output-style", "enter")
        await until(pilot, lambda: "Output styles" in notices(app))
        listing = notices(app)
        assert "● default" in listing and "Pirate — Talks like a pirate" in listing and "Explanatory" in listing

        await type_keys(pilot, *"/output-style pirate", "enter")
        await until(pilot, lambda: "Output style: Pirate" in notices(app))
        await type_keys(pilot, *"again", "enter")
        await until(pilot, lambda: len(model.requests) == 2)
        await until_idle(pilot, app)

    first, second = (system_text(r) for r in model.requests)
    assert "# Output Style" not in first and "# Environment" in first
    assert "# Output Style: Pirate\nAnswer like a pirate. PIRATE_MARKER" in second
    assert [m["role"] for m in model.requests[1]["messages"]][:2] == ["user", "assistant"], "the conversation goes on"
    saved = json.loads((project / ".claude" / "settings.local.json").read_text())
    assert saved["outputStyle"] == "Pirate", "kept for the next session, where Claude Code keeps it"


async def test_an_unknown_style_is_refused_and_nothing_changes(project: Path) -> None:
    app, model = build(project, [Reply([Text("ok")])])
    async with app.run_test(size=(110, 36)) as pilot:
        await until(pilot, lambda: app.ready)
        await type_keys(pilot, *"/output-style nope", "enter")
        await until(pilot, lambda: any("No output style 'nope'" in n.message for n in app._notifications))
        await type_keys(pilot, *"hi", "enter")
        await until(pilot, lambda: len(model.requests) == 1)
        await until_idle(pilot, app)
    assert "# Output Style" not in system_text(model.requests[0])
