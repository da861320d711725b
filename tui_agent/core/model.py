"""The model client: streamed Messages requests as the `anthropic` SDK makes them, with our own retry policy.

The request goes out through `wire.py` (the SDK's headers, SSE decoder and exception types on one httpx
client; tests/core/test_wire_matches_the_sdk.py holds it to the SDK's own client on the wire). What it needs of
the SDK and the TLS context load in a background thread the moment a client is made and are awaited only
when the first request is sent; nothing on the path to the first frame waits.

No retries below this module (the SDK ran with max_retries=0 too): a stream that fails midway cannot be
retried there, and the user must see every retry ("retrying in 3s (attempt 2)"). The loop owns the attempt loop; this module
says whether an error is worth another attempt and how long to wait (`retry_plan`).

Time limits (`network.py`): connecting has its own short limit; a response must start within a
limit; then a stream silent for longer than the idle limit (any byte, pings included, is life) is a
dropped connection and retried. An endpoint that cannot be reached or never answers is given up
within about 30 s in all, with its cause.
"""

from __future__ import annotations

import asyncio
import json
import random
import threading
from dataclasses import dataclass, field
from typing import Any, Callable

from ..tools.os_names import for_model_deep
from .model_limits import OutputLimits

DEFAULT_MODEL = "claude-sonnet-4-6"
DEFAULT_MAX_TOKENS = 16_000


class IncompleteStreamError(Exception):
    """The HTTP stream ended before `message_stop` (a dropped connection seen as a clean close)."""


class StreamSilentError(Exception):
    """Nothing arrived within the limit: no response at all, or a started stream went silent."""

    def __init__(self, message: str, *, answered: bool) -> None:
        super().__init__(message)
        self.answered = answered


class ModelError(Exception):
    """A model request failed for good. `kind` picks the loop's end reason."""

    def __init__(self, message: str, *, kind: str = "model_error", status: int | None = None) -> None:
        super().__init__(message)
        self.kind = kind  # "model_error" | "prompt_too_long" | "authentication_failed"
        self.status = status


@dataclass(frozen=True, slots=True)
class RetryPlan:
    delay: float
    why: str


@dataclass(slots=True)
class ModelConfig:
    model: str = DEFAULT_MODEL
    api_key: str | None = None
    base_url: str | None = None
    max_tokens: int = DEFAULT_MAX_TOKENS
    max_retries: int = 10
    retry_base_delay: float = 0.5
    retry_max_delay: float = 32.0
    timeout: float = 600.0
    """Whole-request limit for a request that is not streamed (the SDK's own)."""
    connect_timeout: float = 10.0
    response_timeout: float = 25.0
    """Seconds for the response to start (status and headers) once the request is sent: generous, as a
    long prompt may be read before the first byte; one such wait fits the network window."""
    idle_timeout: float = 90.0
    """Seconds a started stream may stay silent (CLAUDE_STREAM_IDLE_TIMEOUT_MS)."""
    network_window: float = 30.0
    """Failures to connect or to get any answer are retried only within this many seconds."""


def _error_body(exc: Any) -> tuple[str, str]:
    """(error type, message) from an SDK status error's body, whatever shape it came in."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict):
            return str(err.get("type", "")), str(err.get("message", "")) or str(exc)
    return "", str(getattr(exc, "message", "") or exc)


def _retry_after(headers: Any) -> float | None:
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    sec = headers.get("retry-after")
    if sec:
        try:
            return max(0.0, float(sec))
        except ValueError:
            return None
    return None


CONNECT_RETRIES = 2
RETRYABLE_STATUS = {408, 409, 429, 500, 502, 503, 504, 529}
RETRYABLE_STREAM_ERRORS = {"overloaded_error", "api_error", "rate_limit_error", "timeout_error"}


def describe_error(exc: BaseException) -> tuple[str, int | None, str, str]:
    """(kind, status, error type, message) for any failure of one streamed request."""
    import anthropic
    import httpx2

    if isinstance(exc, anthropic.APIStatusError):
        etype, msg = _error_body(exc)
        return "status", exc.status_code, etype, msg
    if isinstance(exc, StreamSilentError):
        return ("connection" if exc.answered else "silent"), None, "stream_idle_timeout", str(exc)
    if isinstance(exc, anthropic.APIConnectionError):
        cause = exc.__cause__
        if isinstance(cause, httpx2.ConnectTimeout):
            return "connect", None, "connect_timeout", f"connecting to the API endpoint timed out ({cause or 'no answer'})"
        if isinstance(cause, httpx2.ConnectError):  # nothing listens there: fail fast, not for minutes
            return "connect", None, "connect_error", f"cannot connect to the API endpoint ({cause})"
        if isinstance(cause, httpx2.TimeoutException):
            return "silent", None, "timeout", f"the API endpoint did not answer in time ({cause or type(cause).__name__})"
        return "connection", None, "connection_error", str(exc) or "Connection error."
    if isinstance(exc, (httpx2.TransportError, IncompleteStreamError)):
        return "connection", None, "connection_dropped", f"connection dropped: {exc or type(exc).__name__}"
    return "other", None, type(exc).__name__, str(exc) or type(exc).__name__


def retry_plan(exc: BaseException, attempt: int, config: ModelConfig, elapsed: float = 0.0) -> RetryPlan | None:
    """How long to wait before attempt `attempt + 1`, or None when the error is final."""
    if attempt > config.max_retries:
        return None
    kind, status, etype, msg = describe_error(exc)
    headers = None
    if kind == "status":
        if status == 200:  # an `event: error` inside a 200 stream
            if etype not in RETRYABLE_STREAM_ERRORS:
                return None
            why = f"{etype}: {msg}"
        elif status in RETRYABLE_STATUS or (status is not None and status >= 500):
            response = getattr(exc, "response", None)
            headers = getattr(response, "headers", None)
            why = f"{status} {etype or 'error'}" + (f": {msg}" if msg else "")
        else:
            return None
    elif kind == "connection":
        why = msg
    elif kind in ("connect", "silent"):
        if kind == "connect" and attempt > CONNECT_RETRIES:
            return None
        why = msg
    else:
        return None
    delay = _retry_after(headers)
    if delay is None:
        base = min(config.retry_max_delay, config.retry_base_delay * (2 ** (attempt - 1)))
        delay = base * (1 + random.random() * 0.25)
    delay = min(delay, config.retry_max_delay * 4)
    if kind in ("connect", "silent"):
        # An endpoint that cannot be reached or never answers: try again only if the next attempt
        # can fail in time too, so the whole wait stays within the network window (~30 s).
        next_limit = config.connect_timeout if kind == "connect" else config.response_timeout
        if elapsed + delay + next_limit > config.network_window:
            return None
    return RetryPlan(delay, why)


AUTH_HINT = "check ANTHROPIC_API_KEY"


def final_error(exc: BaseException) -> ModelError:
    kind, status, etype, msg = describe_error(exc)
    if kind == "status" and status in (401, 403):
        what = "Invalid API key" if status == 401 else "The API key is not allowed to do this"
        return ModelError(f"{what} ({status} {etype or 'error'}: {msg}): {AUTH_HINT}.", kind="authentication_failed", status=status)
    if kind == "status":
        low = msg.lower()
        if status == 413 or "prompt is too long" in low or "too many tokens" in low:
            return ModelError(f"Prompt is too long: {msg}", kind="prompt_too_long", status=status)
        label = f"{status} {etype}".strip() if status != 200 else (etype or "stream error")
        return ModelError(f"API Error: {label}: {msg}", status=status)
    if kind in ("connect", "silent"):
        return ModelError(f"API Error: {msg} (gave up)")
    if kind == "connection":
        return ModelError(f"API Error: {msg} (retries exhausted)")
    return ModelError(f"API Error: {type(exc).__name__}: {msg}")


class _SDKLoader:
    """Loads what the first request needs (the TLS context, the SDK's modules) in a daemon thread."""

    def __init__(self) -> None:
        self._done = threading.Event()
        self._error: BaseException | None = None
        threading.Thread(target=self._load, name="anthropic-import", daemon=True).start()

    def _load(self) -> None:
        try:
            from .wire import default_ssl_context, preload

            default_ssl_context()  # first: OpenSSL loads the CA bundle without the GIL, beside the main thread's work
            from .lazy_import import import_anthropic

            import_anthropic()
            preload()
        except BaseException as exc:  # pragma: no cover - shown when the first request needs it
            self._error = exc
        finally:
            self._done.set()

    async def wait(self) -> None:
        if not self._done.is_set():
            await asyncio.to_thread(self._done.wait)
        if self._error is not None:
            raise self._error


_loader: _SDKLoader | None = None


def preload_sdk() -> None:
    """Start importing the SDK in the background (idempotent)."""
    global _loader
    if _loader is None:
        _loader = _SDKLoader()


async def sdk_loaded() -> None:
    """Wait until the background import of the SDK has finished (at once if it never started)."""
    if _loader is not None:
        await _loader.wait()


class ModelClient:
    """One wire client per session, made on first use. `http_client_factory` lets the scripted model be
    plugged in as an httpx2 transport; otherwise requests go to `base_url` over the network."""

    def __init__(
        self,
        config: ModelConfig,
        http_client_factory: Callable[[], Any] | None = None,
    ) -> None:
        self.config = config
        self._http_client_factory = http_client_factory
        self._client: Any = None
        self.limits = OutputLimits()
        """Every request's max_tokens and thinking budget are fitted to its model's ceiling on the way out."""
        preload_sdk()

    async def client(self) -> Any:
        if self._client is None:
            assert _loader is not None
            await _loader.wait()
            from .network import request_timeout, watch_responses
            from .wire import MessagesClient, default_http_client

            timeout = request_timeout(self.config)
            if self._http_client_factory is not None:
                http_client = self._http_client_factory()
            else:
                http_client = default_http_client(timeout)
            self._client = MessagesClient(
                api_key=self.config.api_key or "missing-key",
                base_url=self.config.base_url,
                timeout=timeout,
                http_client=watch_responses(http_client),
            )
        return self._client

    async def stream(self, request: dict[str, Any], on_event: Callable[[Any], None]) -> None:
        """Send one streamed request and feed each raw SSE event to `on_event` until message_stop."""
        from ..tools import web_search  # the server tool is dropped where the endpoint refuses it
        from .network import Watchdog

        client = await self.client()
        request = web_search.strip_if_unsupported(request, self.config.base_url)
        request = self.limits.fit(for_model_deep(request))  # valid Unicode (os_names), output within the model's limits
        saw_stop = False
        with Watchdog(self.config.response_timeout, self.config.idle_timeout):
            events = client.stream(request)
            try:
                first = await anext(events, None)  # the request sent and answered: where the SDK's create returned
            except Exception as exc:
                if not web_search.refused_server_tool(exc, request):
                    raise
                request = web_search.without_server_tool(request, self.config.base_url)
                events = client.stream(request)
                first = await anext(events, None)
            if first is None:
                raise IncompleteStreamError("the stream ended before message_stop")
            try:
                on_event(first)
                saw_stop = first.type == "message_stop"
                async for event in events:
                    on_event(event)
                    if event.type == "message_stop":
                        saw_stop = True
            finally:
                await events.aclose()
        if not saw_stop:
            raise IncompleteStreamError("the stream ended before message_stop")

    async def close(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None


@dataclass(slots=True)
class _Block:
    type: str
    data: dict[str, Any]
    parts: list[str] = field(default_factory=list)  # text / thinking / raw tool JSON, joined at stop
    done: bool = False


class MessageAssembler:
    """Builds the assistant message from raw stream events, block by block.

    Kept apart from the SDK's own accumulator so that a tool_use keeps its input exactly as the
    model sent it (parsed once from the raw JSON at content_block_stop, never re-serialised) and so a
    finished tool_use can be handed to the executor at that moment.
    """

    def __init__(
        self,
        on_text: Callable[[str, int], None],
        on_thinking: Callable[[str, int], None],
        on_tool_use: Callable[[dict[str, Any], str | None], None],
        on_server_block: Callable[[dict[str, Any]], None] | None = None,
        on_block: Callable[["MessageAssembler", dict[str, Any]], None] | None = None,
    ) -> None:
        self._on_text = on_text
        self._on_thinking = on_thinking
        self._on_tool_use = on_tool_use
        self._on_server_block = on_server_block
        self._on_block = on_block
        """Each block the message will keep, the moment it is complete (the transcript's write-ahead),
        before anything acts on it (a tool_use's tool starts after it returns)."""
        self.blocks: dict[int, _Block] = {}
        self.message_id = ""
        self.model = ""
        self.stop_reason: str | None = None
        self.usage: dict[str, int] = {}
        self.invalid_tool_ids: set[str] = set()

    def feed(self, event: Any) -> None:
        kind = event.type
        if kind == "content_block_delta":
            block = self.blocks.get(event.index)
            if block is None:
                return
            delta = event.delta
            dtype = delta.type
            if dtype == "text_delta":
                block.parts.append(delta.text)
                self._on_text(delta.text, event.index)
            elif dtype == "input_json_delta":
                block.parts.append(delta.partial_json)
            elif dtype == "thinking_delta":
                block.parts.append(delta.thinking)
                self._on_thinking(delta.thinking, event.index)
            elif dtype == "signature_delta":
                block.data["signature"] = delta.signature
            elif dtype == "citations_delta":
                block.data.setdefault("citations", []).append(delta.citation.to_dict())
        elif kind == "content_block_start":
            cb = event.content_block
            if cb.type == "text":
                self.blocks[event.index] = _Block("text", {"type": "text"})
            elif cb.type == "thinking":
                self.blocks[event.index] = _Block("thinking", {"type": "thinking", "signature": getattr(cb, "signature", "") or ""})
            elif cb.type == "redacted_thinking":
                self.blocks[event.index] = _Block("redacted_thinking", {"type": "redacted_thinking", "data": cb.data})
            elif cb.type == "tool_use":
                self.blocks[event.index] = _Block("tool_use", {"type": "tool_use", "id": cb.id, "name": cb.name})
            else:
                # Server tools (server_tool_use, web_search_tool_result, ...): kept exactly as received.
                self.blocks[event.index] = _Block(cb.type, cb.to_dict(mode="json"))
        elif kind == "content_block_stop":
            block = self.blocks.get(event.index)
            if block is None:
                return
            self._finish(block)
        elif kind == "message_start":
            msg = event.message
            self.message_id = msg.id
            self.model = msg.model
            self._take_usage(msg.usage)
        elif kind == "message_delta":
            self.stop_reason = event.delta.stop_reason
            self._take_usage(event.usage)

    def _take_usage(self, usage: Any) -> None:
        if usage is None:
            return
        for key in ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"):
            value = getattr(usage, key, None)
            if value is not None:
                self.usage[key] = int(value)

    def _finish(self, block: _Block) -> None:
        block.done = True
        if block.type == "text":
            block.data["text"] = "".join(block.parts)
        elif block.type == "thinking":
            block.data = {"type": "thinking", "thinking": "".join(block.parts), "signature": block.data.get("signature", "")}
        elif block.type == "tool_use":
            raw = "".join(block.parts)
            error: str | None = None
            try:
                parsed = json.loads(raw) if raw.strip() else {}
            except json.JSONDecodeError as exc:
                parsed, error = {}, f"The tool input was not valid JSON ({exc.msg} at position {exc.pos}): {raw[:200]}"
            if not isinstance(parsed, dict):
                parsed, error = {}, f"The tool input must be a JSON object, got: {raw[:200]}"
            if error is not None:
                self.invalid_tool_ids.add(block.data["id"])
            block.data["input"] = parsed
            if self._on_block is not None:
                self._on_block(self, block.data)
            self._on_tool_use(block.data, error)
            block.parts = []
            return
        elif block.parts:  # a server tool's input, streamed like a tool_use's
            try:
                block.data["input"] = json.loads("".join(block.parts))
            except json.JSONDecodeError:
                pass  # kept as the start event gave it
        kept = not (block.type == "text" and not block.data.get("text")) and not (block.type == "thinking" and not block.data.get("signature"))
        if kept and self._on_block is not None:
            self._on_block(self, block.data)
        if block.type not in ("text", "thinking", "redacted_thinking", "tool_use") and self._on_server_block is not None:
            self._on_server_block(block.data)
        block.parts = []

    def cut_tool_use(self) -> tuple[bool, str | None]:
        """Whether the last block is a tool_use whose input never arrived whole (what a max_tokens cut
        leaves), and its id when the block was closed (None: it never completed)."""
        if not self.blocks:
            return False, None
        block = self.blocks[max(self.blocks)]
        if block.type != "tool_use":
            return False, None
        if not block.done:
            return True, None
        return block.data["id"] in self.invalid_tool_ids, block.data["id"]

    def content(self, *, complete_only: bool = False) -> list[dict[str, Any]]:
        """The message's blocks in stream order. With complete_only (an aborted stream), a block still
        streaming is dropped, except text so far; a thinking block without its signature is dropped."""
        out: list[dict[str, Any]] = []
        for index in sorted(self.blocks):
            block = self.blocks[index]
            if not block.done:
                if not complete_only:
                    continue
                if block.type == "text" and block.parts:
                    out.append({"type": "text", "text": "".join(block.parts)})
                continue
            if block.type == "text" and not block.data.get("text"):
                continue
            if block.type == "thinking" and not block.data.get("signature"):
                continue
            out.append(block.data)
        if complete_only:  # a server tool call cut off before its result would make the history invalid
            answered = {b.get("tool_use_id") for b in out}
            out = [b for b in out if b.get("type") != "server_tool_use" or b.get("id") in answered]
            if all(b.get("type") in ("thinking", "redacted_thinking") for b in out):
                return []  # thinking alone is no answer: the API drops it from past turns, leaving an empty message
        return out
