"""The filtering network proxy: outside the sandbox, in the agent's event loop, listening on a Unix socket.

Sandboxed commands reach it only through that socket (bound into the sandbox, relayed from the inside
loopback by `bridge.py`). It speaks just enough HTTP proxy to filter by host:
- `CONNECT host:port` — the tunnel opens only if `NetworkRules.decide(host, port)` allows it;
- a request with an absolute `http://` URI — forwarded once (origin-form, `Connection: close`) to the host the
  URI names, with the Host header rewritten to that same host so the server sees what was checked;
- anything else (origin-form requests, `https://` URIs without CONNECT, garbage) — 403 with a plain body.
The proxy resolves and dials the host itself; an allowed *name* that resolves to a local address is refused
(`NetworkRules.address_refused`), as sandbox-runtime does. No SOCKS: every client here takes an HTTP proxy.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tui_agent.core.sandbox.proxy_rules import NetworkRules, canonical_host

_HEAD_LIMIT = 64 * 1024
_HEAD_TIMEOUT = 30.0  # a client that never finishes its request head does not hold a task forever
_CHUNK = 64 * 1024
_HOP_HEADERS = {b"connection", b"keep-alive", b"proxy-connection", b"proxy-authorization", b"host", b"te", b"upgrade"}


@dataclass(frozen=True)
class ProxyDecision:
    """One request the proxy judged; kept for `/sandbox` and for tests to read."""

    method: str
    host: str
    port: int
    allowed: bool
    reason: str


class _Refused(Exception):
    """A policy refusal discovered after the host check (e.g. the name resolved to loopback)."""


class SandboxProxy:
    """One per agent session, shared by every sandboxed command. `start()` before the first, `close()` at exit."""

    def __init__(
        self,
        rules: NetworkRules,
        socket_path: Path,
        *,
        resolve: Mapping[str, str] | None = None,
        on_decision: Callable[[ProxyDecision], None] | None = None,
        connect_timeout: float = 10.0,
    ) -> None:
        self.rules = rules
        self.socket_path = socket_path
        # Fixed name -> address answers, like curl's --resolve: for tests and local setups. An entry is
        # trusted as the user's own (/etc/hosts-like) choice, so it skips the resolved-address check.
        self.resolve = {canonical_host(name) or name: addr for name, addr in (resolve or {}).items()}
        self.on_decision = on_decision
        self.connect_timeout = connect_timeout
        self.decisions: deque[ProxyDecision] = deque(maxlen=200)
        self._server: asyncio.AbstractServer | None = None
        self._tasks: set[asyncio.Task[Any]] = set()

    @property
    def running(self) -> bool:
        return self._server is not None

    async def start(self) -> None:
        if self._server is not None:
            return
        self.socket_path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        with contextlib.suppress(FileNotFoundError):
            self.socket_path.unlink()  # a stale socket from a crashed session would make bind fail
        self._server = await asyncio.start_unix_server(self._handle, path=str(self.socket_path), limit=_HEAD_LIMIT)
        os.chmod(self.socket_path, 0o600)

    async def close(self) -> None:
        server, self._server = self._server, None
        if server is None:
            return
        server.close()
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()  # open tunnels end with the session, not when their peers get round to it
        await asyncio.gather(*tasks, return_exceptions=True)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(server.wait_closed(), 2.0)
        with contextlib.suppress(FileNotFoundError):
            self.socket_path.unlink()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            await self._serve_one(reader, writer)
        except (ConnectionError, OSError, asyncio.IncompleteReadError):
            pass
        finally:
            if task is not None:
                self._tasks.discard(task)
            writer.close()

    async def _serve_one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), _HEAD_TIMEOUT)
        except asyncio.LimitOverrunError:
            await _reply(writer, 431, "Request Header Fields Too Large", "request head over 64 KiB")
            return
        except (asyncio.IncompleteReadError, asyncio.TimeoutError):
            return
        request_line, _, header_block = head.partition(b"\r\n")
        parts = request_line.decode("latin-1").split(" ")
        if len(parts) != 3 or not parts[2].startswith("HTTP/"):
            await _reply(writer, 400, "Bad Request", "malformed request line")
            return
        method, target, _version = parts
        if method == "CONNECT":
            await self._connect(method, target, reader, writer)
        elif target.lower().startswith("http://"):
            await self._forward(method, target, header_block, reader, writer)
        else:
            why = (
                "https:// URLs go through CONNECT"
                if target.lower().startswith("https://")
                else "only CONNECT host:port and absolute http:// URLs are proxied"
            )
            self._record(method, target, 0, False, why)
            await _deny(writer, why)

    async def _connect(self, method: str, target: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        host, port = _split_authority(target)
        if host is None or port is None:
            await _reply(writer, 400, "Bad Request", f"CONNECT target must be host:port, got {target!r}")
            return
        upstream = await self._open(method, host, port, writer)
        if upstream is None:
            return
        writer.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
        await writer.drain()
        await _splice(reader, writer, *upstream)

    async def _forward(
        self, method: str, target: str, header_block: bytes, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        try:
            url = urlsplit(target)
            host, port = url.hostname, url.port or 80
        except ValueError:  # a port that is not a number, a broken [IPv6] authority
            host, port = None, 0
        if not host:
            await _reply(writer, 400, "Bad Request", f"cannot read a host and port from {target!r}")
            return
        upstream = await self._open(method, host, port, writer)
        if upstream is None:
            return
        path = (url.path or "/") + (f"?{url.query}" if url.query else "")
        authority = url.netloc.rpartition("@")[2]  # never forward userinfo as part of Host
        lines = [f"{method} {path} HTTP/1.1".encode("latin-1"), b"Host: " + authority.encode("latin-1")]
        for line in header_block.split(b"\r\n"):
            name = line.partition(b":")[0].strip().lower()
            if line and name not in _HOP_HEADERS:
                lines.append(line)
        lines.append(b"Connection: close")  # one request per tunnel: each later one is checked afresh
        up_reader, up_writer = upstream
        up_writer.write(b"\r\n".join(lines) + b"\r\n\r\n")
        await _splice(reader, writer, up_reader, up_writer)

    async def _open(
        self, method: str, host: str, port: int, writer: asyncio.StreamWriter
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
        """Check, resolve and dial; on refusal or failure answer the client and return None."""
        verdict = self.rules.decide(host, port)
        canon = canonical_host(host) or host
        if not verdict.allowed:
            self._record(method, canon, port, False, verdict.reason)
            await _deny(writer, verdict.reason)
            return None
        try:
            upstream = await self._dial(canon, port)
        except _Refused as refused:
            self._record(method, canon, port, False, str(refused))
            await _deny(writer, str(refused))
            return None
        except OSError as exc:
            self._record(method, canon, port, True, f"allowed, but the connection failed: {exc}")
            await _reply(writer, 502, "Bad Gateway", f"cannot connect to {canon}:{port}: {exc}")
            return None
        self._record(method, canon, port, True, verdict.reason)
        return upstream

    async def _dial(self, host: str, port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        if host in self.resolve:
            addresses = [self.resolve[host]]
        else:
            infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
            resolved = list(dict.fromkeys(str(info[4][0]) for info in infos))
            refusals = [(a, self.rules.address_refused(host, a, port)) for a in resolved]
            addresses = [a for a, why in refusals if why is None]
            if not addresses:
                raise _Refused(next((why for _, why in refusals if why), f"{host} did not resolve"))
        error: OSError = OSError(f"no address for {host}")
        for address in addresses:  # the vetted address is the one dialled: no second lookup
            try:
                return await asyncio.wait_for(asyncio.open_connection(address, port, limit=_CHUNK), self.connect_timeout)
            except (OSError, asyncio.TimeoutError) as exc:
                error = exc if isinstance(exc, OSError) else OSError(f"timed out after {self.connect_timeout:g} s")
        raise error

    def _record(self, method: str, host: str, port: int, allowed: bool, reason: str) -> None:
        decision = ProxyDecision(method, host, port, allowed, reason)
        self.decisions.append(decision)
        if self.on_decision is not None:
            self.on_decision(decision)


def _split_authority(target: str) -> tuple[str | None, int | None]:
    host, sep, port_text = target.rpartition(":")
    if not sep or not port_text.isdigit() or not 0 < int(port_text) < 65536:
        return None, None
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    elif ":" in host:
        return None, None  # an unbracketed IPv6 authority is ambiguous
    return host or None, int(port_text)


async def _deny(writer: asyncio.StreamWriter, reason: str) -> None:
    # Same status and tag as sandbox-runtime, so a client can tell a policy block from a network failure.
    await _reply(writer, 403, "Forbidden", f"Connection blocked by network allowlist: {reason} (tui-agent sandbox)",
                 tag="blocked-by-allowlist")


async def _reply(writer: asyncio.StreamWriter, status: int, phrase: str, body: str, *, tag: str | None = None) -> None:
    data = (body + "\n").encode()
    head = [f"HTTP/1.1 {status} {phrase}", "Content-Type: text/plain; charset=utf-8", f"Content-Length: {len(data)}"]
    if tag:
        head.append(f"X-Proxy-Error: {tag}")
    head.append("Connection: close")
    writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + data)
    with contextlib.suppress(ConnectionError, OSError):
        await writer.drain()


async def _splice(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
    up_reader: asyncio.StreamReader, up_writer: asyncio.StreamWriter,
) -> None:
    """Copy both ways until both sides are done; half-closes pass through, an error ends both."""
    try:
        await asyncio.gather(_pipe(reader, up_writer, writer), _pipe(up_reader, writer, up_writer))
    finally:
        up_writer.close()


async def _pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter, src_writer: asyncio.StreamWriter) -> None:
    try:
        while data := await src.read(_CHUNK):
            dst.write(data)
            await dst.drain()
        if dst.can_write_eof():
            dst.write_eof()
    except (ConnectionError, OSError):
        dst.transport.abort()  # wake the other direction: its peer is gone
        src_writer.transport.abort()
