"""A program's modules imported once; a forked child for each start (`python zygote.py SOCKET SPEC`).

Started by tests/warm_start for one run and one program (`tui_agent` run as with `-m`, or a script); the
launcher (launcher.py) connects, passes its stdin, stdout and stderr, its arguments, environment, folder and
umask, and gets back "P" + the child's pid, then "X" + its wait status. Signals the launcher gets arrive as
bytes and go to the child; the launcher's end closing (it was killed) kills the child. A start whose
environment differs from this process's on a variable the imports read, or on Python's own variables, is
answered "F": the launcher runs the program fresh instead.

It leaves the worker's process tree (fork + setsid), so tests that look at their own children see only
the launchers, as they would see fresh processes; it exits when the run's controller (spec["owner"]) does.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import io
import json
import os
import selectors
import signal
import socket
import struct
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
APPLIED_PYTHON_VARIABLES = ("PYTHONUNBUFFERED", "PYTHONIOENCODING", "PYTHONDONTWRITEBYTECODE")
"""Python's own variables the child applies itself; any other that differs sends the start fresh."""
LOCALE_VARIABLES = ("LC_ALL", "LC_CTYPE", "LANG")
"""The standard streams' encoding comes from them at Python's start."""


def load_purity() -> types.ModuleType:
    spec = importlib.util.spec_from_file_location("_warm_start_purity", os.path.join(HERE, "purity.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses looks its module up
    spec.loader.exec_module(module)
    return module


def preload(spec: dict[str, object]) -> dict[str, object]:
    """Import what a fresh run of the program imports, watching what the imports read."""
    purity = load_purity()
    # sys.path[0] as a fresh start has it while importing: the script's folder, or (for -m) the working
    # folder, which is this process's empty one
    sys.path[0] = os.path.dirname(str(spec["target"])) if spec["kind"] == "script" else os.getcwd()
    failed = []
    with purity.record_imports([str(p) for p in spec["own_code"]]) as report:  # type: ignore[union-attr]
        for name in spec["preload"]:  # type: ignore[union-attr]
            try:
                importlib.import_module(str(name))
            except BaseException as exc:  # a module only its own parent's code imports; the child will
                failed.append(f"{name}: {exc!r}")
    return {**report.as_json(), "failed": failed, "environment": dict(os.environ)}


def differs(start_env: dict[str, str], report: dict[str, object]) -> str | None:
    """Why a start with this environment cannot be a child of this process (None: it can)."""
    if not report["pure"]:
        return "the imports read more than the variables compared"
    seen: dict[str, str | None] = report["variables"]  # type: ignore[assignment]
    for name, value in seen.items():
        if start_env.get(name) != value:
            return f"{name} differs"
    ours: dict[str, str] = report["environment"]  # type: ignore[assignment]
    for name in set(start_env) | set(ours):
        if (name.startswith("PYTHON") and name not in APPLIED_PYTHON_VARIABLES) or name in LOCALE_VARIABLES:
            if start_env.get(name) != ours.get(name):
                return f"{name} differs"
    return None


def standard_streams(env: dict[str, str]) -> None:
    """New sys.stdin/stdout/stderr on fds 0-2, as Python makes them at start for this environment (the
    launcher starts fresh when any is a terminal, so none is line-buffered for being one)."""
    encoding, errors = sys.stdout.encoding, sys.stdout.errors
    wanted = env.get("PYTHONIOENCODING", "")
    if wanted:
        name, _, how = wanted.partition(":")
        encoding, errors = name or encoding, how or errors
    unbuffered = bool(env.get("PYTHONUNBUFFERED"))

    def stream(fd: int, mode: str, errors: str, line_buffering: bool = False) -> io.TextIOWrapper:
        raw = io.open(fd, mode + "b", buffering=0 if unbuffered and mode == "w" else -1, closefd=False)
        text = io.TextIOWrapper(raw, encoding=encoding, errors=errors, line_buffering=line_buffering,
                                write_through=unbuffered and mode == "w")
        text.mode = mode  # type: ignore[misc]
        return text

    sys.stdin = sys.__stdin__ = stream(0, "r", errors)
    sys.stdout = sys.__stdout__ = stream(1, "w", errors)
    sys.stderr = sys.__stderr__ = stream(2, "w", "backslashreplace", line_buffering=True)


def run_program(spec: dict[str, object], argv: list[str]) -> None:
    target = str(spec["target"])
    if spec["kind"] == "module":
        import runpy

        sys.argv = [target, *argv]  # runpy puts the module's file in argv[0], as -m does
        runpy._run_module_as_main(target)  # type: ignore[attr-defined]
        return
    sys.argv = [target, *argv]
    main = types.ModuleType("__main__")
    main.__file__ = target
    main.__loader__ = importlib.machinery.SourceFileLoader("__main__", target)
    main.__builtins__ = __builtins__
    sys.modules["__main__"] = main
    with open(target, "rb") as source:
        code = compile(source.read(), target, "exec")
    exec(code, main.__dict__)


def exit_code(exc: SystemExit) -> int:
    """What Python exits with for an uncaught SystemExit."""
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code
    print(exc.code, file=sys.stderr)
    return 1


def child(spec: dict[str, object], request: dict[str, object], fds: list[int], zygote_only: list[object],
          zygote_fds: list[int]) -> None:
    """In the forked child: become the start the launcher asked for, run the program, exit like Python."""
    code = 1
    try:
        for thing in zygote_only:
            thing.close()  # type: ignore[attr-defined]
        for fd in zygote_fds:
            os.close(fd)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        for fd in fds:
            if fd > 2:
                os.close(fd)
        env: dict[str, str] = request["env"]  # type: ignore[assignment]
        os.environ.clear()
        os.environ.update(env)
        os.chdir(str(request["cwd"]))
        os.umask(int(request["umask"]))  # type: ignore[arg-type]
        sys.dont_write_bytecode = bool(env.get("PYTHONDONTWRITEBYTECODE"))
        purity = sys.modules["_warm_start_purity"]
        for module, names in purity.FOLDER_KEPT_AT_IMPORT.items():  # type: ignore[attr-defined]
            if module in sys.modules:
                for name in names:
                    if hasattr(sys.modules[module], name):
                        setattr(sys.modules[module], name, os.getcwd())
        if spec["kind"] == "module":
            sys.path[0] = os.getcwd()
        standard_streams(env)
        try:
            run_program(spec, list(request["argv"]))  # type: ignore[arg-type]
            code = 0
        except SystemExit as exc:
            code = exit_code(exc)
        except KeyboardInterrupt:
            finish()
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)  # Python's own end for an uncaught KeyboardInterrupt
        except BaseException:
            sys.excepthook(*sys.exc_info())  # type: ignore[arg-type]
            code = 1
        code = finish(code)
    finally:
        os._exit(code)


def finish(code: int = 0) -> int:
    """Python's end: wait for non-daemon threads, run atexit, flush the streams (120 if that fails)."""
    import atexit
    import threading

    try:
        threading._shutdown()  # type: ignore[attr-defined]
    except BaseException:
        pass
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            code = 120 if code == 0 else code
    return code


def serve(sock_path: str, spec: dict[str, object], report: dict[str, object], lifeline: int, ready: int) -> None:
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(sock_path)
    listener.listen(128)
    os.write(ready, b"ready\n")  # the worker waits for this line: connections are taken from now on
    os.close(ready)
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ, ("accept",))
    selector.register(lifeline, selectors.EVENT_READ, ("lifeline",))
    running: dict[int, tuple[int, socket.socket]] = {}  # pidfd -> (pid, connection)
    connections: dict[socket.socket, int] = {}  # connection -> pidfd

    def start(conn: socket.socket) -> None:
        fds: list[int] = []
        try:
            head, fds, _, _ = socket.recv_fds(conn, 1 << 16, 3)  # (a launcher gone already: OSError)
            if len(head) < 4 or len(fds) != 3:
                raise ValueError("bad request")
            (size,) = struct.unpack("!I", head[:4])
            data = head[4:]
            while len(data) < size:
                more = conn.recv(size - len(data))
                if not more:
                    raise ValueError("short request")
                data += more
            request = json.loads(data)
            if differs(request["env"], report) is not None:
                conn.sendall(b"F" + struct.pack("!i", 0))
                conn.close()
                return
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                child(spec, request, fds, [selector, listener, *connections, conn], [lifeline, *running])
            pidfd = os.pidfd_open(pid)
            running[pidfd] = (pid, conn)
            connections[conn] = pidfd
            selector.register(pidfd, selectors.EVENT_READ, ("exit",))
            selector.register(conn, selectors.EVENT_READ, ("signal",))
            conn.sendall(b"P" + struct.pack("!i", pid))
        except (OSError, ValueError):
            conn.close()
        finally:
            for fd in fds:
                os.close(fd)

    while True:
        for key, _ in selector.select():
            what = key.data[0]
            if what == "accept":
                conn, _ = listener.accept()
                start(conn)
            elif what == "lifeline":
                return  # the run is over; children still running finish on their own
            elif what == "signal":
                conn = key.fileobj  # type: ignore[assignment]
                pidfd = connections[conn]  # type: ignore[index]
                try:
                    data = conn.recv(64)  # type: ignore[union-attr]
                except OSError:
                    data = b""
                numbers = list(data) if data else [signal.SIGKILL]  # the launcher died: so does its child
                if not data:
                    selector.unregister(conn)
                for number in numbers:
                    try:
                        signal.pidfd_send_signal(pidfd, number)
                    except ProcessLookupError:
                        pass
            else:
                pidfd = key.fd
                pid, conn = running.pop(pidfd)
                selector.unregister(pidfd)
                _, status = os.waitpid(pid, 0)
                os.close(pidfd)
                connections.pop(conn, None)
                try:
                    selector.unregister(conn)
                except KeyError:
                    pass
                code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
                try:
                    conn.sendall(b"X" + struct.pack("!i", code))
                except OSError:
                    pass
                conn.close()


def main() -> None:
    sock_path, spec_path = sys.argv[1], sys.argv[2]
    with open(spec_path) as f:
        spec = json.load(f)
    if os.fork() > 0:
        os._exit(0)
    os.setsid()
    try:
        lifeline = os.pidfd_open(int(spec["owner"]))  # readable once the run's controller has ended
    except ProcessLookupError:
        return
    report = preload(spec)
    with open(spec["report"], "w") as f:
        json.dump(report, f)
    ready = os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    serve(sock_path, spec, report, lifeline, ready)


if __name__ == "__main__":
    main()
