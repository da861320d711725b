"""A transcript alone in an app, and a streamed answer fed into it: the set-up of the paint tests."""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult

from tui_agent.ui.widgets.transcript import Transcript
from tui_agent.ui.widgets.transcript_items import AssistantText


class TranscriptPane(App[None]):
    def compose(self) -> ComposeResult:
        self.transcript = Transcript(id="transcript")
        yield self.transcript


def paragraphs(count: int, first: int = 0) -> str:
    return "".join(f"paragraph {n}\n\n" for n in range(first, first + count))


async def stream_answer(transcript: Transcript, pilot: Any, text: str) -> AssistantText:
    """A new answer holding `text`, drawn; two pauses, as an overflowing pane shows its scrollbar only
    after the first overflow's layout."""
    answer = AssistantText()
    transcript.add(answer, now=True)
    answer.append(text)
    transcript.changed(answer, now=True)
    await pilot.pause()
    await pilot.pause()
    return answer
