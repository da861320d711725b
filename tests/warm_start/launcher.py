"""The program as tests start it, warm: this file, with its first lines filled in, is an executable script.

It hands its stdin, stdout and stderr, arguments, environment, folder and umask to the run's zygote
(zygote.py), which forks a child with the program's modules already imported; it passes on the signals it
gets and ends as the child ended (its exit code, or killed by the same signal). It runs the program fresh
(exec, same pid) when a standard stream is a terminal, when the zygote cannot be reached, or when the zygote
says the start's environment differs from what its imports read. `-I -S`: nothing of the environment or
site-packages is imported for the launcher's own few lines.
"""

import json
import os
import signal
import socket
import struct
import sys

SOCKET = ""  # filled in
FRESH: list = []  # filled in: the command line of a fresh start
FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2)


def fresh() -> None:
    os.execv(FRESH[0], FRESH + sys.argv[1:])


def receive(conn: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        more = conn.recv(size - len(data))
        if not more:
            break
        data += more
    return data


def main() -> None:
    if any(os.isatty(fd) for fd in (0, 1, 2)):
        fresh()
    try:
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.connect(SOCKET)
        umask = os.umask(0)
        os.umask(umask)
        request = json.dumps({"argv": sys.argv[1:], "env": dict(os.environ), "cwd": os.getcwd(), "umask": umask}).encode()
        message = struct.pack("!I", len(request)) + request
        sent = socket.send_fds(conn, [message], [0, 1, 2])
        if sent < len(message):  # (a send of nothing fails once the zygote is done with a quick child)
            conn.sendall(message[sent:])
        answer = receive(conn, 5)
    except OSError:
        answer = b""
    if answer[:1] != b"P":
        fresh()
    for number in FORWARDED:
        signal.signal(number, lambda n, _frame: conn.send(bytes([n])))
    status = receive(conn, 5)
    if status[:1] != b"X":
        sys.stderr.write("warm start: the zygote went away before the program ended\n")
        os._exit(70)
    (code,) = struct.unpack("!i", status[1:])
    if code < 0:
        for number in FORWARDED:
            signal.signal(number, signal.SIG_DFL)
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
        code = 128 - code
    os._exit(code)


main()
