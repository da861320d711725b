"""The agent's context seam: the meter, the thresholds of the moment, and when to prune, compact or recover.

`Agent` holds one `ContextManager` and calls it at a few points — after each response
(`after_response`), before each request (`before_request`), when a request fails (`after_error`), and
for /compact (`compact_now`); everything else about context lives in this package.

The circuit breaker: automatic compactions that fail, are blocked, or leave the context over the
threshold count in a row; after `MAX_INEFFECTIVE` of them, automatic compaction stops for the session
(a Notice says so) until a compaction brings the context under the threshold again (/compact).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from ..abort import AbortSignal
from ..events import CompactionFinished, ContextUpdated, EndReason, Notice
from ..history import INTERRUPT_NOTE
from ..model import ModelError
from ..user_settings import settings_reader
from .compaction import Compaction
from .pruning import prune_old_results
from .recovery import TOO_LONG_HINT, keep_count, parse_limit, target_tokens
from .tokens import ContextMeter, content_tokens, messages_tokens, request_tokens, text_tokens
from .summary import SUMMARY_INSTRUCTION
from .window import OUTPUT_RESERVE_CAP, Thresholds, thresholds

if TYPE_CHECKING:
    from ..loop import Agent

Cause = Literal["response", "compaction", "pruning", "estimate"]
Stop = tuple[EndReason, str]
"""(end reason, detail) for the loop to end the run with."""
MAX_INEFFECTIVE = 3
ABORTED: Stop = ("aborted", "Interrupted by user during compaction; the conversation is as it was.")
NOTHING_TO_COMPACT = "Not enough messages to compact."
BUSY = "A run is in progress: /compact can run once it has ended (ESC stops it)."


class ContextManager:
    """How full the agent's context is, against the thresholds its settings give; what to do about it."""

    def __init__(self, agent: "Agent") -> None:
        self.agent = agent
        self.meter = ContextMeter()
        self.ineffective = 0
        self.breaker_open = False
        """Automatic compaction stopped (MAX_INEFFECTIVE in a row did not help)."""
        self._recovered = False
        """A `prompt is too long` was recovered from since the last response (recover once)."""
        self._tool_tokens: tuple[tuple[Any, ...], int] = ((), 0)
        """(the tools, their definitions' tokens): measured again only when the tool set changes."""

    # ----- measuring ---------------------------------------------------------------------------
    def thresholds(self) -> Thresholds:
        """Read at the moment (an edit of the settings applies from the next request on)."""
        return thresholds(self.agent.model.config.model, read=settings_reader(self.agent.policy))

    def overhead(self) -> int:
        """What every request carries besides the history: system prompt, tool definitions, memory."""
        agent = self.agent
        total = content_tokens(agent.system_blocks())
        total += self._tools_tokens()
        if agent.memory is not None:
            probe: list[dict[str, Any]] = [{"role": "user", "content": []}]
            agent.memory.prepend(probe)
            total += content_tokens(probe[0]["content"])
        return total

    def _tools_tokens(self) -> int:
        # The definitions are the same JSON on every request unless a tool joins or leaves (an MCP
        # server connecting): serialising ~20 KB of schemas per request and per estimate is waste.
        tools = tuple(self.agent.registry.tools)
        if tools != self._tool_tokens[0]:
            import json

            definitions = [t.api_definition() for t in tools]
            self._tool_tokens = (tools, text_tokens(json.dumps(definitions, ensure_ascii=False, default=str)) if definitions else 0)
        return self._tool_tokens[1]

    def used(self) -> int:
        return self.meter.used(self.agent.history, self.overhead())

    def size(self, cause: Cause = "estimate") -> ContextUpdated:
        """The context size now, as the event the front ends show."""
        t = self.thresholds()
        return ContextUpdated(self.used(), t.window, t.autocompact, t.prune, t.model, cause, t.autocompact_enabled and not self.breaker_open)

    def report(self, cause: Cause) -> ContextUpdated:
        event = self.size(cause)
        self.agent.emit(event)
        return event

    # ----- the loop's seams --------------------------------------------------------------------
    def after_response(self, usage: dict[str, Any]) -> None:
        """A response arrived: its usage is the exact size of the context it saw plus its answer."""
        history = self.agent.history
        self.meter.observe(usage, history[-1] if history else None)
        if usage:
            self._recovered = False
            self.report("response")

    async def before_request(self, signal: AbortSignal) -> Stop | None:
        """Prune, then compact, when the next request would pass the thresholds; a Stop when ESC
        interrupted a compaction (the history is as it was, plus the interrupt note)."""
        t = self.thresholds()
        used = self.used()
        if t.prune_enabled and used > t.prune:
            used = self.prune(t.autocompact // 10) or used
        if not t.autocompact_enabled or self.breaker_open or used <= t.autocompact or not self._has_turns():
            return None
        finished = await self._compaction("auto", used, t).run(signal)
        return self._after_auto(finished, t)

    async def after_error(self, error: ModelError, request: dict[str, Any], signal: AbortSignal) -> Stop | None:
        """A request failed for good: None to send it again (recovered from `prompt is too long` by
        compacting its oldest part), else how the run ends."""
        if error.kind != "prompt_too_long":
            return ("model_error", str(error))
        limit = parse_limit(str(error))
        if self._recovered or limit is None:
            return ("prompt_too_long", f"{error}. {TOO_LONG_HINT}")
        self._recovered = True
        sent, maximum = limit
        t = self.thresholds()
        scale = sent / max(1, request_tokens(request))
        kept = keep_count(self.agent.history, self._tail_budget(t, maximum, scale))
        if kept is None:
            return ("prompt_too_long", f"{error}. {TOO_LONG_HINT}")
        history = self.agent.history
        finished = await Compaction(self.agent, "recovery", sent, head=history[: len(history) - kept], kept=kept).run(signal)
        if finished.outcome == "aborted":
            self.agent.record({"role": "user", "content": [{"type": "text", "text": INTERRUPT_NOTE}]})
            return ABORTED
        if finished.outcome != "compacted":
            return ("prompt_too_long", f"{error}. {finished.detail} {TOO_LONG_HINT}")
        self.report("compaction")
        return None

    async def compact_now(self, instructions: str = "") -> CompactionFinished:
        """/compact: summarise the whole conversation now; ESC (Agent.abort) leaves it as it was."""
        agent = self.agent
        used = self.used()
        # A run (or another compaction) owns the history and the abort signal until it ends: replacing
        # the history under it would break the conversation, and taking its signal would leave ESC
        # unable to stop it.
        refused = BUSY if agent._signal is not None else NOTHING_TO_COMPACT if not self._has_turns() else ""
        if refused:
            finished = CompactionFinished("manual", "failed", used, used, agent.clock(), agent.clock(), "", refused)
            agent.emit(finished)
            return finished
        signal = AbortSignal()
        agent._signal = signal
        try:
            finished = await self._compaction("manual", used, self.thresholds(), instructions).run(signal)
        finally:
            agent._signal = None
        if finished.outcome == "compacted":
            if finished.post_tokens <= self.thresholds().autocompact:
                self.ineffective, self.breaker_open = 0, False
            self.report("compaction")
        return finished

    # ----- helpers -----------------------------------------------------------------------------
    def _has_turns(self) -> bool:
        return any(m.get("role") == "assistant" for m in self.agent.history)

    def _tail_budget(self, t: Thresholds, maximum: int | None, scale: float) -> int:
        """Tokens (our estimate) the verbatim part may hold so the compacted history has room to spare."""
        # tail·scale + overhead·scale + the summary (real tokens) must stay under the target.
        return int((target_tokens(t, maximum) - OUTPUT_RESERVE_CAP) / max(scale, 1e-6) - self.overhead())

    def _compaction(self, trigger: Any, used: int, t: Thresholds, instructions: str = "") -> Compaction:
        """The whole history, unless its summary request would not fit: then only the oldest part."""
        history = self.agent.history
        request_size = self.overhead() + messages_tokens(history) + text_tokens(SUMMARY_INSTRUCTION)
        if request_size + OUTPUT_RESERVE_CAP <= t.window:
            return Compaction(self.agent, trigger, used, instructions)
        kept = keep_count(history, self._tail_budget(t, None, 1.0)) or 0
        return Compaction(self.agent, trigger, used, instructions, head=history[: len(history) - kept], kept=kept)

    def prune(self, min_saving: int) -> int | None:
        """Prune old results in one step; the context size after it (None when nothing was worth it)."""
        pruned = prune_old_results(self.agent, min_saving)
        if pruned is None:
            return None
        self.meter.reset()
        folder = self.agent.results.dir
        self.agent.emit(Notice("info", f"Cleared {len(pruned.stubs)} old tool result(s) from the context (~{pruned.tokens_freed:,} tokens); "
                                       f"their full output is kept under {folder} for the model to Read again."))
        return self.report("pruning").used

    def _after_auto(self, finished: CompactionFinished, t: Thresholds) -> Stop | None:
        if finished.outcome == "aborted":
            self.agent.record({"role": "user", "content": [{"type": "text", "text": INTERRUPT_NOTE}]})
            return ABORTED
        if finished.outcome == "compacted":
            self.report("compaction")
        if finished.outcome == "compacted" and finished.post_tokens <= t.autocompact:
            self.ineffective = 0
            return None
        self.ineffective += 1
        if self.ineffective >= MAX_INEFFECTIVE:
            self.breaker_open = True
            self.agent.emit(Notice("warning", (
                f"Automatic compaction stopped: {MAX_INEFFECTIVE} compactions in a row did not bring the context under "
                f"{t.autocompact:,} tokens ({finished.detail or f'{finished.post_tokens:,} tokens after the last'}). "
                "Use /compact with instructions on what to keep, or /clear to start over."
            )))
        return None
