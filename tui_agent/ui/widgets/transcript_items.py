"""What the conversation pane shows, as state: one item per prompt, answer, thinking, tool call or notice.

Items know nothing of rendering; `cells.py` draws them. `version` changes whenever an item's drawing
would, so drawn lines can be cached per (item, version, width).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from .markdown_stream import MarkdownStream
from .tool_calls import ToolCall

NoticeKind = Literal["info", "warning", "error", "retry", "interrupted", "done"]


@dataclass(eq=False)
class TranscriptItem:
    expanded: bool = field(default=False, init=False)
    version: int = field(default=0, init=False)

    selectable = False
    """Whether the user can select the item to expand or collapse it."""

    def toggle(self) -> None:
        self.expanded = not self.expanded
        self.version += 1

    def changed(self) -> None:
        self.version += 1


@dataclass(eq=False)
class UserPrompt(TranscriptItem):
    text: str


@dataclass(eq=False)
class AssistantText(TranscriptItem):
    """The answer as it streams; its blocks finish one by one (see MarkdownStream)."""

    stream: MarkdownStream = field(default_factory=MarkdownStream)

    def append(self, text: str) -> None:
        self.stream.append(text)
        self.version += 1

    def close(self) -> None:
        if not self.stream.closed:
            self.stream.close()
            self.version += 1


@dataclass(eq=False)
class ThinkingText(TranscriptItem):
    text: str = ""
    redacted: int = 0
    """Redacted thinking blocks of the same message (encrypted: nothing to show but their number)."""
    selectable = True

    def append(self, text: str) -> None:
        self.text += text
        self.version += 1


@dataclass(eq=False)
class ToolCell(TranscriptItem):
    call: ToolCall
    selectable = True

    @property
    def version_key(self) -> tuple[int, int]:
        return self.version, self.call.version


@dataclass(eq=False)
class NoticeLine(TranscriptItem):
    kind: NoticeKind
    text: str
