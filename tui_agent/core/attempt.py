"""One model response: streamed, retried until it arrives whole, fails for good, or is aborted.

A streamed attempt that fails midway may already have started tools (streaming execution). If only
concurrency-safe read-only ones started, the attempt is discarded (its tools stopped, each with a
final result event) and retried. If a tool with effects started, the attempt is kept instead: its
complete blocks stand, the half-streamed one is dropped, its tools finish, and the model is told the
response was cut — that request replaces the retry, so nothing that ran is hidden or run twice.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any, Callable

from .abort import AbortSignal
from .events import Event, Notice, Retrying, ServerToolBlock, StreamMark, TextDelta, ThinkingDelta
from .executor import StreamingToolExecutor
from .model import MessageAssembler, ModelClient, ModelError, describe_error, final_error, retry_plan

MARKED = frozenset({"message_start", "content_block_start", "content_block_stop", "message_delta", "message_stop"})
# Deltas the assembler reports as TextDelta / ThinkingDelta; every other delta (input_json_delta,
# signature_delta, citations_delta) goes out as a StreamMark, for --include-partial-messages.
REPORTED_DELTAS = frozenset({"text_delta", "thinking_delta"})
DISCARDED = "The response failed midway and is being retried; this call was discarded."
CUT_NOTE = (
    "[The response above was cut off by a connection error. Its complete tool calls were run; their "
    "results are above. Continue from there.]"
)


@dataclass(slots=True)
class Response:
    """What one model response left: its blocks (assembler), its tools (executor), and how it ended."""

    assembler: MessageAssembler
    executor: StreamingToolExecutor | None
    aborted: bool = False
    error: ModelError | None = None
    cut_by: str = ""
    """Why a failed attempt was kept (tools with effects had started); empty for a whole response."""

    def content(self) -> list[dict[str, Any]]:
        """The blocks to store: partial text too when aborted; only complete blocks when cut."""
        return self.assembler.content(complete_only=self.aborted and not self.cut_by)

    @property
    def has_tools(self) -> bool:
        return self.executor is not None and self.executor.has_tools

    def meta(self) -> dict[str, Any]:
        """What the transcript keeps of the response besides its blocks (Claude Code's envelope)."""
        a = self.assembler
        return {"id": a.message_id, "model": a.model, "stop_reason": a.stop_reason, "usage": a.usage}


def _empty_assembler() -> MessageAssembler:
    noop = lambda *a: None  # noqa: E731
    return MessageAssembler(noop, noop, noop)


async def sleep_or_abort(delay: float, signal: AbortSignal) -> bool:
    """Sleep `delay` seconds; True when the run was aborted meanwhile."""
    if signal.aborted:
        return True
    waiter = asyncio.get_running_loop().create_future()
    remove = signal.on_abort(lambda _r: waiter.done() or waiter.set_result(None))
    try:
        await asyncio.wait_for(waiter, delay)
    except asyncio.TimeoutError:
        pass
    finally:
        remove()
    return signal.aborted


class ResponseStreamer:
    """Streams one response for the loop; `on_executor` tells the agent which executor is current
    (so a lane can be cancelled alone)."""

    def __init__(
        self,
        model: ModelClient,
        new_executor: Callable[[], StreamingToolExecutor],
        emit: Callable[[Event], None],
        on_executor: Callable[[StreamingToolExecutor | None], None],
        on_block: Callable[[MessageAssembler, dict[str, Any]], None] | None = None,
        on_drop: Callable[[], None] = lambda: None,
    ) -> None:
        self.model = model
        self.new_executor = new_executor
        self.emit = emit
        self.on_executor = on_executor
        self.on_block = on_block
        """Each complete block as it arrives (the transcript's write-ahead)."""
        self.on_drop = on_drop
        """An attempt's blocks are not kept (it failed and is retried, or failed for good)."""

    def _feeder(self, assembler: MessageAssembler) -> Callable[[Any], None]:
        """The assembler's feed, then a StreamMark for each event that is not a delta."""
        feed, emit = assembler.feed, self.emit

        def feed_and_mark(event: Any) -> None:
            feed(event)
            if event.type in MARKED or (event.type == "content_block_delta" and event.delta.type not in REPORTED_DELTAS):
                emit(StreamMark(event.to_dict(mode="json")))

        return feed_and_mark

    async def respond(self, request: dict[str, Any], signal: AbortSignal) -> Response:
        attempt = 0
        first = time.monotonic()
        emit = self.emit
        while True:
            attempt += 1
            executor = self.new_executor()
            self.on_executor(executor)
            assembler = MessageAssembler(
                on_text=lambda text, index: emit(TextDelta(text, index)),
                on_thinking=lambda text, index: emit(ThinkingDelta(text, index)),
                on_tool_use=executor.add_tool,
                on_server_block=lambda block: emit(ServerToolBlock(block)),
                on_block=self.on_block,
            )
            task = asyncio.get_running_loop().create_task(self.model.stream(request, self._feeder(assembler)))
            remove = signal.on_abort(lambda _r: task.cancel())
            try:
                await task
                return Response(assembler, executor, aborted=signal.aborted)
            except asyncio.CancelledError:
                if not signal.aborted:
                    task.cancel()
                    raise
                return Response(assembler, executor, aborted=True)
            except Exception as exc:
                if signal.aborted:
                    return Response(assembler, executor, aborted=True)
                if executor.started_effects():
                    why = describe_error(exc)[3]
                    self.emit(Notice("warning", f"The response was cut by a connection error ({why}); the tools it started finish and the model is told."))
                    return Response(assembler, executor, cut_by=why)
                await executor.discard(DISCARDED)
                self.on_drop()
                plan = retry_plan(exc, attempt, self.model.config, time.monotonic() - first)
                if plan is None:
                    self.on_executor(None)
                    return Response(_empty_assembler(), None, error=final_error(exc))
                self.emit(Retrying(attempt, plan.delay, plan.why))
                if await sleep_or_abort(plan.delay, signal):
                    # Nothing of the failed attempt is kept: its tools' results must not be sent.
                    self.on_executor(None)
                    return Response(_empty_assembler(), None, aborted=True)
            finally:
                remove()
