"""How long the README's test command takes on this machine, the way CI meets it: a fresh clone of the committed
tree, then the README's test command step by step: a new venv installed from the lock, then the tests (on every
core, as `pyproject.toml`'s addopts say).

    python3 bench/bench_suite.py                # HEAD, in a temporary clone
    python3 bench/bench_suite.py --keep         # keep the clone (its path is printed)
    python3 bench/bench_suite.py --workers 3    # the tests with -n 3 instead of the default
    python3 bench/bench_suite.py --cold         # the install with empty pip and uv caches

Prints the install time, the test time, the whole command's time, the CPU time the tests used (all processes),
the count of tests and the slowest ones. Run it on a quiet machine: `cat /proc/loadavg` first. A virtual machine
is quiet only if its host is: the CPU time the host gave to others while the tests ran (steal) is printed, and the
same fixed piece of Python work is timed before the install and after the tests (one core): when it takes longer
than usual, the whole run was slowed by the host, not by the code (here it ranged from 0.11 s to 0.20 s).
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _cpu_fields() -> list[int]:
    """user nice system idle iowait irq softirq steal ... of all cores, in clock ticks."""
    return [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]


def _cpu() -> float:
    """The machine's busy CPU seconds so far: the tests' processes include the warm-start zygotes' children
    (tests/warm_start), which are no one's waited-for children, so rusage would miss them."""
    fields = _cpu_fields()
    busy = sum(fields[:7]) - fields[3] - fields[4]  # all but idle, iowait and steal (the host's other guests)
    return busy / os.sysconf("SC_CLK_TCK")


def _steal() -> float:
    """CPU seconds the host has given to others while this machine wanted them (0 outside a virtual machine)."""
    fields = _cpu_fields()
    return (fields[7] if len(fields) > 7 else 0) / os.sysconf("SC_CLK_TCK")


def _speed_probe() -> float:
    """Seconds of one core for the same fixed work every time (compiling and running some Python), the median of
    five tries (a virtual machine's speed swings from one second to the next): the machine's speed now, so that
    runs on one machine at different moments can be compared."""
    source = "\n".join(f"def f{i}(x):\n    return sorted(str(x * k) for k in range({i % 50 + 1}))" for i in range(400))
    tries = []
    for _ in range(5):
        started = time.process_time()
        for _ in range(6):
            namespace: dict[str, object] = {}
            exec(compile(source, "probe", "exec"), namespace)
            for i in range(400):
                namespace[f"f{i}"](i)  # type: ignore[operator]
        tries.append(time.process_time() - started)
    return sorted(tries)[2]


def _step(cmd: list[str], cwd: Path, log: Path) -> tuple[float, float, str]:
    wall, cpu = time.monotonic(), _cpu()
    with log.open("w") as out:
        proc = subprocess.run(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"})
    text = log.read_text(errors="replace")
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd[:4])}... failed ({proc.returncode}); the log: {log}\n{text[-3000:]}")
    return time.monotonic() - wall, _cpu() - cpu, text


def _readme_test_command(clone: Path) -> list[list[str]]:
    """The README's test command, step by step (its `&&`-joined commands): the install steps, then pytest."""
    readme = (clone / "README.md").read_text()
    line = next(text for text in readme.splitlines() if text.startswith("python3 -m venv .venv && "))
    return [shlex.split(part) for part in line.split(" && ")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", action="store_true", help="keep the clone")
    parser.add_argument("--workers", help="pass -n WORKERS to pytest")
    parser.add_argument("--cold", action="store_true", help="install with empty pip and uv caches (a fresh machine's)")
    args = parser.parse_args()
    load = Path("/proc/loadavg").read_text().split()[0] if Path("/proc/loadavg").exists() else "?"
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout.strip()
    root = Path(tempfile.mkdtemp(prefix="bench-suite-"))
    clone = root / "clone"
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True)
    print(f"commit {head}, {os.cpu_count()} cores, load {load} at start, clone {clone}")
    if args.cold:
        os.environ.update(UV_CACHE_DIR=str(root / "uv-cache"), PIP_NO_CACHE_DIR="1")
    probe_before = _speed_probe()
    venv_py = str(clone / ".venv" / "bin" / "python")
    steps = _readme_test_command(clone)
    install_wall = install_cpu = 0.0
    for number, step in enumerate(steps[:-1]):
        wall, cpu, _ = _step(step, clone, root / f"install-{number}.log")
        install_wall, install_cpu = install_wall + wall, install_cpu + cpu
    assert steps[-1] == [".venv/bin/python", "-m", "pytest"], steps[-1]
    pytest = [venv_py, "-m", "pytest", "--durations=15"] + (["-n", args.workers] if args.workers else [])
    steal = _steal()
    test_wall, test_cpu, text = _step(pytest, clone, root / "pytest.log")
    steal = _steal() - steal
    probe_after = _speed_probe()
    summary = re.findall(r"^=*\s*(\d+ (?:passed|failed).*?)\s*=*$", text, re.MULTILINE)
    print(f"install       {install_wall:6.1f} s wall  {install_cpu:6.1f} s CPU")
    print(f"tests         {test_wall:6.1f} s wall  {test_cpu:6.1f} s CPU   ({summary[-1] if summary else 'no summary'})")
    print(f"whole command {install_wall + test_wall:6.1f} s wall  ({(install_wall + test_wall) / 60:.2f} min)")
    print(f"machine       speed probe {probe_before:.3f} s before, {probe_after:.3f} s after; "
          f"{steal:.1f} s of CPU stolen by the host during the tests")
    slow = re.findall(r"^(\d+\.\d+)s (call|setup|teardown)\s+(\S+)$", text, re.MULTILINE)
    print("slowest:")
    for seconds, phase, node in slow[:10]:
        print(f"  {float(seconds):6.2f} s {phase:8s} {node}")
    if args.keep:
        print(f"kept {root}")
    else:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
