"""A scripted model that speaks the real Messages streaming wire protocol to the real `anthropic` SDK.

A script is a list of replies (or a function of the request) — text, thinking and tool_use blocks
streamed as SSE events (message_start, content_block_start/delta/stop with input_json_delta in
several chunks, ping, message_delta, message_stop), with timing, and faults: an HTTP error status
with retry-after, an `event: error` inside a 200 stream, a dropped connection, a stream that hangs.

It is served two ways, both behind the unmodified SDK:
- `ScriptedTransport`: an httpx2 transport handed to `AsyncAnthropic(http_client=...)` (in-process);
- `ScriptedServer`: a loopback HTTP/1.1 server, for `ANTHROPIC_BASE_URL=http://127.0.0.1:PORT`.
Every request body it receives is kept in `requests`, so tests can check what the model was sent.
"""

from __future__ import annotations

import asyncio
import json
import threading
import uuid
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Callable, Iterator

import httpx2

DEFAULT_SCRIPTED_MODEL = "claude-sonnet-4-6"


@dataclass(slots=True)
class Text:
    text: str


@dataclass(slots=True)
class Thinking:
    text: str
    signature: str = "scripted-signature"


@dataclass(slots=True)
class RedactedThinking:
    """A redacted_thinking block: encrypted, sent whole in content_block_start, returned unchanged."""

    data: str


@dataclass(slots=True)
class ToolUse:
    name: str
    input: dict[str, Any] | None = None
    # Send exactly this JSON instead of `input` (e.g. invalid JSON, or a key order to preserve).
    raw_json: str | None = None
    id: str | None = None


@dataclass(slots=True)
class ServerToolUse:
    """A call of one of the API's own tools (e.g. web_search), streamed like a tool_use."""

    input: dict[str, Any]
    name: str = "web_search"
    id: str | None = None


@dataclass(slots=True)
class WebSearchResult:
    """The API's web_search_tool_result block: sent whole in content_block_start."""

    tool_use_id: str
    results: list[dict[str, Any]] | None = None
    error_code: str | None = None
    """Send a web_search_tool_result_error with this code instead of results."""


Block = Text | Thinking | RedactedThinking | ToolUse | ServerToolUse | WebSearchResult


@dataclass(slots=True)
class Reply:
    """One streamed response."""

    blocks: list[Block]
    chunk: int = 24
    """Characters per text/thinking delta; tool JSON is split in about `json_chunks` pieces."""
    json_chunks: int = 3
    delay: float = 0.0
    """Seconds before each delta event."""
    block_delays: dict[int, float] = field(default_factory=dict)
    """Extra seconds before block i starts (to space tool calls out in time)."""
    tail_delay: float = 0.0
    """Seconds after the last block, before message_delta (the model still 'writing')."""
    stop_reason: str | None = None
    error_after: int | None = None
    """Send `event: error` after this many events (a mid-stream API error)."""
    error_type: str = "overloaded_error"
    drop_after: int | None = None
    """Cut the connection after this many events."""
    hang_after: int | None = None
    """Stop sending (but keep the connection) after this many events."""
    hang_for: float | None = None
    """With hang_after: go on after this many seconds instead of never."""
    ping_every: float = 0.0
    """With hang_after: send a ping event this often while silent (a slow but live stream)."""
    input_tokens: int | None = None
    output_tokens: int | None = None


@dataclass(slots=True)
class Fault:
    """An HTTP error response instead of a stream."""

    status: int
    error_type: str = "api_error"
    message: str = "scripted failure"
    retry_after: float | None = None
    retry_after_ms: float | None = None


Step = Reply | Fault
Handler = Callable[[dict[str, Any], int], Step]

_STATUS_TYPES = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
                 404: "not_found_error", 413: "request_too_large", 429: "rate_limit_error",
                 500: "api_error", 529: "overloaded_error"}


def fault(status: int, message: str = "scripted failure", *, retry_after: float | None = None, retry_after_ms: float | None = None) -> Fault:
    return Fault(status, _STATUS_TYPES.get(status, "api_error"), message, retry_after, retry_after_ms)


def first_user_text(body: dict[str, Any]) -> str:
    """The text of a request's first user message: what identifies a conversation (a subagent's prompt)."""
    for message in body.get("messages", []):
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                return content
            return "".join(b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text")
    return ""


class Conversations:
    """A handler serving several conversations at once (a parent and its subagents, concurrently).

    Each request goes to the first route whose key occurs in its first user message; each route is a
    script (or handler) of its own, stepped by that route's own count. Unmatched requests go to
    `default`. `requests[key]` keeps each route's request bodies, `times[key]` their arrival times.
    """

    def __init__(self, routes: dict[str, "list[Step] | Handler"], default: "list[Step] | Handler | None" = None) -> None:
        self.routes = routes
        self.default = default if default is not None else [Reply([Text("(scripted model: no route for this conversation)")])]
        self.requests: dict[str, list[dict[str, Any]]] = {}
        self.times: dict[str, list[float]] = {}
        self._lock = threading.Lock()

    def route(self, body: dict[str, Any]) -> str:
        text = first_user_text(body)
        return next((key for key in self.routes if key in text), "")

    def __call__(self, body: dict[str, Any], index: int) -> "Step":
        import time

        key = self.route(body)
        with self._lock:
            seen = self.requests.setdefault(key, [])
            n = len(seen)
            seen.append(body)
            self.times.setdefault(key, []).append(time.monotonic())
        script = self.routes[key] if key else self.default
        if callable(script):
            return script(body, n)
        if n >= len(script):
            return Reply([Text(f"(scripted model: no reply #{n + 1} for conversation {key!r})")])
        return script[n]


def _sse(kind: str, data: dict[str, Any]) -> bytes:
    return f"event: {kind}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


def _split(text: str, size: int) -> list[str]:
    size = max(1, size)
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


class ScriptExhausted(Exception):
    pass


class ScriptedModel:
    """Decides each response from the script and records every request it was sent."""

    def __init__(self, script: list[Step] | Handler, model: str = DEFAULT_SCRIPTED_MODEL, *, refuse_betas: bool = False, web_search: bool = False) -> None:
        self._script = script
        self.model = model
        self.refuse_betas = refuse_betas
        """Answer 400 to a request using a beta (a header or `defer_loading`), as endpoints without it do."""
        self.web_search = web_search
        """Whether this endpoint offers the API's server-side web search (the WebSearch tool is shown)."""
        self.requests: list[dict[str, Any]] = []
        self.request_headers: list[dict[str, str]] = []
        self.refused = 0
        self.request_times: list[float] = []
        self.response_end_times: list[float] = []
        self._lock = threading.Lock()

    def next_step(self, body: dict[str, Any], headers: dict[str, str] | None = None) -> Step:
        refused = self.refuse_betas and bool((headers or {}).get("anthropic-beta") or any(t.get("defer_loading") for t in body.get("tools", [])))
        with self._lock:
            index = len(self.requests) - self.refused
            self.requests.append(body)
            self.request_headers.append(dict(headers or {}))
            self.refused += refused
        if refused:  # not a turn of the script: the client is expected to try again without the beta
            return Fault(400, "invalid_request_error", "tools.0.defer_loading: Extra inputs are not permitted")
        import time

        self.request_times.append(time.monotonic())
        if callable(self._script):
            return self._script(body, index)
        if index >= len(self._script):
            return Reply([Text(f"(scripted model: no reply #{index + 1} in the script)")])
        return self._script[index]

    # ----- the wire protocol -----------------------------------------------------------------
    def events(self, reply: Reply, body: dict[str, Any]) -> Iterator[tuple[float, bytes]]:
        """(delay before, SSE bytes) for each event of `reply`."""
        msg_id = "msg_" + uuid.uuid4().hex[:20]
        in_tokens = reply.input_tokens if reply.input_tokens is not None else max(1, len(json.dumps(body)) // 4)
        yield 0.0, _sse("message_start", {
            "type": "message_start",
            "message": {"id": msg_id, "type": "message", "role": "assistant", "model": self.model,
                        "content": [], "stop_reason": None, "stop_sequence": None,
                        "usage": {"input_tokens": in_tokens, "output_tokens": 1,
                                  "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}},
        })
        yield 0.0, _sse("ping", {"type": "ping"})
        out_chars = 0
        has_tool = False
        for i, block in enumerate(reply.blocks):
            pause = reply.block_delays.get(i, 0.0)
            if isinstance(block, Text):
                yield pause, _sse("content_block_start", {"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}})
                for piece in _split(block.text, reply.chunk):
                    out_chars += len(piece)
                    yield reply.delay, _sse("content_block_delta", {"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": piece}})
            elif isinstance(block, Thinking):
                yield pause, _sse("content_block_start", {"type": "content_block_start", "index": i, "content_block": {"type": "thinking", "thinking": "", "signature": ""}})
                for piece in _split(block.text, reply.chunk):
                    out_chars += len(piece)
                    yield reply.delay, _sse("content_block_delta", {"type": "content_block_delta", "index": i, "delta": {"type": "thinking_delta", "thinking": piece}})
                yield 0.0, _sse("content_block_delta", {"type": "content_block_delta", "index": i, "delta": {"type": "signature_delta", "signature": block.signature}})
            elif isinstance(block, RedactedThinking):
                yield pause, _sse("content_block_start", {"type": "content_block_start", "index": i, "content_block": {"type": "redacted_thinking", "data": block.data}})
            elif isinstance(block, ServerToolUse):
                start = {"type": "server_tool_use", "id": block.id or "srvtoolu_" + uuid.uuid4().hex[:22], "name": block.name, "input": {}}
                yield pause, _sse("content_block_start", {"type": "content_block_start", "index": i, "content_block": start})
                yield reply.delay, _sse("content_block_delta", {"type": "content_block_delta", "index": i, "delta": {"type": "input_json_delta", "partial_json": json.dumps(block.input)}})
            elif isinstance(block, WebSearchResult):
                content: Any = (
                    {"type": "web_search_tool_result_error", "error_code": block.error_code}
                    if block.error_code else [{"type": "web_search_result", **r} for r in block.results or []]
                )
                result = {"type": "web_search_tool_result", "tool_use_id": block.tool_use_id, "content": content}
                yield pause, _sse("content_block_start", {"type": "content_block_start", "index": i, "content_block": result})
            else:
                has_tool = True
                tool_id = block.id or "toolu_" + uuid.uuid4().hex[:22]
                raw = block.raw_json if block.raw_json is not None else json.dumps(block.input or {})
                yield pause, _sse("content_block_start", {"type": "content_block_start", "index": i, "content_block": {"type": "tool_use", "id": tool_id, "name": block.name, "input": {}}})
                size = max(1, -(-len(raw) // max(1, reply.json_chunks)))
                for piece in _split(raw, size):
                    out_chars += len(piece)
                    yield reply.delay, _sse("content_block_delta", {"type": "content_block_delta", "index": i, "delta": {"type": "input_json_delta", "partial_json": piece}})
            yield 0.0, _sse("content_block_stop", {"type": "content_block_stop", "index": i})
        stop = reply.stop_reason or ("tool_use" if has_tool else "end_turn")
        out_tokens = reply.output_tokens if reply.output_tokens is not None else max(1, out_chars // 4)
        yield reply.tail_delay, _sse("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": out_tokens}})
        yield 0.0, _sse("message_stop", {"type": "message_stop"})

    async def stream_bytes(self, reply: Reply, body: dict[str, Any]) -> AsyncIterator[bytes]:
        """The response body, paced; raises `ConnectionResetError` where the script drops it."""
        import time

        for n, (delay, data) in enumerate(self.events(reply, body)):
            if reply.error_after is not None and n == reply.error_after:
                yield _sse("error", {"type": "error", "error": {"type": reply.error_type, "message": "scripted mid-stream error"}})
                return
            if reply.drop_after is not None and n == reply.drop_after:
                raise ConnectionResetError("scripted connection drop")
            if reply.hang_after is not None and n == reply.hang_after:
                async for ping in self._pause(reply):
                    yield ping
            if delay > 0:
                await asyncio.sleep(delay)
            yield data
        self.response_end_times.append(time.monotonic())

    @staticmethod
    async def _pause(reply: Reply) -> AsyncIterator[bytes]:
        """A silence (forever, or `hang_for` seconds), with pings if the reply asks for them."""
        import time

        end = None if reply.hang_for is None else time.monotonic() + reply.hang_for
        while end is None or time.monotonic() < end:
            left = None if end is None else end - time.monotonic()
            if not reply.ping_every:
                await (asyncio.Event().wait() if left is None else asyncio.sleep(left))
                return
            await asyncio.sleep(reply.ping_every if left is None else min(reply.ping_every, left))
            if end is None or time.monotonic() < end:
                yield _sse("ping", {"type": "ping"})

    @staticmethod
    def fault_body(f: Fault) -> tuple[bytes, list[tuple[str, str]]]:
        body = json.dumps({"type": "error", "error": {"type": f.error_type, "message": f.message}}).encode()
        headers = [("content-type", "application/json"), ("request-id", "req_scripted")]
        if f.retry_after is not None:
            headers.append(("retry-after", f"{f.retry_after:g}"))
        if f.retry_after_ms is not None:
            headers.append(("retry-after-ms", f"{f.retry_after_ms:g}"))
        # Tell the SDK not to retry on its own (we own the retries; it also runs with max_retries=0).
        headers.append(("x-should-retry", "false"))
        return body, headers

    # ----- in-process transport ------------------------------------------------------------
    def http_client(self) -> httpx2.AsyncClient:
        return httpx2.AsyncClient(transport=ScriptedTransport(self), base_url="http://scripted.invalid")


class _SSEStream(httpx2.AsyncByteStream):
    def __init__(self, source: AsyncIterator[bytes]) -> None:
        self._source = source

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._source:
                yield chunk
        except ConnectionResetError as exc:
            # What the real transport raises when the peer closes mid-body.
            raise httpx2.RemoteProtocolError(f"peer closed connection without sending complete message body ({exc})") from exc

    async def aclose(self) -> None:
        aclose = getattr(self._source, "aclose", None)
        if aclose is not None:
            await aclose()


class ScriptedTransport(httpx2.AsyncBaseTransport):
    def __init__(self, model: ScriptedModel) -> None:
        self.model = model

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(await request.aread() or b"{}")
        step = self.model.next_step(body, {k.lower(): v for k, v in request.headers.items()})
        if isinstance(step, Fault):
            content, headers = ScriptedModel.fault_body(step)
            return httpx2.Response(step.status, headers=headers, content=content, request=request)
        return httpx2.Response(
            200,
            headers=[("content-type", "text/event-stream"), ("request-id", "req_scripted")],
            stream=_SSEStream(self.model.stream_bytes(step, body)),
            request=request,
        )


class SilentListener:
    """A loopback port that accepts connections and never answers (a hung endpoint). With
    `full=True` its accept queue is filled first, so new connections are never even established
    (an endpoint that cannot be reached: the client's connect times out)."""

    def __init__(self, full: bool = False) -> None:
        import socket

        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(0 if full else 64)
        self.port = self._sock.getsockname()[1]
        self._fillers: list[Any] = []
        if full:
            for _ in range(4):  # the queue of a listen(0) socket holds one or two; the rest hang
                filler = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                filler.setblocking(False)
                try:
                    filler.connect(("127.0.0.1", self.port))
                except (BlockingIOError, OSError):
                    pass
                self._fillers.append(filler)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> "SilentListener":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        for filler in self._fillers:
            filler.close()
        self._sock.close()


class ScriptedServer:
    """The scripted model on a loopback port (its own thread and event loop)."""

    def __init__(self, model: ScriptedModel, host: str = "127.0.0.1", port: int = 0) -> None:
        self.model = model
        self.host = host
        self.port = port
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.AbstractServer | None = None
        self._ready = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self) -> "ScriptedServer":
        self._thread = threading.Thread(target=self._serve, name="scripted-server", daemon=True)
        self._thread.start()
        self._ready.wait(10)
        return self

    def __enter__(self) -> "ScriptedServer":
        return self if self._thread is not None else self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _serve(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop

        async def main() -> None:
            self._server = await asyncio.start_server(self._handle, self.host, self.port)
            self.port = self._server.sockets[0].getsockname()[1]
            self._ready.set()
            async with self._server:
                await self._server.serve_forever()

        try:
            loop.run_until_complete(main())
        except asyncio.CancelledError:
            pass
        finally:
            loop.close()

    def stop(self) -> None:
        if self._loop is not None and self._server is not None:
            loop, server = self._loop, self._server

            def shutdown() -> None:
                server.close()
                for task in asyncio.all_tasks(loop):
                    task.cancel()

            loop.call_soon_threadsafe(shutdown)
        if self._thread is not None:
            self._thread.join(5)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                headers = {k.strip().lower(): v.strip() for k, v in (l.split(":", 1) for l in lines[1:] if ":" in l)}
                length = int(headers.get("content-length", "0"))
                raw = await reader.readexactly(length) if length else b""
                body = json.loads(raw or b"{}")
                step = self.model.next_step(body, headers)
                if isinstance(step, Fault):
                    content, hdrs = ScriptedModel.fault_body(step)
                    writer.write(self._head(step.status, hdrs + [("content-length", str(len(content)))]) + content)
                    await writer.drain()
                    continue
                writer.write(self._head(200, [("content-type", "text/event-stream"), ("transfer-encoding", "chunked"), ("request-id", "req_scripted")]))
                try:
                    async for data in self.model.stream_bytes(step, body):
                        writer.write(b"%x\r\n%s\r\n" % (len(data), data))
                        await writer.drain()
                except ConnectionResetError:
                    writer.transport.abort()
                    return
                writer.write(b"0\r\n\r\n")
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    @staticmethod
    def _head(status: int, headers: list[tuple[str, str]]) -> bytes:
        reason = {200: "OK", 400: "Bad Request", 429: "Too Many Requests", 500: "Internal Server Error", 529: "Overloaded"}.get(status, "Error")
        lines = [f"HTTP/1.1 {status} {reason}"] + [f"{k}: {v}" for k, v in headers]
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
