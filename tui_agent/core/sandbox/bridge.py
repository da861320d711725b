"""Inside the sandbox: listen on the sandbox's own loopback and relay each connection to the proxy's socket.

Run as a standalone file, never imported by the package: `python3 -I -S bridge.py PORT SOCKET -- CMD...`.
It binds 127.0.0.1:PORT in the sandbox's network namespace (bwrap --unshare-net: only a loopback), leaves a
forwarder behind, and execs CMD in its own process, so CMD keeps the pid bwrap waits on, its exit status and
its signals. This plays the part of sandbox-runtime's in-sandbox `socat TCP-LISTEN:3128,fork UNIX-CONNECT:...`
(linux-sandbox-utils.js buildSandboxCommand) without needing socat.

Start-up cost is the point of its shape: only `os`, `sys` and `_socket` load before the exec (no `socket`
module: it imports enum, selectors, ...); `select` and `_thread` load in the forwarder, after the fork. Even
so the interpreter costs ~15 ms here, so the C twin in `bridge_native.py` runs instead wherever it could be
built; this file is the fallback, and the ssh ProxyCommand (`--connect`, where start-up does not matter).
"""

import _socket
import os
import sys

_POLL_SECONDS = 0.2  # how soon the forwarder notices the command is gone and exits


def main(argv: list) -> int:
    if argv[:1] == ["--connect"]:
        return _connect(argv[1:])
    try:
        sep = argv.index("--")
        port, socket_path, command = int(argv[0]), argv[1], argv[sep + 1:]
    except (ValueError, IndexError):
        command = []
    if not command:
        sys.stderr.write("usage: bridge.py PORT SOCKET -- COMMAND [ARG...]\n")
        return 125
    try:
        listener = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
        listener.setsockopt(_socket.SOL_SOCKET, _socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", port))
        listener.listen(128)
    except OSError as exc:
        # Listening before the exec is what lets the command's first request succeed; without it, fail loudly.
        sys.stderr.write(f"tui-agent sandbox: network bridge cannot listen on 127.0.0.1:{port}: {exc}\n")
        return 125
    command_pid = os.getpid()
    middle = os.fork()
    if middle == 0:
        # Fork twice so the forwarder is not the command's child: a command that waits for every child
        # (waitpid(-1) until ECHILD) must not wait on a forwarder that only ends when the command does.
        if os.fork() == 0:
            _serve(listener, socket_path, command_pid)
        os._exit(0)
    os.waitpid(middle, 0)
    listener.close()
    import _signal

    # Python starts with SIGPIPE and SIGXFSZ ignored, and an ignored signal stays ignored across exec:
    # put them back, or `yes | head -1` inside would see EPIPE instead of dying quietly (as subprocess does).
    for name in ("SIGPIPE", "SIGXFSZ"):
        if hasattr(_signal, name):
            _signal.signal(getattr(_signal, name), _signal.SIG_DFL)
    try:
        os.execvp(command[0], command)
    except OSError as exc:
        sys.stderr.write(f"tui-agent sandbox: {command[0]}: {exc.strerror}\n")
        return 127 if isinstance(exc, FileNotFoundError) else 126
    return 126  # not reached: execvp returns only by raising


def _serve(listener: "_socket.socket", socket_path: str, command_pid: int) -> None:
    import _thread
    import select

    # Let go of the command's stdout/stderr: whoever reads them must see EOF when the command ends, not us.
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    try:
        while True:
            ready = select.select([listener], [], [], _POLL_SECONDS)[0]
            if not _alive(command_pid):
                break
            if ready:
                try:
                    fd, _ = listener._accept()
                except OSError:
                    continue
                _thread.start_new_thread(_relay, (_socket.socket(fileno=fd), socket_path, _thread.allocate_lock()))
    finally:
        os._exit(0)  # threads end with us; nothing of this process outlives the command by more than a poll


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _relay(client: "_socket.socket", socket_path: str, first_done: "_thread.LockType") -> None:
    import _thread

    upstream = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        upstream.connect(socket_path)
    except OSError:
        client.close()
        upstream.close()
        return
    _thread.start_new_thread(_pump, (upstream, client, first_done))
    _pump(client, upstream, first_done)


def _pump(src: "_socket.socket", dst: "_socket.socket", first_done: "_thread.LockType") -> None:
    clean = True
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        clean = False
    # Pass a clean half-close on; after an error, shut both sockets so the other direction wakes up too.
    closing = [(dst, _socket.SHUT_WR)] if clean else [(src, _socket.SHUT_RDWR), (dst, _socket.SHUT_RDWR)]
    for sock, how in closing:
        try:
            sock.shutdown(how)
        except OSError:
            pass
    # The second of the two directions to finish closes both sockets.
    if not first_done.acquire(False):
        src.close()
        dst.close()


def _connect(argv: list) -> int:
    """`--connect PORT HOST HOSTPORT`: an ssh ProxyCommand — CONNECT through the inside proxy, then relay
    stdin/stdout over the tunnel (sandbox-runtime does this with `socat - PROXY:...` in GIT_SSH_COMMAND)."""
    import _thread

    try:
        port, host, host_port = int(argv[0]), argv[1], int(argv[2])
    except (ValueError, IndexError):
        sys.stderr.write("usage: bridge.py --connect PORT HOST HOSTPORT\n")
        return 2
    try:
        sock = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
        sock.connect(("127.0.0.1", port))
        authority = f"[{host}]:{host_port}" if ":" in host else f"{host}:{host_port}"
        sock.sendall(f"CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n\r\n".encode())
        head = b""
        while b"\r\n\r\n" not in head and len(head) < 65536:
            chunk = sock.recv(4096)
            if not chunk:
                break
            head += chunk
    except OSError as exc:
        sys.stderr.write(f"tui-agent sandbox: cannot reach the network proxy: {exc}\n")
        return 1
    status, _, rest = head.partition(b"\r\n\r\n")
    if not status.startswith((b"HTTP/1.1 200", b"HTTP/1.0 200")):
        refusal = (status.split(b"\r\n")[0] + b" " + rest).decode("latin-1").strip()
        sys.stderr.write(f"tui-agent sandbox: {host}:{host_port}: {refusal}\n")
        return 1
    stdin, stdout = sys.stdin.buffer.raw, sys.stdout.buffer.raw
    if rest:
        stdout.write(rest)
    def upload() -> None:
        try:
            while data := stdin.read(65536):
                sock.sendall(data)
            sock.shutdown(_socket.SHUT_WR)
        except OSError:
            pass

    _thread.start_new_thread(upload, ())
    try:
        while data := sock.recv(65536):
            view = memoryview(data)
            while view:
                view = view[stdout.write(view):]
    except OSError:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
