"""The network half of a sandboxed command: what bwrap adds, what runs first inside, and the proxy outside.

Shaped after Claude Code's Linux sandbox (`@anthropic-ai/sandbox-runtime`, linux-sandbox-utils.js):
- every sandboxed command gets `--unshare-net`: a network namespace of its own with only a loopback, so
  nothing inside reaches the host's network or the host's 127.0.0.1;
- with no allowed domain that is all (no proxy, nothing extra runs inside, no start-up cost);
- with allowed domains, one filtering proxy per agent session (`proxy.py`) listens on a Unix socket in
  `runtime_dir`; the socket is bound into the sandbox at the same path, and `bridge.py` runs first inside:
  it listens on the sandbox's own 127.0.0.1:3128 (the port sandbox-runtime uses), relays each connection to
  the socket, and execs the command. `HTTP(S)_PROXY` / `ALL_PROXY` point there. The bridge is a tiny C
  program built once per machine (`bridge_native.py`) when a compiler is there, else `python3 -I -S bridge.py`.

`allowLocalBinding` — in Claude Code it only changes the macOS Seatbelt profile (bind, and loopback
connections outside the proxy); its Linux path ignores it, because the private namespace already makes
binding harmless. Same here: a process may listen on its sandbox's own loopback (only that command sees it,
and `NO_PROXY` keeps loopback names direct so it can talk to a server it started), and the host's loopback is
never reachable either way — the flag is kept on the plan for `/sandbox` to show, and changes nothing on Linux.
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from tui_agent.core.sandbox.bridge_native import build_native_bridge, cached_native_bridge, default_cache_dir
from tui_agent.core.sandbox.proxy import ProxyDecision, SandboxProxy
from tui_agent.core.sandbox.proxy_rules import NetworkRules

INSIDE_PORT = 3128
SOCKET_NAME = "network-proxy.sock"
BRIDGE_SCRIPT = Path(__file__).with_name("bridge.py")
# Loopback stays direct: inside, it is the command's own loopback (servers it started), which the proxy
# could not reach anyway. Unlike sandbox-runtime, private ranges are *not* listed: there is no route to them
# from the namespace, so through the proxy (which filters them like any host) is the only way they can work.
NO_PROXY = "localhost,127.0.0.1,::1"
_UNIX_PATH_MAX = 107  # sun_path is 108 bytes with the terminating NUL


class NetworkPolicy(Protocol):
    """The part of the sandbox policy this module reads (SandboxPolicy satisfies it)."""

    @property
    def allowed_domains(self) -> Sequence[str]: ...

    @property
    def denied_domains(self) -> Sequence[str]: ...

    @property
    def allow_local_binding(self) -> bool: ...


@dataclass
class NetworkPlan:
    """What the bwrap command line needs for the network; the proxy's lifetime is the agent session's.

    Put `bwrap_args` after the filesystem arguments (a tmpfs mounted later over the socket's folder would
    hide the bound socket), set `env` inside (e.g. `--setenv`), and run `inner_prefix + argv` (`wrap(argv)`)
    as the command. `inner_prefix` and `bwrap_args` are final after `start()`: that is when the native
    bridge gets built (and bound read-only into the sandbox, so a private /tmp or a denyRead cannot hide it).
    """

    bwrap_args: list[str]
    env: dict[str, str]
    inner_prefix: list[str]
    allow_local_binding: bool = False
    proxy: SandboxProxy | None = None
    ignored_domains: list[str] = field(default_factory=list)
    native_cache: Path | None = None  # where to build the native bridge; None = keep the Python one

    @property
    def filtered(self) -> bool:
        """True when some hosts are reachable through the proxy; False for no network at all."""
        return self.proxy is not None

    async def start(self) -> None:
        """Listen on the socket; call once per session before the first sandboxed command."""
        if self.proxy is None:
            return
        await self.proxy.start()
        if self.native_cache is not None and self.inner_prefix and self.inner_prefix[1:2] == ["-I"]:
            native = await build_native_bridge(self.native_cache)
            if native is not None:
                self.inner_prefix = [str(native), *self.inner_prefix[4:]]
                self.bwrap_args += _bind_bridge(native)

    async def close(self) -> None:
        """Stop the proxy, drop its open tunnels and remove the socket."""
        if self.proxy is not None:
            await self.proxy.close()

    def wrap(self, argv: Sequence[str]) -> list[str]:
        """The argv bwrap runs inside: the bridge (if any) and then the command."""
        return [*self.inner_prefix, *argv]


def plan_network(
    policy: NetworkPolicy,
    runtime_dir: Path,
    *,
    resolve: Mapping[str, str] | None = None,
    on_decision: Callable[[ProxyDecision], None] | None = None,
    python: str | None = None,
    native_cache: Path | None = None,
    native: bool = True,
) -> NetworkPlan:
    """The network plan for a policy. Raises ValueError for an invalid `deniedDomains` entry (skipping it
    would widen access) or a `runtime_dir` too long for a Unix socket path.

    `resolve` pins names to addresses for the proxy (like curl's --resolve); `python` is the interpreter the
    bridge runs on inside (default: this one, which the read-only root makes visible there too);
    `native_cache` is where the native bridge is built (default `$XDG_CACHE_HOME/tui-agent`), `native=False`
    keeps the Python bridge.
    """
    rules = NetworkRules.from_lists(list(policy.allowed_domains), list(policy.denied_domains))
    local = bool(policy.allow_local_binding)
    if not rules.allowed:
        return NetworkPlan(["--unshare-net"], {}, [], allow_local_binding=local, ignored_domains=rules.ignored)
    socket_path = Path(runtime_dir).absolute() / SOCKET_NAME
    if len(str(socket_path).encode()) > _UNIX_PATH_MAX:
        raise ValueError(f"sandbox runtime folder path too long for a Unix socket ({_UNIX_PATH_MAX} bytes): {socket_path}")
    url = f"http://127.0.0.1:{INSIDE_PORT}"
    env = {name: url for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy",
                                  "ALL_PROXY", "all_proxy", "GRPC_PROXY", "grpc_proxy")}
    env |= {"NO_PROXY": NO_PROXY, "no_proxy": NO_PROXY}
    # The interpreter and the script as the kernel finds them, bound in below: a venv's `python` link or a
    # checkout under /tmp would be hidden by the sandbox's private /tmp.
    interpreter = python or os.path.realpath(sys.executable)
    env["GIT_SSH_COMMAND"] = _git_ssh_command(interpreter)
    # -I: no user site, no PYTHON* variables from the sandboxed environment; -S: no site import (start-up).
    prefix = [interpreter, "-I", "-S", str(BRIDGE_SCRIPT), str(INSIDE_PORT), str(socket_path), "--"]
    cache = (native_cache or default_cache_dir()) if native else None
    built = cached_native_bridge(cache) if cache is not None else None
    # Read-only is enough to connect() and keeps the sandbox from chmod-ing the socket every command shares.
    args = ["--unshare-net", "--ro-bind", str(socket_path), str(socket_path), *_bind_bridge(BRIDGE_SCRIPT)]
    if built is not None:
        prefix = [str(built), *prefix[4:]]
        args += _bind_bridge(built)
    proxy = SandboxProxy(rules, socket_path, resolve=resolve, on_decision=on_decision)
    return NetworkPlan(
        args,
        env,
        prefix,
        allow_local_binding=local,
        proxy=proxy,
        ignored_domains=rules.ignored,
        native_cache=cache,
    )


def _bind_bridge(binary: Path) -> list[str]:
    return ["--ro-bind", str(binary), str(binary)]


def _git_ssh_command(python: str) -> str:
    # ssh ignores HTTP_PROXY; as sandbox-runtime does (with socat), route it through CONNECT so `git` over
    # ssh reaches an allowed host (on port 22, filtered like any other). No multiplexing: its control
    # socket would live under ~/.ssh, which the sandbox may not let it create.
    proxy_command = shlex.join([python, "-I", "-S", str(BRIDGE_SCRIPT), "--connect", str(INSIDE_PORT), "%h", "%p"])
    return "ssh -o ControlMaster=no -o ControlPath=none -o " + shlex.quote(f"ProxyCommand={proxy_command}")
