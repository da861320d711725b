"""A web search the API ran is drawn in the conversation: the query, then its results."""

from __future__ import annotations

from pathlib import Path

from tui_agent.config import AgentSettings
from tui_agent.providers.scripted import Reply, ScriptedModel, ServerToolUse, Text, WebSearchResult
from tui_agent.ui.app import make_app

from tests.ui.app_support import transcript_text, until, until_idle


async def test_the_search_and_its_results_are_drawn_between_the_texts(project: Path) -> None:
    results = [{"title": f"Result {i}", "url": f"https://site{i}.example.org/page", "encrypted_content": "x"} for i in range(7)]
    script = [Reply([Text("Searching."), ServerToolUse({"query": "textual pilot"}, id="srvtoolu_1"),
                     WebSearchResult("srvtoolu_1", results), Text("Found it.")])]
    app = make_app(AgentSettings(cwd=project), scripted=ScriptedModel(script, web_search=True))
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.ready)
        app.submit("search please")
        await until_idle(pilot, app)
        text = transcript_text(app)
    assert text.index("Searching.") < text.index("Web search: “textual pilot”") < text.index("7 results") < text.index("Found it.")
    assert "· Result 0 — site0.example.org" in text and "… and 2 more" in text
