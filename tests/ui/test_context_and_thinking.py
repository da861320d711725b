"""The context meter in the status line, `/context`, alt+t's thinking switch and redacted thinking, in the app
(Pilot, scripted model over the real SDK)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tui_agent.core.events import ContextUpdated, TextDelta
from tui_agent.providers.scripted import RedactedThinking, Reply, Text, Thinking, ToolUse
from tui_agent.ui.messages import AgentEvents
from tui_agent.ui.widgets.conversation import REDACTED_THINKING_TEXT

from tests.ui.app_support import build, transcript_text, until, until_idle
from tests.ui.app_support import type_keys


def status_text(app: Any) -> str:
    return str(app.status.render())


def meter(app: Any) -> int:
    found = re.search(r"(\d+)% context left", status_text(app))
    assert found, status_text(app)
    return int(found.group(1))


async def test_the_meter_shows_the_share_left_until_compaction_and_warns_when_low(project: Path) -> None:
    script = [Reply([Text("small")], input_tokens=20_000), Reply([Text("big " * 50)], input_tokens=150_000, chunk=4)]
    app, _ = build(project, script)
    batches: list[AgentEvents] = []
    async with app.run_test(size=(80, 24), message_hook=lambda m: batches.append(m) if isinstance(m, AgentEvents) else None) as pilot:
        await until(pilot, lambda: app.ready and app.status.state.context_left is not None)
        assert meter(app) >= 90  # a new session: only the system prompt and tools (~13k tokens with every built-in tool)
        await type_keys(pilot, *"one", "enter")
        await until_idle(pilot, app)
        assert 85 <= meter(app) <= 88  # (167k - ~20k) / 167k
        await type_keys(pilot, *"two", "enter")
        await until_idle(pilot, app)
        assert 8 <= meter(app) <= 11  # (167k - ~150k) / 167k: shown in the warning style
        assert app.status.state.context_left is not None and app.status.state.context_left <= 0.2
    events = [e for b in batches for e in b.events]
    # 50 deltas streamed (4 characters each; they reach the app joined per batch), the meter updated per response
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "small" + "big " * 50
    assert sum(isinstance(e, ContextUpdated) for e in events) == 3  # one at start, one per response: never per delta


async def test_the_meter_stays_visible_at_80_columns_while_running(project: Path) -> None:
    hold = project / "go-on"
    script = [Reply([ToolUse("Bash", {"command": f"until [ -e {hold} ]; do sleep 0.02; done"})], input_tokens=40_000), Reply([Text("ok")])]
    app, _ = build(project, script, permission_mode="bypassPermissions")
    async with app.run_test(size=(80, 24)) as pilot:
        await type_keys(pilot, *"wait", "enter")
        await until(pilot, lambda: any(c.phase == "running" for c in app.calls.calls.values()))
        await until(pilot, lambda: "context left" in status_text(app))
        line = status_text(app)
        assert "esc to interrupt" in line and len(line) <= 78
        hold.write_text("")
        await until_idle(pilot, app)


async def test_alt_t_switches_thinking_for_the_next_prompts(project: Path) -> None:
    app, model = build(project, [Reply([Text("a")]), Reply([Thinking("hmm"), Text("b")]), Reply([Text("c")])])
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.ready)
        assert "thinking" not in status_text(app)
        await type_keys(pilot, *"one", "enter")
        await until_idle(pilot, app)
        await pilot.press("alt+t")  # on
        assert "∴ thinking" in status_text(app)
        await type_keys(pilot, *"two", "enter")
        await until_idle(pilot, app)
        await pilot.press("alt+t")  # off again
        assert "∴ thinking" not in status_text(app)
        await type_keys(pilot, *"three", "enter")
        await until_idle(pilot, app)
    assert [r.get("thinking") for r in model.requests] == [None, {"type": "adaptive"}, None]
    assert "interleaved-thinking-2025-05-14" in model.request_headers[1]["anthropic-beta"]


async def test_context_command_names_the_parts_and_the_largest_results(project: Path) -> None:
    script = [
        Reply([ToolUse("Read", {"file_path": str(project / "app.py")}), ToolUse("Bash", {"command": "seq 1 3000"})]),
        Reply([Text("read it")]),
    ]
    (project / "CLAUDE.md").write_text("Prefer small functions.\n")
    app, _ = build(project, script, permission_mode="bypassPermissions")
    async with app.run_test(size=(160, 40)) as pilot:
        await type_keys(pilot, *"look", "enter")
        await until_idle(pilot, app)
        await type_keys(pilot, *"/context", "enter")
        await until(pilot, lambda: "Context usage" in transcript_text(app))
        text = transcript_text(app)
    for part in ("System prompt:", "System tools:", "Memory files:", "Messages:", "Tool results:", "Free space:",
                 "Autocompact buffer:", "Context left until auto-compact:", "Largest tool results:", str(project / "CLAUDE.md")):
        assert part in text, part
    largest = text.split("Largest tool results:")[1].splitlines()
    assert "Bash" in largest[1] and "seq 1 3000" in largest[1]
    assert "Read" in largest[2] and "app.py" in largest[2]


async def test_redacted_thinking_alone_is_one_muted_line(project: Path) -> None:
    app, model = build(project, [Reply([RedactedThinking("ENC=="), Text("answer")])])
    async with app.run_test(size=(100, 30)) as pilot:
        await type_keys(pilot, *"q", "enter")
        await until_idle(pilot, app)
        text = transcript_text(app)
    assert text.count(REDACTED_THINKING_TEXT) == 1


async def test_redacted_thinking_is_counted_on_the_thinking_line(project: Path) -> None:
    app, model = build(project, [Reply([Thinking("visible part"), RedactedThinking("ENC=="), Text("answer")]), Reply([Text("again")])])
    async with app.run_test(size=(100, 30)) as pilot:
        await type_keys(pilot, *"q", "enter")
        await until_idle(pilot, app)
        await type_keys(pilot, *"more", "enter")
        await until_idle(pilot, app)
        text = transcript_text(app)
    assert "∴ Thinking… (12 chars + 1 redacted)" in text and REDACTED_THINKING_TEXT not in text
    assert {"type": "redacted_thinking", "data": "ENC=="} in model.requests[1]["messages"][1]["content"]
