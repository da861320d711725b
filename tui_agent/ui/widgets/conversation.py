"""Turns the core's events into transcript items: where streamed text goes, when a tool cell appears,
which notice an ending gets."""

from __future__ import annotations

from ...core.events import (
    AssistantMessageFinished,
    CompactionFinished,
    CompactionProgress,
    CompactionStarted,
    Event,
    LoopEnded,
    Notice,
    PermissionAnswered,
    PermissionAsked,
    Retrying,
    ServerToolBlock,
    TextDelta,
    ThinkingDelta,
    ToolFinished,
    ToolProgress,
    ToolQueued,
    ToolStarted,
    TurnStarted,
)
from .tool_calls import ToolCall, ToolCalls
from .transcript import Transcript
from .transcript_items import AssistantText, NoticeKind, NoticeLine, ThinkingText, ToolCell, UserPrompt

INTERRUPTED_TEXT = "Interrupted · tell the agent what to do instead"
REDACTED_THINKING_TEXT = "∴ Thinking redacted by the API (kept encrypted and sent back unchanged)"


def redacted_thinking_count(message: dict) -> int:
    content = message.get("content")
    return 0 if isinstance(content, str) else sum(1 for b in content or [] if b.get("type") == "redacted_thinking")


class Conversation:
    def __init__(self, transcript: Transcript) -> None:
        self.transcript = transcript
        self._text: AssistantText | None = None
        self._thinking: ThinkingText | None = None
        self._cells: dict[str, ToolCell] = {}
        self._turn_start = 0  # where the current model response's items begin (dropped on a retry)
        self._interrupt_shown = False
        self._compacting: NoticeLine | None = None
        self._compacting_head = ""

    def user_prompt(self, text: str) -> None:
        self._interrupt_shown = False
        self.transcript.add(UserPrompt(text), now=True)

    def notice(self, kind: NoticeKind, text: str, *, now: bool = False) -> None:
        self._end_text()
        self.transcript.add(NoticeLine(kind, text), now=now)

    def interrupted(self) -> None:
        """ESC: say so at once, in the next frame: the pane follows the end in this same frame (a
        later scroll would paint once without the line, then again with it). The run's end
        (LoopEnded 'aborted') will not repeat it."""
        if not self._interrupt_shown:
            self._interrupt_shown = True
            self.notice("interrupted", INTERRUPTED_TEXT, now=True)
            if self.transcript.following:
                self.transcript.scroll_end(animate=False, immediate=True, x_axis=False)

    def tool_queued(self, call: ToolCall) -> None:
        self._end_text()
        cell = ToolCell(call)
        self._cells[call.id] = cell
        self.transcript.add(cell)

    def apply(self, calls: ToolCalls, event: Event, now: float) -> bool:
        """One event of the main agent on the calls' state and on the transcript: the one path for the
        live core's events and for a resumed conversation's replayed ones (core/session/replay.py), so
        the two draw alike. True when a call changed (its lane draws again)."""
        changed = False
        if isinstance(event, ToolQueued):
            self.tool_queued(calls.on_queued(event))
            changed = True
        elif isinstance(event, ToolStarted):
            changed = calls.on_started(event) is not None
        elif isinstance(event, ToolProgress):
            call = calls.on_progress(event, now)
            changed = call is not None
            if call is not None and call.name == "Agent":  # its cell shows the subagent's current tool
                self.call_changed(call.id)
        elif isinstance(event, PermissionAsked):
            changed = calls.on_asked(event) is not None
        elif isinstance(event, PermissionAnswered):
            changed = calls.on_answered(event) is not None
        elif isinstance(event, ToolFinished):
            changed = calls.on_finished(event) is not None
        self.on_event(event)
        return changed

    def on_event(self, event: Event) -> None:
        if isinstance(event, TextDelta):
            if self._text is None:
                self._text = AssistantText()
                self.transcript.add(self._text)
            self._text.append(event.text)
            self.transcript.changed(self._text)
        elif isinstance(event, ThinkingDelta):
            if self._thinking is None:
                self._thinking = ThinkingText()
                self.transcript.add(self._thinking)
            self._thinking.append(event.text)
            self.transcript.changed(self._thinking)
        elif isinstance(event, (ToolStarted, ToolFinished, PermissionAsked, PermissionAnswered)):
            cell = self._cells.get(event.tool_use_id if isinstance(event, (PermissionAsked, PermissionAnswered)) else event.id)
            if cell is not None:
                self.transcript.changed(cell)
        elif isinstance(event, TurnStarted):
            self._turn_start = len(self.transcript.items)
        elif isinstance(event, AssistantMessageFinished):
            self._end_text()
            redacted = redacted_thinking_count(event.message)
            if redacted and self._thinking is not None:  # counted on the message's thinking line
                self._thinking.redacted = redacted
                self._thinking.changed()
                self.transcript.changed(self._thinking)
            elif redacted:
                self.notice("info", REDACTED_THINKING_TEXT)
            self._thinking = None
        elif isinstance(event, Retrying):
            # The failed attempt is discarded by the core; drop what it showed so the retry does not repeat it.
            self._text = self._thinking = None
            self.transcript.truncate(self._turn_start)
            self.notice("retry", f"API error ({event.why}) · retrying in {event.delay:.1f}s (attempt {event.attempt})")
        elif isinstance(event, Notice):
            self.notice(event.level, event.text)
        elif isinstance(event, ServerToolBlock):
            from ...tools.web_search import describe_block  # a web search and its results, drawn as they arrive

            text = describe_block(event.block)
            if text:
                self.notice("info", text)  # closes the text so far: the answer goes on below
        elif isinstance(event, (CompactionStarted, CompactionProgress, CompactionFinished)):
            self._compaction(event)
        elif isinstance(event, LoopEnded):
            self._end(event)

    def _compaction(self, event: CompactionStarted | CompactionProgress | CompactionFinished) -> None:
        """One line that follows the compaction: started, the summary growing, then how it ended."""
        if isinstance(event, CompactionStarted):
            self._end_text()
            what = "Compacting conversation" if event.trigger == "manual" else "Context nearly full: compacting conversation"
            self._compacting = NoticeLine("retry", f"{what} ({event.pre_tokens / 1000:.1f}k tokens)…")
            self._compacting_head = self._compacting.text
            self.transcript.add(self._compacting, now=True)
            return
        line = self._compacting
        if line is None:
            return
        if isinstance(event, CompactionProgress):
            line.text = f"{self._compacting_head} · summary {event.chars:,} chars"
        else:
            self._compacting = None
            line.kind, line.text = compaction_outcome(event)
        line.changed()
        self.transcript.changed(line)

    def _end(self, event: LoopEnded) -> None:
        self._end_text()
        self._thinking = None
        self._cells.clear()
        if event.reason == "aborted":
            self.interrupted()
        elif event.reason in ("max_turns", "max_budget_usd"):
            self.notice("warning", event.detail, now=True)
        elif event.reason in ("model_error", "prompt_too_long", "max_tokens", "refusal"):
            self.notice("error", event.detail or "The model request failed.", now=True)
        else:
            self.transcript.flush()

    def _end_text(self) -> None:
        if self._text is not None:
            self._text.close()
            self.transcript.changed(self._text)
            self._text = None

    def call_changed(self, tool_use_id: str) -> None:
        """A call's cell shows something new that came outside its own events (a subagent's progress)."""
        cell = self._cells.get(tool_use_id)
        if cell is not None:
            self.transcript.changed(cell)

    def refresh_cells(self) -> None:
        """Calls changed outside the event flow (ESC marked them cancelled)."""
        for cell in self._cells.values():
            self.transcript.changed(cell)


def compaction_outcome(event: CompactionFinished) -> tuple[NoticeKind, str]:
    if event.outcome == "compacted":
        return "done", (f"Conversation compacted · {event.pre_tokens / 1000:.1f}k → {event.post_tokens / 1000:.1f}k tokens "
                        f"in {event.duration:.1f}s · the full history stays in the transcript")
    if event.outcome == "aborted":
        return "interrupted", "Compaction interrupted · the conversation is as it was"
    return "warning", f"Compaction {event.outcome}: {event.detail}"
