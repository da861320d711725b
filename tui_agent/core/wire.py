"""One streamed Messages request on the wire, as the SDK's `AsyncAnthropic.messages.create(stream=True)` makes it.

Why not the SDK's client: reaching `AsyncAnthropic` and its `messages` resource imports `_base_client` (its
tracing imports the request-parameter TypedDicts of both APIs, its error table some 250 error-type modules) and
the ~3,000-class event model: ~0.3 CPU-s, a third of a `-p` run. What a streamed request needs of that is small:
the SDK's headers, one POST, the SDK's own SSE decoder, and on failure the SDK's own exception types. So this
module sends exactly what the SDK sends (tests/core/test_wire_matches_the_sdk.py compares the two on the
wire: headers, body, URL) and raises what the SDK raises, importing the SDK's exception table only when an
error arrives. Retries stay ours (the SDK ran with `max_retries=0` here too).

Events come out as `StreamEvent`: the event's JSON with attribute access, `None` for an absent field (as the
SDK's models give for an unset optional one) and `to_dict()` returning the JSON as it was sent.
"""

from __future__ import annotations

import json
import os
import platform
import socket
import ssl
import sys
from functools import lru_cache
from typing import Any, AsyncIterator

import httpx2

from .lazy_import import import_anthropic


class StreamEvent:
    """A JSON object of the stream with attribute access (`event.delta.text`)."""

    __slots__ = ("_data",)

    def __init__(self, data: dict[str, Any]) -> None:
        self._data = data

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        value = self._data.get(name)
        return StreamEvent(value) if isinstance(value, dict) else value

    def to_dict(self, mode: str = "json", **_: Any) -> dict[str, Any]:
        """The object exactly as the API sent it (the SDK's `to_dict` leaves out only unset fields too)."""
        return self._data

    def __repr__(self) -> str:
        return f"StreamEvent({self._data!r})"


@lru_cache(maxsize=1)
def _platform_headers() -> dict[str, str]:
    """The SDK's `X-Stainless-*` telemetry headers (its `platform_headers`, without forking `uname -p`)."""
    from anthropic._version import __version__

    system, machine = platform.system().lower(), platform.machine().lower()
    os_name = {"darwin": "MacOS", "windows": "Windows", "linux": "Linux", "freebsd": "FreeBSD", "openbsd": "OpenBSD"}
    arch = {"arm64": "arm64", "aarch64": "arm64", "arm": "arm", "x86_64": "x64"}
    return {
        "X-Stainless-Lang": "python",
        "X-Stainless-Package-Version": __version__,
        "X-Stainless-OS": os_name.get(system, f"Other:{system}" if system else "Unknown"),
        "X-Stainless-Arch": arch.get(machine) or ("x32" if sys.maxsize <= 2**32 else f"other:{machine}" if machine else "unknown"),
        "X-Stainless-Runtime": platform.python_implementation(),
        "X-Stainless-Runtime-Version": platform.python_version(),
    }


def _custom_headers() -> dict[str, str]:
    """ANTHROPIC_CUSTOM_HEADERS (`Name: value` lines), which the SDK's client reads when it is made."""
    parsed: dict[str, str] = {}
    for line in os.environ.get("ANTHROPIC_CUSTOM_HEADERS", "").split("\n"):
        name, colon, value = line.partition(":")
        if colon:
            parsed[name.strip()] = value.strip()
    return parsed


@lru_cache(maxsize=1)
def default_ssl_context() -> ssl.SSLContext:
    """What the SDK's client verifies with (`verify=True`: httpcore2's default context, `SSL_CERT_FILE` and
    `SSL_CERT_DIR` honoured), made once: loading the CA bundle takes ~40 ms, which `preload` spends on the
    SDK's import thread (OpenSSL reads the file without the GIL) instead of before the first request."""
    import httpcore2

    return httpcore2.default_ssl_context()


def preload() -> None:
    """The SDK modules the first request needs (after `import_anthropic`), and the TLS context."""
    default_ssl_context()
    import anthropic._constants  # noqa: F401
    import anthropic._streaming  # noqa: F401


def default_http_client(timeout: httpx2.Timeout) -> httpx2.AsyncClient:
    """The SDK's `DefaultAsyncHttpxClient`: its connection limits, redirects followed, TCP keep-alive probes
    on every connection, and the environment's proxies mounted on transports that keep those options."""
    from anthropic._constants import DEFAULT_CONNECTION_LIMITS
    from anthropic._utils._httpx import get_environment_proxies

    options: list[tuple[int, int, int | bool]] = [(socket.SOL_SOCKET, socket.SO_KEEPALIVE, True)]
    for name, value in (("TCP_KEEPINTVL", 60), ("TCP_KEEPCNT", 5), ("TCP_KEEPIDLE", 60)):
        if hasattr(socket, name):
            options.append((socket.IPPROTO_TCP, getattr(socket, name), value))
    if sys.platform == "darwin" and not hasattr(socket, "TCP_KEEPINTVL"):
        options.append((socket.IPPROTO_TCP, getattr(socket, "TCP_KEEPALIVE", 0x10), 60))
    settings: dict[str, Any] = {"verify": default_ssl_context(), "limits": DEFAULT_CONNECTION_LIMITS, "socket_options": options}
    mounts = {
        key: None if proxy is None else httpx2.AsyncHTTPTransport(proxy=proxy, **settings)
        for key, proxy in get_environment_proxies().items()
    }
    return httpx2.AsyncClient(
        timeout=timeout,
        limits=DEFAULT_CONNECTION_LIMITS,
        follow_redirects=True,
        mounts=mounts,
        transport=httpx2.AsyncHTTPTransport(**settings),
    )


class MessagesClient:
    """POST /v1/messages with `stream: true` over one httpx client, for the life of a session."""

    def __init__(self, *, api_key: str, base_url: str | None, timeout: httpx2.Timeout, http_client: httpx2.AsyncClient) -> None:
        import_anthropic()
        from anthropic._constants import ANTHROPIC_API_VERSION
        from anthropic._version import __version__

        base = httpx2.URL(base_url or os.environ.get("ANTHROPIC_BASE_URL") or "https://api.anthropic.com")
        self.url = base.copy_with(raw_path=base.raw_path.rstrip(b"/") + b"/v1/messages")
        self.timeout = timeout
        self.http = http_client
        self.custom_headers = _custom_headers()
        self.default_headers = {
            "Accept": "application/json",
            "Content-Type": "application/json",
            "User-Agent": f"AsyncAnthropic/Python {__version__}",
            **_platform_headers(),
            "Authorization": f"Bearer {api_key}",
            **self.custom_headers,
            "X-Stainless-Async": "async:asyncio",
            "anthropic-version": ANTHROPIC_API_VERSION,
            **self.custom_headers,
        }

    def headers(self, timeout: httpx2.Timeout | float | None, extra: dict[str, str]) -> httpx2.Headers:
        """The SDK's `_build_headers`: layers folded whatever a name's casing, later ones winning in place.
        `x-stainless-timeout` is the per-request timeout, `NOT_GIVEN` without one (so the SDK sends it)."""
        read = timeout if timeout is not None else self.timeout
        layers: list[dict[str, str]] = [
            {
                "x-stainless-timeout": str(timeout.read if isinstance(timeout, httpx2.Timeout) else "NOT_GIVEN" if timeout is None else timeout),
                "x-stainless-retry-count": "0",
                "x-stainless-read-timeout": str(read.read if isinstance(read, httpx2.Timeout) else read),
                **self.default_headers,
            },
            self.custom_headers,
            extra,
        ]
        headers = httpx2.Headers(encoding="utf-8")
        for layer in layers:
            for name, value in layer.items():
                headers[name] = value
        return headers

    async def stream(self, request: dict[str, Any]) -> AsyncIterator[StreamEvent]:
        """Each event of the streamed answer (pings left out); the SDK's exception for a failed request."""
        from anthropic._streaming import SSEDecoder

        params = dict(request)
        extra_headers = params.pop("extra_headers", None) or {}  # the SDK's per-call options
        query = params.pop("extra_query", None) or None
        params.update(params.pop("extra_body", None) or {})
        timeout = params.pop("timeout", None)
        body = json.dumps({**params, "stream": True}, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
        http_request = self.http.build_request(
            "POST", self.url, content=body, headers=self.headers(timeout, extra_headers), params=query,
            timeout=self.timeout if timeout is None else timeout,
        )
        try:
            response = await self.http.send(http_request, stream=True)
        except httpx2.TimeoutException as err:
            from anthropic import APITimeoutError

            raise APITimeoutError(request=http_request) from err
        except Exception as err:
            from anthropic import AnthropicError, APIConnectionError

            if isinstance(err, AnthropicError):
                raise
            raise APIConnectionError(request=http_request) from err
        try:
            if not response.is_success:
                await response.aread()
                raise _status_error(response)
            async for sse in SSEDecoder().aiter_bytes(response.aiter_bytes()):
                if sse.event in (None, "ping"):
                    continue
                if sse.event == "error":
                    raise _stream_error(sse.data, response)
                if sse.data:
                    yield StreamEvent(json.loads(sse.data))
        finally:
            await response.aclose()

    async def close(self) -> None:
        await self.http.aclose()


def _status_error(response: httpx2.Response) -> Exception:
    """What the SDK raises for an error status: its message, body and exception class."""
    from anthropic._error_classes import make_status_error

    text = response.text.strip()
    body: object = text
    try:
        body = json.loads(text)
        message = f"Error code: {response.status_code} - {body}"
    except ValueError:
        message = text or f"Error code: {response.status_code}"
    return make_status_error(message, body=body, response=response)


def _stream_error(data: str, response: httpx2.Response) -> Exception:
    """What the SDK raises for an `event: error` inside a 200 stream."""
    from anthropic._error_classes import make_status_error

    body: object = data
    try:
        body = json.loads(data)
        message = f"{body}"
    except ValueError:
        message = data or f"Error code: {response.status_code}"
    return make_status_error(message, body=body, response=response)
