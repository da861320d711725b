"""The bridge as a tiny C program, built once per machine when a C compiler is there.

Why: `python3 -I -S bridge.py` costs ~10 ms of interpreter start-up per command (measured here), which is
the whole sandbox budget; this does the same job (listen on the inside loopback, relay each connection to the
proxy's Unix socket, exec the command) in well under a millisecond. Without a compiler the Python bridge is
used: same behaviour, slower start. The binary lives in a cache folder named by the source's hash, so a new
version of this file builds a new binary and an old one is never run.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import platform
import shutil
from pathlib import Path

_SOURCE = r"""
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

/* bridge PORT SOCKET -- COMMAND [ARG...]: see bridge.py, which this mirrors. */

static int write_all(int fd, const char *buf, ssize_t n) {
    while (n > 0) {
        ssize_t w = write(fd, buf, n);
        if (w < 0) { if (errno == EINTR) continue; return 0; }
        buf += w; n -= w;
    }
    return 1;
}

static void relay(int a, int b) {
    static char buf[65536];
    int open_a = 1, open_b = 1;
    while (open_a || open_b) {
        struct pollfd p[2] = {{open_a ? a : -1, POLLIN, 0}, {open_b ? b : -1, POLLIN, 0}};
        if (poll(p, 2, -1) < 0) { if (errno == EINTR) continue; return; }
        for (int i = 0; i < 2; i++) {
            int src = i ? b : a, dst = i ? a : b;
            int *open_src = i ? &open_b : &open_a;
            if (!*open_src || !p[i].revents) continue;
            ssize_t r = read(src, buf, sizeof buf);
            if (r < 0 && errno == EINTR) continue;
            if (r < 0) return;               /* reset: drop both directions */
            if (r == 0) { *open_src = 0; shutdown(dst, SHUT_WR); continue; }
            if (!write_all(dst, buf, r)) return;
        }
    }
}

static void serve(int listener, const char *path, pid_t command) {
    int null = open("/dev/null", O_RDWR);
    /* Let go of the command's stdout/stderr: their reader must see EOF when the command ends. */
    if (null >= 0) { dup2(null, 0); dup2(null, 1); dup2(null, 2); if (null > 2) close(null); }
    signal(SIGPIPE, SIG_IGN);
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
    for (;;) {
        struct pollfd p = {listener, POLLIN, 0};
        int ready = poll(&p, 1, 200);
        if (kill(command, 0) < 0 && errno == ESRCH) _exit(0);
        while (waitpid(-1, NULL, WNOHANG) > 0) {}
        if (ready <= 0) continue;
        int client = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
        if (client < 0) continue;
        pid_t child = fork();
        if (child == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);  /* a relay ends with the forwarder */
            close(listener);
            int up = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
            if (up >= 0 && connect(up, (struct sockaddr *)&addr, sizeof addr) == 0) relay(client, up);
            _exit(0);
        }
        close(client);
    }
}

int main(int argc, char **argv) {
    if (argc < 5 || strcmp(argv[3], "--") != 0) {
        fprintf(stderr, "usage: bridge PORT SOCKET -- COMMAND [ARG...]\n");
        return 125;
    }
    int port = atoi(argv[1]);
    int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(port)};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (listener < 0 || setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0
        || bind(listener, (struct sockaddr *)&addr, sizeof addr) < 0 || listen(listener, 128) < 0) {
        fprintf(stderr, "tui-agent sandbox: network bridge cannot listen on 127.0.0.1:%d: %s\n", port, strerror(errno));
        return 125;
    }
    pid_t command = getpid();
    pid_t middle = fork();
    if (middle == 0) {
        /* Twice, so the forwarder is not the command's child (see bridge.py). */
        if (fork() == 0) serve(listener, argv[2], command);
        _exit(0);
    }
    waitpid(middle, NULL, 0);
    close(listener);
    execvp(argv[4], argv + 4);
    fprintf(stderr, "tui-agent sandbox: %s: %s\n", argv[4], strerror(errno));
    return errno == ENOENT ? 127 : 126;
}
"""


def default_cache_dir() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "tui-agent"


def native_bridge_path(cache_dir: Path) -> Path:
    """Where the binary for this source and machine lives (whether or not it is built yet)."""
    digest = hashlib.sha256((_SOURCE + platform.machine()).encode()).hexdigest()[:16]
    return cache_dir / f"sandbox-bridge-{digest}"


def cached_native_bridge(cache_dir: Path) -> Path | None:
    path = native_bridge_path(cache_dir)
    return path if os.access(path, os.X_OK) else None


async def build_native_bridge(cache_dir: Path, *, timeout: float = 60.0) -> Path | None:
    """Build the binary if it is missing; None when there is no C compiler or the build fails."""
    found = cached_native_bridge(cache_dir)
    if found is not None:
        return found
    compiler = next((c for c in (os.environ.get("CC"), "cc", "gcc", "clang") if c and shutil.which(c)), None)
    if compiler is None:
        return None
    target = native_bridge_path(cache_dir)
    source = target.with_name(f"{target.name}.{os.getpid()}.c")
    partial = target.with_name(f"{target.name}.{os.getpid()}.tmp")
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        source.write_text(_SOURCE)
    except OSError:
        return None  # an unwritable cache only costs speed: the Python bridge does the same job
    try:
        proc = await asyncio.create_subprocess_exec(
            compiler, "-O2", "-o", str(partial), str(source),
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
        )
        try:
            code = await asyncio.wait_for(proc.wait(), timeout)
        except asyncio.TimeoutError:
            proc.kill()
            await proc.wait()
            return None
        if code != 0:
            return None
        os.replace(partial, target)  # atomic: a concurrent session sees no binary or a whole one
        return target
    except OSError:
        return None
    finally:
        for leftover in (source, partial):
            leftover.unlink(missing_ok=True)
