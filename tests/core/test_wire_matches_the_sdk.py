"""Our wire client (core/wire.py) against the real `AsyncAnthropic`, on the same scripted model: the same request
on the wire (URL, every header, body), the same events, and for every failure the same exception class, message,
status and body. The SDK is the client of record; these tests are what keeps the replica honest when it moves."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import httpx2
import pytest

from tui_agent.core.wire import MessagesClient, default_http_client
from tui_agent.providers.scripted import (
    Fault,
    RedactedThinking,
    Reply,
    ScriptedModel,
    ScriptedTransport,
    Text,
    Thinking,
    ToolUse,
)

if TYPE_CHECKING:
    import anthropic
else:
    anthropic = None


@pytest.fixture(autouse=True)
def the_sdk() -> None:
    """The whole SDK, ~1.4 s to import: imported by the worker that runs these tests rather than by every worker's
    collection (the product itself never imports all of it)."""
    global anthropic
    import anthropic


TIMEOUT = httpx2.Timeout(300.0, connect=10.0)
REQUEST: dict[str, Any] = {
    "model": "claude-sonnet-4-6",
    "max_tokens": 1024,
    "system": [{"type": "text", "text": "You are tested. Ünïcode and emoji 🦀 stay as they are."}],
    "messages": [{"role": "user", "content": "hi"}],
    "tools": [{"name": "Read", "description": "reads", "input_schema": {"type": "object", "properties": {}}}],
}


class Recording(ScriptedTransport):
    """The scripted transport, keeping every request exactly as it went out."""

    def __init__(self, model: ScriptedModel) -> None:
        super().__init__(model)
        self.sent: list[httpx2.Request] = []

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        self.sent.append(request)
        return await super().handle_async_request(request)


def sdk_client(transport: httpx2.AsyncBaseTransport, base_url: str | None = None) -> anthropic.AsyncAnthropic:
    kwargs: dict[str, Any] = {"base_url": base_url} if base_url else {}
    return anthropic.AsyncAnthropic(
        api_key="sk-test-key", max_retries=0, timeout=TIMEOUT, http_client=httpx2.AsyncClient(transport=transport), **kwargs
    )


def our_client(transport: httpx2.AsyncBaseTransport, base_url: str | None = None) -> MessagesClient:
    return MessagesClient(api_key="sk-test-key", base_url=base_url, timeout=TIMEOUT, http_client=httpx2.AsyncClient(transport=transport))


async def sdk_events(client: anthropic.AsyncAnthropic, request: dict[str, Any]) -> list[dict[str, Any]]:
    stream = await client.messages.create(**request, stream=True)
    return [event.to_dict() async for event in stream]


async def our_events(client: MessagesClient, request: dict[str, Any]) -> list[dict[str, Any]]:
    return [event.to_dict() async for event in client.stream(request)]


def wire(request: httpx2.Request) -> tuple[str, str, list[tuple[str, str]], dict[str, Any]]:
    return request.method, str(request.url), sorted(request.headers.multi_items()), json.loads(request.content)


@pytest.mark.parametrize("base_url", [None, "http://127.0.0.1:9/", "https://proxy.example/anthropic", "https://proxy.example/anthropic/"])
async def test_the_request_on_the_wire_is_the_sdks_byte_for_byte(monkeypatch, base_url) -> None:
    monkeypatch.setenv("ANTHROPIC_CUSTOM_HEADERS", "X-Team: tools\nx-stainless-lang: overridden")
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    model = ScriptedModel([Reply([Text("one")]), Reply([Text("two")])])
    transport = Recording(model)
    await sdk_events(sdk_client(transport, base_url), REQUEST)
    await our_events(our_client(transport, base_url), REQUEST)
    sdk, ours = (wire(r) for r in transport.sent)
    assert ours == sdk
    assert ("x-team", "tools") in ours[2] and ("authorization", "Bearer sk-test-key") in ours[2]


async def test_per_request_options_reach_the_wire_as_the_sdk_sends_them(monkeypatch) -> None:
    monkeypatch.delenv("ANTHROPIC_CUSTOM_HEADERS", raising=False)
    options = {
        "extra_headers": {"anthropic-beta": "context-management-2025-06-27", "x-stainless-retry-count": "2"},
        "extra_query": {"beta": "true"},
        "extra_body": {"context_management": {"edits": []}},
        "timeout": httpx2.Timeout(42.0, connect=3.0),
    }
    transport = Recording(ScriptedModel([Reply([Text("one")]), Reply([Text("two")])]))
    await sdk_events(sdk_client(transport), {**REQUEST, **options})
    await our_events(our_client(transport), {**REQUEST, **options})
    sdk, ours = transport.sent
    assert wire(ours) == wire(sdk)
    assert ours.extensions["timeout"] == sdk.extensions["timeout"]


async def test_the_events_are_the_sdks_events_as_json() -> None:
    blocks = [Thinking("weighing"), RedactedThinking("opaque"), Text("héllo " * 40), ToolUse("Read", {"file_path": "/a"}, id="toolu_1"), ToolUse("Bash", raw_json='{"command": "ls"}', id="toolu_2")]
    model = ScriptedModel([Reply(blocks, chunk=7), Reply(blocks, chunk=7)])
    transport = Recording(model)
    sdk = await sdk_events(sdk_client(transport), REQUEST)
    ours = await our_events(our_client(transport), REQUEST)
    # the scripted model gives each message its own id; all else is the same stream
    for events in (sdk, ours):
        events[0]["message"]["id"] = "msg"
    assert ours == sdk
    assert [e["type"] for e in ours].count("content_block_start") == len(blocks) and "ping" not in [e["type"] for e in ours]


async def test_attribute_access_reads_what_the_sdks_models_read() -> None:
    model = ScriptedModel([Reply([ToolUse("Read", {"file_path": "/a"})], stop_reason="tool_use")])
    events = [e async for e in our_client(ScriptedTransport(model)).stream(REQUEST)]
    start, tool = events[0], events[1]
    assert start.message.usage.input_tokens > 0 and start.message.usage.cache_read_input_tokens == 0
    assert start.message.usage.server_tool_use is None  # absent: None, as the SDK's optional fields
    assert tool.content_block.name == "Read" and tool.content_block.type == "tool_use"
    assert [e.delta.stop_reason for e in events if e.type == "message_delta"] == ["tool_use"]


FAULTS = [
    Fault(400, "invalid_request_error", "messages: bad"),
    Fault(401, "authentication_error", "invalid x-api-key"),
    Fault(403, "permission_error", "no"),
    Fault(404, "not_found_error", "model: nope"),
    Fault(409, "api_error", "conflict"),
    Fault(413, "request_too_large", "too big"),
    Fault(422, "invalid_request_error", "unprocessable"),
    Fault(429, "rate_limit_error", "slow down", retry_after=3),
    Fault(500, "api_error", "internal"),
    Fault(503, "api_error", "unavailable"),
    Fault(529, "overloaded_error", "overloaded"),
]


def described(exc: BaseException) -> tuple[Any, ...]:
    return (type(exc), str(exc), getattr(exc, "status_code", None), getattr(exc, "body", None), getattr(exc, "type", None))


@pytest.mark.parametrize("fault", FAULTS, ids=lambda f: str(f.status))
async def test_an_error_status_raises_what_the_sdk_raises(fault: Fault) -> None:
    transport = ScriptedTransport(ScriptedModel([fault, fault]))
    with pytest.raises(anthropic.APIStatusError) as sdk:
        await sdk_events(sdk_client(transport), REQUEST)
    with pytest.raises(anthropic.APIStatusError) as ours:
        await our_events(our_client(transport), REQUEST)
    assert described(ours.value) == described(sdk.value)
    assert ours.value.response.headers.get("retry-after") == sdk.value.response.headers.get("retry-after")


@pytest.mark.parametrize("error_type", ["overloaded_error", "api_error", "rate_limit_error", "invalid_request_error"])
async def test_an_error_event_inside_the_stream_raises_what_the_sdk_raises(error_type: str) -> None:
    reply = Reply([Text("partial answer " * 10)], chunk=5, error_after=5, error_type=error_type)
    transport = ScriptedTransport(ScriptedModel([reply, reply]))
    got: dict[str, list[Any]] = {"sdk": [], "ours": []}
    with pytest.raises(anthropic.APIStatusError) as sdk:
        async for event in await sdk_client(transport).messages.create(**REQUEST, stream=True):
            got["sdk"].append(event.type)
    with pytest.raises(anthropic.APIStatusError) as ours:
        async for event in our_client(transport).stream(REQUEST):
            got["ours"].append(event.type)
    assert described(ours.value) == described(sdk.value)
    assert got["ours"] == got["sdk"] and len(got["ours"]) == 4  # message_start, block start, two deltas (a ping between)


@pytest.mark.parametrize(
    ("raised", "expected"),
    [
        (httpx2.ConnectError("refused"), "APIConnectionError"),
        (httpx2.ReadTimeout("slow"), "APITimeoutError"),
        (httpx2.ConnectTimeout("slow"), "APITimeoutError"),
        (OSError("network is unreachable"), "APIConnectionError"),
    ],
)
async def test_a_request_that_never_gets_an_answer_raises_what_the_sdk_raises(raised: Exception, expected: str) -> None:
    class Failing(httpx2.AsyncBaseTransport):
        async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
            raise raised

    with pytest.raises(anthropic.APIError) as sdk:
        await sdk_events(sdk_client(Failing()), REQUEST)
    with pytest.raises(anthropic.APIError) as ours:
        await our_events(our_client(Failing()), REQUEST)
    assert type(ours.value) is type(sdk.value) is getattr(anthropic, expected)
    assert str(ours.value) == str(sdk.value)
    assert type(ours.value.__cause__) is type(sdk.value.__cause__) is type(raised)


async def test_a_dropped_stream_raises_what_the_sdk_raises() -> None:
    reply = Reply([Text("partial answer " * 10)], chunk=5, drop_after=6)
    transport = ScriptedTransport(ScriptedModel([reply, reply]))
    with pytest.raises(Exception) as sdk:
        await sdk_events(sdk_client(transport), REQUEST)
    with pytest.raises(Exception) as ours:
        await our_events(our_client(transport), REQUEST)
    assert type(ours.value) is type(sdk.value) is httpx2.RemoteProtocolError


def tls_of(context: Any) -> tuple[Any, ...]:
    return (type(context), context.verify_mode, context.check_hostname, context.minimum_version, context.options,
            context.cert_store_stats(), sorted(c["subject"] for c in context.get_ca_certs()))


def pool_of(transport: Any) -> tuple[Any, ...]:
    pool = transport._pool
    proxy = getattr(pool, "_proxy_url", None)
    return (type(transport), type(pool), pool._max_connections, pool._max_keepalive_connections, pool._keepalive_expiry,
            sorted(pool._socket_options or []), proxy, tls_of(pool._ssl_context))


@pytest.mark.parametrize("proxies", [{}, {"HTTPS_PROXY": "http://proxy.local:3128", "NO_PROXY": "localhost,127.0.0.1"}])
async def test_the_default_http_client_is_the_sdks(monkeypatch, proxies: dict[str, str]) -> None:
    for name in ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "NO_PROXY", "https_proxy", "http_proxy", "all_proxy", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    for name, value in proxies.items():
        monkeypatch.setenv(name, value)
    sdk = anthropic.DefaultAsyncHttpxClient(timeout=TIMEOUT)
    ours = default_http_client(TIMEOUT)
    try:
        assert (ours.timeout, ours.follow_redirects) == (sdk.timeout, sdk.follow_redirects)
        assert pool_of(ours._transport) == pool_of(sdk._transport)
        sdk_mounts = {str(key.pattern): None if t is None else pool_of(t) for key, t in sdk._mounts.items()}
        our_mounts = {str(key.pattern): None if t is None else pool_of(t) for key, t in ours._mounts.items()}
        assert our_mounts == sdk_mounts
        assert bool(proxies) == any(v is not None for v in our_mounts.values())
    finally:
        await sdk.aclose()
        await ours.aclose()
