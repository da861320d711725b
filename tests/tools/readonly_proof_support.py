"""The runtime proof of the read-only classifier (issue 23): a scratch workspace and home, the product's own
decision on a shell line, and a checker that runs the line in bwrap under `strace -f` and lists what it did
that a read-only line must not do.

What the checker calls a violation:
  exec     a program ran whose real path is not an allowlisted reader (nor bash, nor git's own binary);
  write    a file was opened for writing, created, renamed, removed, linked or chmod-ed (/dev/null, /dev/tty
           and the output pipe excepted), or the clock / host name was set;
  outside  a path outside the workspace copy was opened (system files excepted, see `_allowed_read`);
  secret   the output holds the fake API key or a fake secret file's text;
  network  an AF_INET/AF_INET6 connect was tried (the sandbox has no network: the attempt is the evidence);
  timeout  the sandbox was still running after the per-line timeout (it is killed, then waited for);
  untraced strace wrote no trace of the shell: the checker cannot vouch for the line.
"""

from __future__ import annotations

import asyncio
import gzip
import os
import re
import shutil
import signal
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock

from tui_agent.core.permission_types import PermissionCheck
from tui_agent.core.permissions import PermissionEngine
from tui_agent.tools import bash as bash_tool
from tui_agent.tools import bash_readonly, processes
from tui_agent.tools.base import Workspace
from tui_agent.tools.ripgrep import rg_binary

SANDBOX_TOOLS = ("bwrap", "strace")
LINE_TIMEOUT_S = 20.0
API_KEY = "sk-ant-api03-FAKE-KEY-4f1d2c"
SSH_KEY = "FAKE-SSH-PRIVATE-KEY-9a7e31"
DOCKER_AUTH = "FAKE-DOCKER-AUTH-5c0b8d"
KEY_FILE = "FAKE-KEY-FILE-e62f04"
SECRETS = (API_KEY, SSH_KEY, DOCKER_AUTH, KEY_FILE)
STD_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

TRACED = (
    "execve,execveat,open,openat,openat2,creat,rename,renameat,renameat2,unlink,unlinkat,mkdir,mkdirat,"
    "symlink,symlinkat,link,linkat,truncate,chmod,fchmodat,"
    # Beyond the list: process creation (which program each pid runs), system changes that are
    # not files (`date --s=`, `hostname --fi=`) and connects (`/dev/tcp/...`).
    "clone,clone3,fork,vfork,settimeofday,clock_settime,sethostname,setdomainname,connect"
)
_WRITE_CALLS = frozenset({"creat", "rename", "renameat", "renameat2", "unlink", "unlinkat", "mkdir", "mkdirat",
                          "symlink", "symlinkat", "link", "linkat", "truncate", "chmod", "fchmodat"})
_SYSTEM_CALLS = frozenset({"settimeofday", "clock_settime", "sethostname", "setdomainname"})
_WRITE_FLAGS = frozenset({"O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND"})
_HARMLESS_SINKS = frozenset({"/dev/null", "/dev/tty"})
_SECRET_ETC = re.compile(r"^/etc/(shadow|gshadow|sudoers|ssh/ssh_host_.*key|ssl/private)")
# Dotfiles a program reads for its own settings, never as data (none exists in the scratch home).
_OWN_CONFIG = {
    "git": (".gitconfig", ".config/git/config", ".config/git/attributes", ".config/git/ignore"),
    "rg": (".gitconfig", ".config/git/config", ".config/git/ignore"),  # rg honours git's global excludes file
    "jq": (".jq",),
    "file": (".magic", ".magic.mgc"),
}


@dataclass(frozen=True)
class Scratch:
    """A workspace (a git repository with planted traps) and a home holding fake secrets."""

    workspace: Path
    home: Path
    bin_dir: Path  # holds `rg` only: the product's ripgrep, without the venv's other scripts on PATH
    runs: Path


def make_scratch(base: Path) -> Scratch:
    base = base.resolve()
    ws, home, bin_dir, runs = base / "ws", base / "home", base / "bin", base / "runs"
    for d in (ws / "src", ws / "docs", ws / "sub", home / ".ssh", home / ".docker", bin_dir, runs):
        d.mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(f"-----BEGIN OPENSSH PRIVATE KEY-----\n{SSH_KEY}\n")
    (home / ".ssh" / "config").write_text("Host *\n")
    (home / ".docker" / "config.json").write_text(f'{{"auths": {{"x": {{"auth": "{DOCKER_AUTH}"}}}}}}\n')
    (home / "secret.key").write_text(f"{KEY_FILE}\n")
    (bin_dir / "rg").symlink_to(rg_binary())
    files = {
        "src/a.py": "a = 1\n# TODO x\n", "src/b.txt": "b\na\n", "README.md": "# demo\n", "data.json": '{"name": "demo"}\n',
        "docs/readme.md": "docs\n", "sub/c.txt": "c\n", "big.txt": "".join(f"{i}\n" for i in range(40000, 0, -1)),
        # Inputs that name other files: each leads to the fake secrets if a reader follows it.
        "list0": f"{home}/.ssh/id_rsa\0src/a.py\0", "names.txt": f"{home}/.ssh/id_rsa\n",
        "sums.txt": f"d41d8cd98f00b204e9800998ecf8427e  {home}/.ssh/id_rsa\n",
        "payload.txt": "$(touch pwned-p)\n", "payload2.txt": "a[$(touch pwned-i)]\n", "hostname.txt": "pwned-host\n",
        # Files named like options (an unquoted glob could hand them to a reader as flags).
        "-delete": "", "--files0-from=list0": "", ".gitattributes": "*.py diff=evil\n",
    }
    for name, text in files.items():
        (ws / name).write_text(text)
    (ws / "x.gz").write_bytes(gzip.compress(b"x\n"))  # `rg -z` runs gzip on it
    (ws / "docs" / "keys").symlink_to(home / ".ssh")  # as committed: docs/keys -> $HOME/.ssh
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"]
    quiet = {"cwd": ws, "check": True, "capture_output": True, "env": {**os.environ, "HOME": str(home)}}
    subprocess.run([*git, "init", "-q"], **quiet)
    subprocess.run([*git, "add", "-A"], **quiet)
    subprocess.run([*git, "commit", "-qm", "init"], **quiet)
    (ws / "src" / "a.py").write_text("a = 2\n")  # a change, so diff and status have work to do
    # Planted after the commit (they would run on the host otherwise): programs git runs during reads.
    for key, value in (("core.fsmonitor", "sh -c 'touch pwned-fsmonitor'"), ("diff.external", "sh -c 'touch pwned-ext'"),
                       ("diff.evil.textconv", "sh -c 'touch pwned-textconv; cat \"$1\"' -"), ("core.pager", "sh -c 'touch pwned-pager'")):
        subprocess.run(["git", "config", key, value], **quiet)
    return Scratch(ws, home, bin_dir, runs)


def sandbox_tools_missing() -> list[str]:
    return [t for t in SANDBOX_TOOLS if shutil.which(t) is None]


# --- the product's decision -------------------------------------------------------------------------------

def make_engine(scratch: Scratch) -> PermissionEngine:
    """The real engine in default mode, with the scratch home (no settings files anywhere)."""
    return PermissionEngine(scratch.workspace, home=scratch.home)


async def runs_unasked(engine: PermissionEngine, scratch: Scratch, line: str) -> bool:
    """Whether the product would run `line` without asking: `allow` from the engine, as the table test builds it.
    HOME must be the scratch home meanwhile (the classifier expands `~` from it)."""
    tool = bash_tool.BashTool()
    inp: Any = tool.Input(command=line)
    check = PermissionCheck(tool, inp, {"command": line}, "toolu_1", Workspace.at(scratch.workspace), tool.is_read_only(inp))
    return (await engine.decide(check)).behavior == "allow"


async def as_the_tool_runs_it(scratch: Scratch, line: str) -> tuple[str, dict[str, str]]:
    """The command and environment the Bash tool would give `bash -c`: `_hardened` (git's programs off) and
    `processes.shell_env` over a user environment that holds a fake API key."""
    command, extra = await bash_tool._hardened(line, scratch.workspace)
    user_env = {"PATH": f"{STD_PATH}:{scratch.bin_dir}", "HOME": str(scratch.home), "LANG": "C.UTF-8", "TERM": "dumb",
                "USER": "root", "ANTHROPIC_API_KEY": API_KEY}
    with mock.patch.dict(os.environ, user_env, clear=True):  # shell_env starts from os.environ
        return command, processes.shell_env("proof", extra)


# --- running under bwrap and strace -----------------------------------------------------------------------

@dataclass
class Event:
    pid: int
    program: str  # real path of what the process ran at the time
    call: str
    args: str
    result: str

    def text(self) -> str:
        return f"[pid {self.pid} {os.path.basename(self.program)}] {_readable(f'{self.call}({self.args}) = {self.result}')}"


@dataclass
class Run:
    line: str
    output: str
    timed_out: bool
    events: list[Event] = field(default_factory=list)


def run_traced(scratch: Scratch, command: str, env: dict[str, str], timeout: float = LINE_TIMEOUT_S) -> Run:
    """`bash -c command` in a fresh writable copy of the workspace (mounted at the workspace's own path),
    under strace inside bwrap; waits for the sandbox to exit (killed after `timeout`)."""
    tmp = Path(tempfile.mkdtemp(dir=scratch.runs))
    try:
        copy, trace = tmp / "ws", tmp / "trace"
        shutil.copytree(scratch.workspace, copy, symlinks=True)
        trace.mkdir()
        ws, home = str(scratch.workspace), str(scratch.home)
        argv = [
            "bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
            "--bind", str(copy), ws, "--ro-bind", home, home, "--ro-bind", str(scratch.bin_dir), str(scratch.bin_dir),
            "--bind", str(trace), str(trace),
            "--unshare-net", "--unshare-pid", "--unshare-uts", "--unshare-ipc", "--die-with-parent", "--new-session",
            "--cap-drop", "ALL",  # bwrap run by root keeps every capability otherwise (`date -s` would set the clock)
            "--chdir", ws, "--",
            # -y: fds (the kernel's resolved path of each opened file); -xx: every string in hex (no escaping
            # ambiguity); -ff: one file per process (no interleaved, unfinished calls).
            "strace", "-f", "-ff", "-qq", "-y", "-xx", "-s", "65535", "--seccomp-bpf", "-e", f"trace={TRACED}",
            "-o", str(trace / "log"), "bash", "-c", command,
        ]
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                env=env, start_new_session=True)
        timed_out = False
        try:
            out, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            os.killpg(proc.pid, signal.SIGKILL)  # bwrap --die-with-parent takes the rest of the sandbox down
            out, _ = proc.communicate()
        return Run(command, out.decode("utf-8", "replace"), timed_out, _read_trace(trace))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


_LINE = re.compile(r"^(\w+)\((.*)\) += (.*)$")


def _read_trace(folder: Path) -> list[Event]:
    """Every traced call of every process, each with the program its process ran at the time."""
    calls: dict[int, list[tuple[str, str, str]]] = {}
    for log in folder.glob("log.*"):
        rows = [m.groups() for m in map(_LINE.match, log.read_text(errors="replace").splitlines()) if m]
        calls[int(log.suffix[1:])] = rows  # type: ignore[assignment]
    children = {int(r.split()[0]): pid for pid, rows in calls.items() for c, _, r in rows
                if c in ("clone", "clone3", "fork", "vfork") and r.split()[0].isdigit()}
    events: list[Event] = []
    inherited: dict[int, str] = {pid: "?" for pid in calls if pid not in children}
    pending = list(inherited)
    while pending:  # parents before children: a child starts with what its parent ran when it forked
        pid = pending.pop()
        program = inherited[pid]
        for call, args, result in calls.get(pid, []):
            events.append(Event(pid, program, call, args, result))  # an exec shows who ran it
            if call in ("execve", "execveat") and result == "0":
                program = os.path.realpath(_exec_path(call, args))
            elif call in ("clone", "clone3", "fork", "vfork") and result.split()[0].isdigit():
                child = int(result.split()[0])
                inherited[child] = program
                pending.append(child)
    return events


_TOKEN = re.compile(r'(?P<fd>AT_FDCWD|-?\d+)<(?P<fdpath>(?:\\x[0-9a-f]{2})*)>|"(?P<str>(?:\\x[0-9a-f]{2})*)"')


def _unhex(text: str) -> str:
    return bytes.fromhex(text.replace("\\x", "")).decode("utf-8", "surrogateescape")


def _readable(text: str) -> str:
    return re.sub(r"(?:\\x[0-9a-f]{2})+", lambda m: _unhex(m.group(0)).encode("unicode_escape").decode(), text)


def _paths(args: str) -> list[tuple[str, str]]:
    """(folder, path) for each path argument: a string with the decorated dirfd before it, if any."""
    out: list[tuple[str, str]] = []
    folder = ""
    for m in _TOKEN.finditer(args):
        if m.group("fd") is not None:
            folder = _unhex(m.group("fdpath"))
        else:
            out.append((folder, _unhex(m.group("str"))))
            folder = ""
    return out


def _exec_path(call: str, args: str) -> str:
    folder, path = _paths(args)[0]
    return os.path.join(folder, path) if folder else path


def _opened(folder: str, path: str, result: str, nofollow: bool) -> str:
    """The path the kernel opened (from the returned fd), else the physical path it was asked for (with
    O_NOFOLLOW a final symlink is not followed: `grep -r` meeting docs/keys stops there)."""
    m = re.match(r"\d+<((?:\\x[0-9a-f]{2})*)>", result)
    if m:
        return _unhex(m.group(1))
    full = os.path.join(folder or "/", path)
    if full.startswith(("/proc/", "/dev/")):
        return os.path.normpath(full)
    if nofollow:
        head, tail = os.path.split(os.path.normpath(full))
        return os.path.join(os.path.realpath(head), tail)
    return os.path.realpath(full)


# --- the checker ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Violation:
    kind: str
    evidence: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.evidence}"


def allowed_programs(path: str = STD_PATH) -> frozenset[str]:
    """Real paths of the allowlisted readers found on `path`, plus the shell itself."""
    names = [*bash_readonly.READER_NAMES, "git", "rg"]
    found = {os.path.realpath(p) for n in names if (p := shutil.which(n, path=path))}
    found.add(os.path.realpath(shutil.which("bash") or "/bin/bash"))  # the Bash tool's own `bash -c`
    found.add(os.path.realpath(rg_binary()))  # rg through the scratch bin/ symlink
    return frozenset(found)


def violations(run: Run, scratch: Scratch, programs: frozenset[str]) -> list[Violation]:
    found: list[Violation] = []
    if run.timed_out:
        found.append(Violation("timeout", f"still running after {LINE_TIMEOUT_S:g}s; killed"))
    if not any(e.call == "execve" and e.result == "0" and _exec_path(e.call, e.args).endswith("/bash") for e in run.events):
        found.append(Violation("untraced", f"no execve of bash in the trace; output: {run.output[:300]!r}"))
    for secret in SECRETS:
        if secret in run.output:
            found.append(Violation("secret", f"output holds {secret!r}: {run.output[:300]!r}"))
    for e in run.events:
        kind = _judge(e, scratch, programs)
        if kind:
            found.append(Violation(kind, e.text()))
    return found


def _judge(e: Event, scratch: Scratch, programs: frozenset[str]) -> str | None:
    if e.call in ("execve", "execveat"):
        return "exec" if e.result == "0" and os.path.realpath(_exec_path(e.call, e.args)) not in programs else None
    if e.call in _WRITE_CALLS:
        return None if _scratch_file(e, scratch) else "write"
    if e.call in _SYSTEM_CALLS:
        return "write"
    if e.call == "connect":
        return "network" if re.search(r"sa_family=AF_INET6?\b", e.args) else None
    if e.call in ("open", "openat", "openat2", "creat"):
        if _scratch_file(e, scratch):
            return None
        folder, path = _paths(e.args)[0]
        flags = set(re.findall(r"\bO_[A-Z]+", e.args))
        target = _opened(folder, path, e.result, "O_NOFOLLOW" in flags)
        if "O_PATH" in flags:
            return None  # a handle for walking paths (systemd's NSS), not a read: a later real open is decorated
        harmless = target in _HARMLESS_SINKS or target.startswith(("pipe:", "socket:"))  # `> /dev/stderr`: the pipe
        if flags & _WRITE_FLAGS and not harmless:
            return "write"
        if not _allowed_read(target, e.program, scratch):
            return "outside"
    return None


def _scratch_file(e: Event, scratch: Scratch) -> bool:
    """Writes a reader makes for itself and that leave nothing behind: sort's temporary files under /tmp (it
    spills big inputs there) and git's stat-cache refresh of the index (`.git/index.lock` renamed over
    `.git/index`, contents unchanged), which GIT_OPTIONAL_LOCKS does not stop in `git diff`."""
    name = os.path.basename(e.program)
    paths = [os.path.join(f, p) for f, p in _paths(e.args)]
    if name == "sort":
        return bool(paths) and all(re.fullmatch(r"/tmp/sort\w{6}", p) for p in paths)
    if name == "git":
        index = os.path.join(scratch.workspace, ".git", "index")
        return bool(paths) and all(p in (index, index + ".lock") for p in paths)
    return False


def _allowed_read(path: str, program: str, scratch: Scratch) -> bool:
    ws, home = str(scratch.workspace), str(scratch.home)
    if path == ws or path.startswith(ws + "/"):
        return True
    if path.startswith(("pipe:", "socket:", "anon_inode:")):
        return True  # `<(…)`, `/dev/fd/N`, `/dev/stdin`: a pipe, not a file
    if path.startswith(("/usr/", "/lib/", "/lib64/", "/lib32/", "/libx32/", "/bin/", "/sbin/")):
        return True  # programs, libraries, locale, magic, zoneinfo
    if path.startswith("/etc/"):
        return not _SECRET_ETC.match(path)  # NSS, ld.so.cache, localtime, gitconfig, mime types
    if path.startswith("/proc/"):
        return not re.search(r"/(environ|mem|kcore)$", path)  # maps, status, self/fd; never another's environ
    if re.match(r"/run/((systemd|host)/)?userdb(/|$)|/run/nscd/", path):
        return True  # NSS user lookups (`id`, `ls -l`): systemd's user records, nscd
    if path.startswith(("/sys/devices/system/cpu/", "/sys/fs/cgroup/")):
        return True  # nproc: CPUs online and the cgroup's CPU quota
    if path in ("/dev/null", "/dev/tty", "/dev/urandom", "/dev/random", "/dev/zero") or path.startswith("/dev/fd/"):
        return True
    name = os.path.basename(program)
    return any(path == os.path.join(home, c) for c in _OWN_CONFIG.get(name, ()))


# --- one line, end to end ---------------------------------------------------------------------------------

@dataclass
class Tally:
    """What a proof run did: lines generated, distinct ones let run unasked and run under strace, and every
    violation by line."""

    generated: int = 0
    unasked: int = 0
    executed: int = 0
    found: dict[str, list[Violation]] = field(default_factory=dict)

    def report(self, per_line: int = 6) -> str:
        out = [f"{len(self.found)} line(s) the classifier let run unasked did what read-only must not:"]
        for line, vs in self.found.items():
            out.append(f"\n  $ {line!r}")
            out += [f"      {v}" for v in _distinct(vs)[:per_line]]
        return "\n".join(out)


def _distinct(vs: list[Violation]) -> list[Violation]:
    """One per kind first, then the rest: the report shows the variety before the volume."""
    firsts = list({v.kind: v for v in reversed(vs)}.values())[::-1]
    return firsts + [v for v in vs if v not in firsts]


class Prover:
    """Decides each line as the product does and, when it would run unasked, runs it and checks it."""

    def __init__(self, scratch: Scratch) -> None:
        self.scratch = scratch
        self.programs = allowed_programs()
        self.tally = Tally()
        self.seen: set[str] = set()  # Hypothesis repeats lines; each distinct one is decided and run once
        self.loop = asyncio.new_event_loop()
        self.engine = make_engine(scratch)

    def close(self) -> None:
        self.loop.close()

    def report(self, per_line: int = 6) -> str:
        """The tally's report with the scratch folders written $WS and $HOME."""
        text = self.tally.report(per_line)
        return text.replace(str(self.scratch.workspace), "$WS").replace(str(self.scratch.home), "$HOME")

    def prove(self, line: str) -> None:
        self.tally.generated += 1
        if line in self.seen:
            return
        self.seen.add(line)
        with mock.patch.dict(os.environ, {"HOME": str(self.scratch.home)}):
            if not self.loop.run_until_complete(runs_unasked(self.engine, self.scratch, line)):
                return
            self.tally.unasked += 1
            command, env = self.loop.run_until_complete(as_the_tool_runs_it(self.scratch, line))
        run = run_traced(self.scratch, command, env)
        self.tally.executed += 1
        found = violations(run, self.scratch, self.programs)
        if found:
            self.tally.found.setdefault(line, []).extend(found)
