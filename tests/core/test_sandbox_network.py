"""The sandbox's network through real bwrap, real processes and real loopback sockets.

A local HTTP server on the host's 127.0.0.1 plays "the internet": reachable from inside a sandbox only
through the session's proxy, only under a name the policy allows, never directly.
Run `python -m tests.core.test_sandbox_network` for the start-up figures (median of 50).
"""

from __future__ import annotations

import asyncio
import hashlib
import http.server
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tui_agent.core.sandbox.network import BRIDGE_SCRIPT, NetworkPlan, plan_network

INSTALL_HINT = "bwrap (bubblewrap) is needed for the sandbox tests: install it with `apt-get install -y bubblewrap` (as root)"
# The interpreter as the kernel finds it: a venv's `python` link under /tmp (a checkout there) is hidden by the
# sandbox's private /tmp; the scripts run inside use the standard library only.
PYTHON = os.path.realpath(sys.executable)


@dataclass
class Policy:
    allowed_domains: list[str] = field(default_factory=list)
    denied_domains: list[str] = field(default_factory=list)
    allow_local_binding: bool = False


def require_bwrap() -> str:
    """The sandbox tests fail, never skip, without a working bwrap."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        pytest.fail(INSTALL_HINT)
    probe = subprocess.run([bwrap, "--ro-bind", "/", "/", "--unshare-net", "true"], capture_output=True, timeout=30)
    if probe.returncode != 0:
        pytest.fail(f"bwrap cannot start a sandbox here ({probe.stderr.decode().strip()}); user namespaces needed. {INSTALL_HINT}")
    return bwrap


BIG = 4 * 1024 * 1024


class _Hello(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = f"hello from the host: {self.headers['Host']} {self.path}\n".encode()
        if self.path == "/big":
            body = bytes(range(256)) * (BIG // 256)
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def host_server() -> Iterator[int]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Hello)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()
    thread.join(5)


def base_args(bwrap: str) -> list[str]:
    # The filesystem part the other half of core/sandbox builds, reduced: read-only root, private /tmp
    # (which the pytest folder holding the socket lives under: the plan's binds must still reach inside).
    return [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
            "--unshare-pid", "--die-with-parent"]


def sandboxed(bwrap: str, plan: NetworkPlan, argv: Sequence[str]) -> list[str]:
    env = [part for name, value in plan.env.items() for part in ("--setenv", name, value)]
    return [*base_args(bwrap), *plan.bwrap_args, *env, *plan.wrap(argv)]


async def run(argv: Sequence[str], timeout: float = 30) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(*argv, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    try:
        out, err = await asyncio.wait_for(proc.communicate(), timeout)
    except asyncio.TimeoutError:
        proc.kill()
        await proc.wait()
        raise
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


@pytest.fixture(params=["native", "python"])
async def make_plan(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[object]:
    """Plans with the native bridge (built into the test's folder) and with the Python one."""
    plans: list[NetworkPlan] = []

    async def make(policy: Policy, resolve: dict[str, str] | None = None) -> NetworkPlan:
        plan = plan_network(policy, tmp_path / f"run{len(plans)}", resolve=resolve,
                            native_cache=tmp_path / "cache", native=request.param == "native")
        plans.append(plan)
        await plan.start()
        return plan

    yield make
    for plan in plans:
        await plan.close()


ALLOWED = Policy(allowed_domains=["allowed.test"])
PINNED = {"allowed.test": "127.0.0.1", "other.test": "127.0.0.1"}


async def test_the_plan_shape(tmp_path: Path) -> None:
    plan = plan_network(ALLOWED, tmp_path, native=False)
    sock = str(tmp_path.absolute() / "network-proxy.sock")
    script = str(BRIDGE_SCRIPT)  # bound in: a checkout under /tmp is hidden by the sandbox's private /tmp
    assert plan.bwrap_args == ["--unshare-net", "--ro-bind", sock, sock, "--ro-bind", script, script]
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY"):
        assert plan.env[name] == "http://127.0.0.1:3128"
    assert plan.env["NO_PROXY"] == "localhost,127.0.0.1,::1"
    assert plan.inner_prefix == [PYTHON, "-I", "-S", str(BRIDGE_SCRIPT), "3128", sock, "--"]
    none = plan_network(Policy(allowed_domains=[], denied_domains=["x.com"]), tmp_path)
    assert (none.bwrap_args, none.env, none.inner_prefix, none.filtered) == (["--unshare-net"], {}, [], False)
    await none.start()  # nothing to start, nothing to build
    assert not (tmp_path / "network-proxy.sock").exists()
    with pytest.raises(ValueError, match="too long"):
        plan_network(ALLOWED, tmp_path / ("x" * 120))


async def test_the_native_bridge_is_built_once_and_bound_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "cache"
    first = plan_network(ALLOWED, tmp_path / "a", native_cache=cache)
    assert first.inner_prefix[1:3] == ["-I", "-S"]  # nothing built yet: the Python bridge until start()
    await first.start()
    try:
        binary = first.inner_prefix[0]
        assert Path(binary).parent == cache and first.bwrap_args[-3:] == ["--ro-bind", binary, binary]
        second = plan_network(ALLOWED, tmp_path / "b", native_cache=cache)
        assert second.inner_prefix[0] == binary  # found at plan time, before any start()
        assert sorted(p.name for p in cache.iterdir()) == [Path(binary).name]  # no build leftovers
    finally:
        await first.close()
    monkeypatch.setattr(shutil, "which", lambda name: None)  # no C compiler on this machine
    bare = plan_network(ALLOWED, tmp_path / "c", native_cache=tmp_path / "empty")
    await bare.start()
    try:
        assert bare.inner_prefix[1:4] == ["-I", "-S", str(BRIDGE_SCRIPT)] and len(bare.bwrap_args) == 7
    finally:
        await bare.close()


async def test_allowed_host_is_reached_through_the_proxy(make_plan, host_server: int) -> None:
    bwrap = require_bwrap()
    plan = await make_plan(ALLOWED, PINNED)
    code, out, err = await run(sandboxed(bwrap, plan, ["curl", "-sS", "-m", "10", f"http://allowed.test:{host_server}/plain"]))
    assert (code, out) == (0, f"hello from the host: allowed.test:{host_server} /plain\n"), err
    # CONNECT (how every https:// request travels) through the same proxy.
    code, out, err = await run(sandboxed(bwrap, plan, ["curl", "-sS", "-m", "10", "-p", f"http://allowed.test:{host_server}/tunnel"]))
    assert (code, out) == (0, f"hello from the host: allowed.test:{host_server} /tunnel\n"), err
    fetch = f"import urllib.request; print(urllib.request.urlopen('http://allowed.test:{host_server}/py', timeout=10).read().decode(), end='')"
    code, out, err = await run(sandboxed(bwrap, plan, [PYTHON, "-I", "-c", fetch]))
    assert (code, out) == (0, f"hello from the host: allowed.test:{host_server} /py\n"), err
    assert [(d.method, d.host, d.allowed) for d in plan.proxy.decisions] == [
        ("GET", "allowed.test", True), ("CONNECT", "allowed.test", True), ("GET", "allowed.test", True)]


async def test_parallel_and_large_transfers_arrive_whole(make_plan, host_server: int) -> None:
    bwrap = require_bwrap()
    plan = await make_plan(ALLOWED, PINNED)
    script = (
        f"for i in 1 2 3 4 5 6; do curl -sS -m 20 -p http://allowed.test:{host_server}/big | md5sum & done; wait; "
        f"curl -sS -m 20 http://allowed.test:{host_server}/big | md5sum"
    )
    code, out, err = await run(sandboxed(bwrap, plan, ["bash", "-c", script]), timeout=60)
    expected = hashlib.md5(bytes(range(256)) * (BIG // 256)).hexdigest() + "  -"
    assert code == 0 and out.splitlines() == [expected] * 7, err


async def test_ssh_goes_through_the_proxy_too(make_plan, host_server: int) -> None:
    """GIT_SSH_COMMAND's ProxyCommand tunnels through CONNECT; a refused host says why on stderr."""
    bwrap = require_bwrap()
    plan = await make_plan(ALLOWED, PINNED)
    words = shlex.split(plan.env["GIT_SSH_COMMAND"])
    assert words[:5] == ["ssh", "-o", "ControlMaster=no", "-o", "ControlPath=none"]
    proxy_command = words[6].removeprefix("ProxyCommand=")
    if shutil.which("ssh"):  # the quoting survives ssh's own parsing
        _, parsed, _ = await run(sandboxed(bwrap, plan, ["bash", "-c", 'eval "$GIT_SSH_COMMAND -G allowed.test"']))
        assert f"proxycommand {proxy_command}\n" in parsed
    for host, expected in (("allowed.test", 0), ("denied.test", 1)):
        command = proxy_command.replace("%h", host).replace("%p", str(host_server))
        script = f"printf 'GET /ssh HTTP/1.0\\r\\n\\r\\n' | {command}"
        code, out, err = await run(sandboxed(bwrap, plan, ["bash", "-c", script]))
        assert code == expected, (out, err)
        if expected == 0:
            assert out.endswith("hello from the host: None /ssh\n")  # HTTP/1.0 without Host: the raw tunnel
    assert out == "" and f"denied.test:{host_server}: HTTP/1.1 403 Forbidden" in err
    assert [(d.method, d.host, d.allowed) for d in plan.proxy.decisions] == [
        ("CONNECT", "allowed.test", True), ("CONNECT", "denied.test", False)]


async def test_localhost_allowed_by_name(make_plan, host_server: int) -> None:
    bwrap = require_bwrap()
    plan = await make_plan(Policy(allowed_domains=["localhost"]))
    # NO_PROXY keeps loopback names direct (the sandbox's own loopback); ask for the proxy explicitly.
    argv = ["env", "-u", "NO_PROXY", "-u", "no_proxy", "curl", "-sS", "-m", "10", f"http://localhost:{host_server}/lh"]
    code, out, err = await run(sandboxed(bwrap, plan, argv))
    assert (code, out) == (0, f"hello from the host: localhost:{host_server} /lh\n"), err


async def test_a_host_not_allowed_gets_403_from_the_proxy(make_plan, host_server: int) -> None:
    bwrap = require_bwrap()
    plan = await make_plan(Policy(allowed_domains=["allowed.test"], denied_domains=["other.test"]), PINNED)
    argv = ["curl", "-sS", "-m", "10", "-w", "\n%{http_code}", f"http://other.test:{host_server}/"]
    code, out, err = await run(sandboxed(bwrap, plan, argv))
    assert code == 0 and out.endswith("\n403"), (out, err)
    assert "Connection blocked by network allowlist" in out and "deny list" in out
    code, out, err = await run(sandboxed(bwrap, plan, ["curl", "-sS", "-m", "10", "-p", f"http://unlisted.test:{host_server}/"]))
    assert code != 0 and "CONNECT tunnel failed, response 403" in err
    assert [(d.host, d.allowed) for d in plan.proxy.decisions] == [("other.test", False), ("unlisted.test", False)]


async def test_no_direct_route_to_the_hosts_loopback(make_plan, host_server: int) -> None:
    bwrap = require_bwrap()
    plan = await make_plan(ALLOWED, PINNED)
    code, out, err = await run(sandboxed(bwrap, plan, ["curl", "-sS", "-m", "10", "--noproxy", "*", f"http://127.0.0.1:{host_server}/"]))
    assert code == 7 and "Couldn't connect" in err, (code, out, err)
    dial = f"import socket; socket.create_connection(('127.0.0.1', {host_server}), timeout=5)"
    code, _, err = await run(sandboxed(bwrap, plan, [PYTHON, "-I", "-c", dial]))
    assert code == 1 and "ConnectionRefusedError" in err


async def test_no_allowed_domain_means_no_network(tmp_path: Path, host_server: int) -> None:
    bwrap = require_bwrap()
    plan = plan_network(Policy(), tmp_path)
    await plan.start()
    probe = f"""
import socket
for target in [('127.0.0.1', {host_server}), ('127.0.0.1', 3128)]:
    try:
        socket.create_connection(target, timeout=5)
        print('reached', target)
    except OSError as exc:
        print('refused', type(exc).__name__)
print(sorted(line.split(':')[0].strip() for line in open('/proc/net/dev').readlines()[2:]))
"""
    code, out, err = await run(sandboxed(bwrap, plan, [PYTHON, "-I", "-c", probe]))
    assert code == 0, err
    assert out.splitlines() == ["refused ConnectionRefusedError", "refused ConnectionRefusedError", "['lo']"]
    code, out, err = await run(sandboxed(bwrap, plan, ["curl", "-sS", "-m", "5", f"http://127.0.0.1:{host_server}/"]))
    assert code == 7


async def test_a_server_the_command_starts_is_reached_directly(make_plan) -> None:
    """allowLocalBinding, as on Claude Code's Linux path: the sandbox's own loopback is the command's to use."""
    bwrap = require_bwrap()
    plan = await make_plan(Policy(allowed_domains=["allowed.test"], allow_local_binding=False), PINNED)
    script = (
        f"{PYTHON} -I -m http.server 8000 --bind 127.0.0.1 -d / >/dev/null 2>&1 & "
        "for i in $(seq 100); do curl -s -o /dev/null localhost:8000/ && break; sleep 0.05; done; "
        "curl -sS -o /dev/null -w '%{http_code}' http://localhost:8000/; kill %1"
    )
    code, out, err = await run(sandboxed(bwrap, plan, ["bash", "-c", script]))
    assert (code, out) == (0, "200"), err
    assert list(plan.proxy.decisions) == []  # NO_PROXY kept it off the proxy


def test_without_bwrap_the_tests_fail_with_the_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(pytest.fail.Exception, match="apt-get install -y bubblewrap"):
        require_bwrap()


async def test_the_command_keeps_its_status_signals_and_output(make_plan, tmp_path: Path) -> None:
    bwrap = require_bwrap()
    plan = await make_plan(ALLOWED, PINNED)
    code, out, _ = await run(sandboxed(bwrap, plan, ["bash", "-c", "echo out; exit 7"]))
    assert (code, out) == (7, "out\n")
    # Ignored signals are inherited across exec: the bridge must not leave SIGPIPE ignored (Python's default).
    plain = plan_network(Policy(), tmp_path / "none")
    _, outside, _ = await run(sandboxed(bwrap, plain, ["grep", "SigIgn", "/proc/self/status"]))
    _, inside, _ = await run(sandboxed(bwrap, plan, ["grep", "SigIgn", "/proc/self/status"]))
    assert inside == outside
    code, out, err = await run(sandboxed(bwrap, plan, ["bash", "-c", "yes | head -1"]))
    assert (code, out, err) == (0, "y\n", "")
    code, _, err = await run(sandboxed(bwrap, plan, ["no-such-command-here"]))
    assert code in (126, 127) and "no-such-command-here" in err


async def test_the_forwarder_stops_by_itself(make_plan) -> None:
    """Without a PID namespace to take it down, the forwarder still ends soon after the command."""
    bwrap = require_bwrap()
    plan = await make_plan(ALLOWED, PINNED)
    sock = plan.bwrap_args[2]
    argv = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", *plan.bwrap_args,
            *plan.wrap(["true"])]
    code, out, err = await run(argv)
    assert code == 0, err

    def forwarders() -> list[str]:
        found = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            if sock.encode() in cmdline:
                found.append(pid)
        return found

    for _ in range(50):  # bounded: 5 s
        if not forwarders():
            break
        await asyncio.sleep(0.1)
    assert forwarders() == []


def bench(runs: int = 50) -> dict[str, tuple[float, float]]:
    """A sandboxed `true`, per variant: median and p95 wall time in ms."""
    bwrap = shutil.which("bwrap") or "bwrap"

    def once(argv: list[str]) -> float:
        start = time.perf_counter()
        os.waitpid(os.posix_spawnp(argv[0], argv, os.environ), 0)
        return (time.perf_counter() - start) * 1000

    async def measure() -> dict[str, tuple[float, float]]:
        with tempfile.TemporaryDirectory() as folder:
            native = plan_network(ALLOWED, Path(folder) / "n", native_cache=Path(folder) / "cache")
            python = plan_network(ALLOWED, Path(folder) / "p", native=False)
            for plan in (native, python):
                await plan.start()  # the proxies listen; `true` never connects, so blocking the loop is fine
            base = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "--die-with-parent"]
            variants = {
                "true, unsandboxed": ["true"],
                "bwrap, host network": [*base, "true"],
                "bwrap, no network (--unshare-net)": [*base, "--unshare-net", "true"],
                "bwrap + network plan, native bridge": sandboxed(bwrap, native, ["true"]),
                "bwrap + network plan, python bridge": sandboxed(bwrap, python, ["true"]),
            }
            samples: dict[str, list[float]] = {name: [] for name in variants}
            for _ in range(runs):  # interleaved, so load changes hit every variant alike
                for name, argv in variants.items():
                    samples[name].append(once(argv))
            for plan in (native, python):
                await plan.close()
        result = {}
        for name, wall in samples.items():
            wall.sort()
            result[name] = (statistics.median(wall), wall[int(0.95 * len(wall)) - 1])
        return result

    return asyncio.run(measure())


if __name__ == "__main__":
    for name, (median, p95) in bench().items():
        print(f"{name:38s} median {median:6.2f} ms  p95 {p95:6.2f} ms")
