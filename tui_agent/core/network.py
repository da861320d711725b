"""Time limits of one streamed request, so a silent endpoint never holds a run for minutes.

- connecting: `connect_timeout` (httpx's own connect limit);
- the response must start (status and headers) within `response_timeout` of the request;
- then the stream may stay silent at most `idle_timeout`. Every byte counts as life, pings included
  (the SDK swallows ping events, so life is read below it: a response hook wraps the body stream).

The watchdog cancels the streaming task when a limit passes and turns that cancel into a
`StreamSilentError`, which the retry policy treats as a dropped connection (after a response
started) or as an endpoint that never answers (before). The per-request state travels in a context
variable, so concurrent streams on one client (subagents) each have their own.
"""

from __future__ import annotations

import asyncio
import time
from contextvars import ContextVar, Token
from typing import Any, AsyncIterator

import httpx2

from .model import ModelConfig, StreamSilentError


class _Life:
    __slots__ = ("last", "answered")

    def __init__(self) -> None:
        self.last = time.monotonic()
        self.answered = False


_life: ContextVar[_Life | None] = ContextVar("tui_agent_stream_life", default=None)


class _LiveStream(httpx2.AsyncByteStream):
    """The response body, marking the request alive at every chunk."""

    def __init__(self, inner: Any, life: _Life) -> None:
        self._inner = inner
        self._life = life

    async def __aiter__(self) -> AsyncIterator[bytes]:
        life = self._life
        async for chunk in self._inner:
            life.last = time.monotonic()
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


async def _on_response(response: httpx2.Response) -> None:
    life = _life.get()
    if life is None:
        return
    life.answered = True
    life.last = time.monotonic()
    response.stream = _LiveStream(response.stream, life)


def watch_responses(client: httpx2.AsyncClient) -> httpx2.AsyncClient:
    """Let the watchdog see every byte of the responses `client` receives."""
    hooks = client.event_hooks
    if _on_response not in hooks["response"]:
        client.event_hooks = {**hooks, "response": [*hooks["response"], _on_response]}
    return client


def request_timeout(config: ModelConfig) -> httpx2.Timeout:
    """httpx's limits: a short connect; reads as long as the idle limit (the watchdog is finer)."""
    return httpx2.Timeout(config.idle_timeout, connect=config.connect_timeout)


class Watchdog:
    """Guards one streamed request in the current task (a `with` block around it)."""

    def __init__(self, response_timeout: float, idle_timeout: float) -> None:
        self._first = response_timeout
        self._idle = idle_timeout
        self._life = _Life()
        self._fired: str | None = None
        self._task: asyncio.Task[Any] | None = None
        self._handle: asyncio.TimerHandle | None = None
        self._token: Token[_Life | None] | None = None

    def __enter__(self) -> "Watchdog":
        self._task = asyncio.current_task()
        self._token = _life.set(self._life)
        self._handle = asyncio.get_running_loop().call_later(min(self._first, self._idle), self._check)
        return self

    def _check(self) -> None:
        life = self._life
        limit = self._idle if life.answered else self._first
        silent = time.monotonic() - life.last
        if silent < limit:
            # Never sleep past an idle limit: the response may start meanwhile, and its silences count from then.
            self._handle = asyncio.get_running_loop().call_later(min(limit - silent, self._idle), self._check)
            return
        if life.answered:
            self._fired = f"Stream idle timeout: no data for {limit:g}s after the response started"
        else:
            self._fired = f"the API endpoint sent no response within {limit:g}s"
        assert self._task is not None
        self._task.cancel()

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: Any) -> bool:
        if self._handle is not None:
            self._handle.cancel()
        if self._token is not None:
            _life.reset(self._token)
        if self._fired is not None and kind is not None and issubclass(kind, asyncio.CancelledError):
            assert self._task is not None
            if self._task.uncancel() == 0:  # our cancel alone: not an abort from outside
                raise StreamSilentError(self._fired, answered=self._life.answered) from None
        return False
