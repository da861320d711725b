"""Which hosts the sandbox proxy lets through: Claude Code's `allowedDomains` / `deniedDomains` semantics.

Matched as `@anthropic-ai/sandbox-runtime` matches them (domain-pattern.js, sandbox-manager.js):
- an entry is `host`, `*.domain` (strict subdomains only: `*.example.com` does not match `example.com`),
  a bracketed IPv6 literal `[::1]`, each with an optional `:port` that limits it to that destination port;
  `deniedDomains` also takes a bare `*` (deny everything, optionally `*:port`);
- comparison is case-insensitive on a canonical spelling (lower case, no trailing dot, `127.1` and
  `0x7f.0.0.1` read as `127.0.0.1`, IPv6 compressed, IPv4-mapped IPv6 as IPv4), so a spelling trick
  cannot pass an entry that the address it dials would not pass;
- the deny list is checked first and wins; anything on neither list is refused (no prompt here).
"""

from __future__ import annotations

import ipaddress
import re
import socket
from dataclasses import dataclass, field

_DNS_CHARS = re.compile(r"^[A-Za-z0-9._-]+$")
_PORT = re.compile(r"^[1-9][0-9]{0,4}$")
# Names that only ever mean this machine; allowed to resolve to loopback (sandbox-runtime does the same).
_LOCAL_NAMES = ("localhost",)


@dataclass(frozen=True)
class DomainPattern:
    """One list entry: `host` is canonical (`*.` kept for wildcards, `*` for deny-all); `port` None = any."""

    host: str
    port: int | None = None

    def matches(self, host: str, port: int) -> bool:
        """`host` must already be canonical (see `canonical_host`)."""
        if self.port is not None and self.port != port:
            return False
        if self.host == "*":
            return True
        if self.host.startswith("*."):
            # A wildcard never matches an IP literal: suffix tricks on addresses must not pass.
            return _ip(host) is None and host.endswith(self.host[1:])
        return host == self.host


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    reason: str


@dataclass
class NetworkRules:
    """The parsed lists. `ignored` names allow entries dropped as invalid (dropping an allow only narrows)."""

    allowed: list[DomainPattern] = field(default_factory=list)
    denied: list[DomainPattern] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)

    @classmethod
    def from_lists(cls, allowed_domains: list[str], denied_domains: list[str]) -> NetworkRules:
        """Parse both lists. An invalid *deny* entry raises ValueError: skipping it would widen access."""
        rules = cls()
        bad_denied: list[str] = []
        for entry in denied_domains:
            pattern = parse_pattern(entry, deny=True)
            if pattern is None:
                bad_denied.append(entry)
            else:
                rules.denied.append(pattern)
        if bad_denied:
            raise ValueError(f"invalid sandbox.network.deniedDomains entries: {', '.join(map(repr, bad_denied))}")
        for entry in allowed_domains:
            pattern = parse_pattern(entry, deny=False)
            if pattern is None:
                rules.ignored.append(entry)
            else:
                rules.allowed.append(pattern)
        return rules

    def decide(self, host: str, port: int) -> Verdict:
        """Deny list first, then allow list, else refused. `host` is what the client named."""
        canon = canonical_host(host)
        if canon is None:
            return Verdict(False, f"malformed host {host!r}")
        for pattern in self.denied:
            if pattern.matches(canon, port):
                return Verdict(False, f"{canon}:{port} is on the sandbox deny list (sandbox.network.deniedDomains)")
        for pattern in self.allowed:
            if pattern.matches(canon, port):
                return Verdict(True, f"{canon}:{port} is allowed")
        return Verdict(False, f"{canon}:{port} is not in sandbox.network.allowedDomains")

    def address_refused(self, host: str, address: str, port: int) -> str | None:
        """Why an allowed *name* must not be dialled at `address`, or None.

        Whoever controls a permitted name's DNS chooses what it resolves to; a wildcard entry must not
        become a way to reach this machine's own loopback services. As in sandbox-runtime: names other than
        `localhost` / `*.localhost` may not resolve to loopback, link-local, unspecified or multicast
        addresses, nor to an address the deny list names, unless that address itself is allowed.
        """
        ip = _ip(address)
        if ip is None or _ip(host) is not None:
            return None  # a literal was already judged as itself by decide()
        literal = str(ip)
        if any(p.host != "*" and p.matches(literal, port) for p in self.denied):
            return f"{host} resolved to a deny-listed address"
        if host in _LOCAL_NAMES or host.endswith(".localhost"):
            return None if ip.is_loopback else f"{host} resolved to a non-loopback address"
        if not (ip.is_loopback or ip.is_link_local or ip.is_unspecified or ip.is_multicast):
            return None
        if any(p.matches(literal, port) for p in self.allowed):
            return None
        return f"{host} resolved to a local address ({_address_class(ip)}); allow the address itself to reach it"


def parse_pattern(entry: str, *, deny: bool) -> DomainPattern | None:
    """One `allowedDomains` / `deniedDomains` entry, or None when Claude Code's schema would reject it."""
    raw = entry.strip()
    port: int | None = None
    if raw.startswith("["):
        close = raw.find("]")
        if close == -1:
            return None
        rest = raw[close + 1:]
        if rest:
            if not rest.startswith(":") or not _PORT.match(rest[1:]):
                return None
            port = int(rest[1:])
        ip = _ip(raw[1:close])
        if ip is None or ip.version != 6:
            return None
        return _with_port(canonical_host(raw[1:close]) or "", port)
    if raw.count(":") > 1:
        return None  # an unbracketed IPv6 literal is ambiguous (`::1:443`); the schema rejects it
    if ":" in raw:
        raw, _, port_text = raw.partition(":")
        if not _PORT.match(port_text):
            return None
        port = int(port_text)
    if raw == "*":
        return DomainPattern("*", port) if deny else None
    if raw.startswith("*."):
        base = raw[2:].lower()
        # `*.com` is too broad to mean anything but a mistake; the schema wants at least two labels.
        labels = base.split(".")
        if len(labels) < 2 or not all(labels) or "*" in base or not _DNS_CHARS.match(base):
            return None
        return _with_port("*." + base, port)
    if "*" in raw or "/" in raw or not raw:
        return None
    canon = canonical_host(raw)
    if canon is None:
        return None
    if canon != "localhost" and _ip(canon) is None and ("." not in canon or canon.startswith(".")):
        return None
    return _with_port(canon, port)


def canonical_host(host: str) -> str | None:
    """The spelling that is matched and dialled, or None for a host no resolver should see."""
    bare = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not bare or len(bare) > 253 or "%" in bare:
        return None  # IPv6 zone ids would let `::1%x.allowed.com` pass a suffix test
    if ":" in bare:
        ip = _ip(bare)
        if ip is None:
            return None
        mapped = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else None
        return str(mapped or ip)
    if not _DNS_CHARS.match(bare):
        return None
    bare = bare.lower().rstrip(".")
    if not bare:
        return None
    if re.match(r"^(0x[0-9a-f]+|[0-9]+)(\.(0x[0-9a-f]+|[0-9]+))*$", bare):
        # inet_aton shorthand: the C resolver dials `127.1` as 127.0.0.1, so it is matched as that.
        try:
            return socket.inet_ntoa(socket.inet_aton(bare))
        except OSError:
            return None
    return bare


def _with_port(host: str, port: int | None) -> DomainPattern | None:
    if not host or (port is not None and port > 65535):
        return None
    return DomainPattern(host, port)


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def _address_class(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str:
    if ip.is_loopback:
        return "loopback"
    if ip.is_link_local:
        return "link-local"
    if ip.is_unspecified:
        return "unspecified"
    return "multicast"
