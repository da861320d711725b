"""What the loop does with a response's `stop_reason` (tool_use blocks still decide whether it goes on).

- `max_tokens` in text: the partial answer is kept and the model is asked to resume exactly where it
  stopped, up to 3 times in a row; the answer is the joined text. A 4th cut ends the run (`max_tokens`).
- `max_tokens` inside a tool_use: the cut call never runs. The response is retried once with
  `max_tokens` raised to the model's output maximum; cut again, the call is answered with an error
  asking the model to split the work; if the next response is cut too, the run ends (`max_tokens`).
- `refusal` ends the run with its own reason; `pause_turn` sends the conversation back as it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from .model_limits import UNKNOWN_MODEL_CEILING, known_ceiling

MAX_TEXT_CONTINUATIONS = 3
RESUME_PROMPT = (
    "Output token limit hit. Resume directly where you stopped, mid-sentence if that is where the cut "
    "happened: no apology, no recap of what you already wrote."
)
SPLIT_THE_WORK = (
    "Your response was cut off at the output token limit (max_tokens) while writing this tool call, so "
    "the call was NOT run. Split the work into smaller pieces (for example, write a large file in "
    "several smaller steps) and try again."
)


def output_maximum(model: str) -> int:
    """The table's output maximum for `model` (`model_limits`), or the unknown-model figure."""
    return known_ceiling(model) or UNKNOWN_MODEL_CEILING


def _text(content: list[dict[str, Any]]) -> str:
    return "".join(b.get("text", "") for b in content if b.get("type") == "text")


Action = Literal["go_on", "resume_text", "retry_raised", "answer_cut_tool", "pause", "end"]


@dataclass(frozen=True, slots=True)
class Verdict:
    action: Action
    reason: str = ""
    """For `end`: the run's end reason."""
    detail: str = ""
    cut_tool_id: str | None = None
    """For `answer_cut_tool`: the tool_use to answer with SPLIT_THE_WORK (None: it never completed)."""

    @property
    def record(self) -> dict[str, Any]:
        return {"subtype": "stop_reason", "action": self.action, "reason": self.reason, "detail": self.detail}


class StopReasons:
    """Per run: how many cuts in a row, and what was already tried."""

    def __init__(self, model: str, max_tokens: int = 0, ceiling: int | None = None) -> None:
        self.model = model
        self.ceiling = ceiling if ceiling is not None else output_maximum(model)
        """The most a request may ask for (the session's `OutputLimits.ceiling`): what a raised retry asks."""
        self.max_tokens = min(max_tokens, self.ceiling)
        """What requests ask for: a raised retry is pointless when it is already the maximum."""
        self.text_cuts = 0
        self.raise_next = False
        self._raised_once = False
        self._split_asked = False
        self._joined: list[str] = []

    def max_tokens_override(self) -> int | None:
        """The raised max_tokens for the next request only (a retried cut tool call)."""
        if not self.raise_next:
            return None
        self.raise_next = False
        return self.ceiling

    def judge(self, stop_reason: str | None, content: list[dict[str, Any]], cut_tool: tuple[bool, str | None], discardable: bool) -> Verdict:
        """`cut_tool`: (the last block is a tool_use cut before its input was whole, its id if it
        completed); `discardable`: no tool with effects started in this response."""
        if stop_reason == "refusal":
            return Verdict("end", "refusal", "The model declined to respond (stop_reason: refusal).")
        if stop_reason != "max_tokens":
            # A whole response ends the episode: a later cut starts over.
            self.text_cuts = 0
            self._raised_once = self._split_asked = False
            if stop_reason == "pause_turn" and not any(b.get("type") == "tool_use" for b in content):
                self._joined.append(_text(content))
                return Verdict("pause")
            return Verdict("go_on")
        if self._split_asked:
            return Verdict("end", "max_tokens", "The response was cut off at the output token limit again after the model was asked to split the work.")
        cut, cut_id = cut_tool
        if cut:
            if not self._raised_once and discardable and self.ceiling > self.max_tokens:
                self._raised_once = True
                self.raise_next = True
                return Verdict("retry_raised", detail=f"A tool call was cut off at the output token limit; retrying with max_tokens {self.ceiling}.")
            self._split_asked = True
            return Verdict("answer_cut_tool", detail="A tool call was cut off at the output token limit; the model is asked to split the work.", cut_tool_id=cut_id)
        if any(b.get("type") == "tool_use" for b in content):
            return Verdict("go_on")  # the cut fell after complete tool calls: their results go back
        if self.text_cuts >= MAX_TEXT_CONTINUATIONS:
            return Verdict("end", "max_tokens", f"The answer was cut off at the output token limit {self.text_cuts + 1} times in a row.")
        self.text_cuts += 1
        self._joined.append(_text(content))
        return Verdict("resume_text", detail=f"The answer was cut off at the output token limit; asking the model to resume ({self.text_cuts}/{MAX_TEXT_CONTINUATIONS}).")

    def joined(self, last: str) -> str:
        """The whole answer: the cut parts before `last`, joined."""
        text = "".join(self._joined) + last
        self._joined = []
        return text

    def partial(self) -> str:
        return "".join(self._joined)
