"""allowedDomains / deniedDomains as Claude Code's sandbox-runtime matches them, and the proxy's own refusals."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tui_agent.core.sandbox.proxy import SandboxProxy
from tui_agent.core.sandbox.proxy_rules import NetworkRules, canonical_host, parse_pattern


def decide(allowed: list[str], denied: list[str], host: str, port: int = 443) -> bool:
    return NetworkRules.from_lists(allowed, denied).decide(host, port).allowed


def test_exact_names_match_case_and_trailing_dot_insensitively() -> None:
    assert decide(["api.github.com"], [], "API.GitHub.com.")
    assert not decide(["api.github.com"], [], "github.com")
    assert not decide(["api.github.com"], [], "evil-api.github.com")


def test_wildcard_matches_strict_subdomains_only() -> None:
    assert decide(["*.example.com"], [], "a.example.com")
    assert decide(["*.example.com"], [], "a.b.example.com")
    assert not decide(["*.example.com"], [], "example.com")
    assert not decide(["*.example.com"], [], "badexample.com")
    assert not decide(["*.example.com"], [], "example.com.evil.org")


def test_port_suffix_limits_an_entry_to_that_port() -> None:
    assert decide(["example.com:8443"], [], "example.com", 8443)
    assert not decide(["example.com:8443"], [], "example.com", 443)
    assert decide(["example.com"], [], "example.com", 22)


def test_deny_wins_over_allow_and_star_denies_all() -> None:
    assert not decide(["*.example.com"], ["bad.example.com"], "bad.example.com")
    assert decide(["*.example.com"], ["bad.example.com"], "good.example.com")
    assert not decide(["example.com"], ["*"], "example.com")
    assert not decide(["example.com"], ["*:22"], "example.com", 22)
    assert decide(["example.com"], ["*:22"], "example.com", 443)


def test_nothing_listed_is_refused_with_the_setting_named() -> None:
    verdict = NetworkRules.from_lists(["example.com"], []).decide("other.org", 80)
    assert not verdict.allowed
    assert "not in sandbox.network.allowedDomains" in verdict.reason


def test_address_spellings_are_matched_as_the_address_they_dial() -> None:
    assert canonical_host("127.1") == "127.0.0.1"
    assert canonical_host("0x7f.0.0.1") == "127.0.0.1"
    assert canonical_host("2130706433") == "127.0.0.1"
    assert canonical_host("[::ffff:127.0.0.1]") == "127.0.0.1"
    assert canonical_host("[0:0:0:0:0:0:0:1]") == "::1"
    assert not decide(["example.com"], ["127.0.0.1"], "127.1", 80)
    assert decide(["127.0.0.1:3000"], [], "0x7f.1", 3000)


def test_hosts_no_resolver_should_see_are_refused() -> None:
    for host in ("evil.com\x00.example.com", "a b.example.com", "::1%x.example.com", "", "a/b.example.com"):
        assert not decide(["*.example.com"], [], host), host
    # A wildcard never matches an address, whatever it ends with.
    assert not decide(["*.0.1"], [], "127.0.0.1")


def test_invalid_entries_rejected_as_the_schema_rejects_them() -> None:
    for bad in ("*.com", "*", "https://example.com", "example.com/path", "::1", "com", "*.*.example.com", "a.com:0"):
        assert parse_pattern(bad, deny=False) is None, bad
    assert parse_pattern("*", deny=True) is not None
    assert parse_pattern("[::1]:443", deny=False) is not None
    assert parse_pattern("localhost", deny=False) is not None
    rules = NetworkRules.from_lists(["*.com", "example.com"], [])
    assert rules.ignored == ["*.com"] and len(rules.allowed) == 1  # dropping an allow only narrows
    with pytest.raises(ValueError, match="deniedDomains"):
        NetworkRules.from_lists(["example.com"], ["https://bad.example.com"])  # skipping a deny would widen


def test_allowed_names_may_not_resolve_to_local_addresses() -> None:
    rules = NetworkRules.from_lists(["*.example.com", "myapp.test", "127.0.0.1:3000", "localhost"], ["10.1.2.3"])
    assert rules.address_refused("a.example.com", "93.184.216.34", 443) is None
    assert "loopback" in (rules.address_refused("a.example.com", "127.0.0.1", 443) or "")
    assert "link-local" in (rules.address_refused("a.example.com", "169.254.169.254", 80) or "")
    assert "deny-listed" in (rules.address_refused("a.example.com", "10.1.2.3", 80) or "")
    # An allow-listed literal may be reached by name too (an /etc/hosts dev setup), on its port only.
    assert rules.address_refused("myapp.test", "127.0.0.1", 3000) is None
    assert rules.address_refused("myapp.test", "127.0.0.1", 3001) is not None
    assert rules.address_refused("localhost", "::1", 8080) is None
    assert rules.address_refused("localhost", "93.184.216.34", 80) is not None


async def _exchange(socket_path: Path, request: bytes) -> bytes:
    reader, writer = await asyncio.open_unix_connection(str(socket_path))
    writer.write(request)
    await writer.drain()
    data = await asyncio.wait_for(reader.read(), 10)
    writer.close()
    return data


async def test_proxy_refuses_what_it_does_not_filter(tmp_path: Path) -> None:
    proxy = SandboxProxy(NetworkRules.from_lists(["example.com"], []), tmp_path / "p.sock")
    await proxy.start()
    try:
        origin = await _exchange(proxy.socket_path, b"GET / HTTP/1.1\r\nHost: example.com\r\n\r\n")
        assert origin.startswith(b"HTTP/1.1 403 ")
        assert b"X-Proxy-Error: blocked-by-allowlist" in origin
        assert b"only CONNECT host:port and absolute http:// URLs" in origin
        https = await _exchange(proxy.socket_path, b"GET https://example.com/ HTTP/1.1\r\n\r\n")
        assert https.startswith(b"HTTP/1.1 403 ") and b"https:// URLs go through CONNECT" in https
        for broken in (b"GET http://[::1/ HTTP/1.1\r\n\r\n", b"GET http://example.com:x/ HTTP/1.1\r\n\r\n"):
            assert (await _exchange(proxy.socket_path, broken)).startswith(b"HTTP/1.1 400 ")
        garbage = await _exchange(proxy.socket_path, b"hello\r\n\r\n")
        assert garbage.startswith(b"HTTP/1.1 400 ")
        no_port = await _exchange(proxy.socket_path, b"CONNECT example.com HTTP/1.1\r\n\r\n")
        assert no_port.startswith(b"HTTP/1.1 400 ")
        denied = await _exchange(proxy.socket_path, b"CONNECT other.org:443 HTTP/1.1\r\n\r\n")
        assert denied.startswith(b"HTTP/1.1 403 ") and b"other.org:443 is not in" in denied
        assert [d.allowed for d in proxy.decisions] == [False, False, False]
    finally:
        await proxy.close()
    assert not proxy.socket_path.exists()


async def test_close_ends_open_tunnels(tmp_path: Path) -> None:
    async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while data := await reader.read(100):
            writer.write(data)
        writer.close()

    server = await asyncio.start_server(echo, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    proxy = SandboxProxy(NetworkRules.from_lists(["echo.test"], []), tmp_path / "p.sock", resolve={"echo.test": "127.0.0.1"})
    await proxy.start()
    try:
        reader, writer = await asyncio.open_unix_connection(str(proxy.socket_path))
        writer.write(f"CONNECT echo.test:{port} HTTP/1.1\r\n\r\nping".encode())
        assert await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10) == b"HTTP/1.1 200 Connection Established\r\n\r\n"
        assert await asyncio.wait_for(reader.readexactly(4), 10) == b"ping"
        await asyncio.wait_for(proxy.close(), 5)
        assert await asyncio.wait_for(reader.read(), 5) == b""  # the tunnel was closed with the proxy
        writer.close()
    finally:
        await proxy.close()
        server.close()
        await server.wait_closed()


async def test_a_name_that_resolves_to_loopback_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whoever runs a permitted wildcard's DNS must not get to aim the proxy at this machine's services."""
    loop = asyncio.get_running_loop()

    async def fake_getaddrinfo(host: str, port: int, **_: object) -> list[tuple[object, ...]]:
        return [(2, 1, 6, "", ("127.0.0.1", port))]

    monkeypatch.setattr(loop, "getaddrinfo", fake_getaddrinfo)
    proxy = SandboxProxy(NetworkRules.from_lists(["*.example.test"], []), tmp_path / "p.sock")
    await proxy.start()
    try:
        answer = await _exchange(proxy.socket_path, b"CONNECT rebind.example.test:8080 HTTP/1.1\r\n\r\n")
        assert answer.startswith(b"HTTP/1.1 403 ") and b"resolved to a local address (loopback)" in answer
        assert [(d.host, d.allowed) for d in proxy.decisions] == [("rebind.example.test", False)]
    finally:
        await proxy.close()
