"""Launch -> first frame painted, alone and many times: the first figure of bench_tui.py, measured the
same way (a real pseudo-terminal at 120x40, the painted screen read back through pyte, the same
environment and scripted server) but without the stream and ESC parts, so it takes seconds.

    python bench/bench_first_frame.py                     # the installed tui-agent, 9 launches
    python bench/bench_first_frame.py --runs 15 tui-agent claude    # both, 15 launches each
    python bench/bench_first_frame.py tui-agent --cmd "python bare_app.py"   # beside any other program

One warm launch of each first writes the bytecode caches (a person's second start); then the programs
take turns, each launch timed from spawn to the first read after which the screen shows the marker
(the `--cmd` programs: `--marker`), and closed. Prints the median, the range and every launch.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from bench_tui import ModelProcess, Program, bench_env, programs
from pty_terminal import PtyTerminal, contains


def launches(chosen: list[Program], runs: int) -> dict[str, list[float]]:
    """Launch each program `runs` times after one warm launch each, taking turns (so a busy moment of
    the machine falls on all of them alike); the times to the first frame, by program."""
    root = Path(tempfile.mkdtemp(prefix="bench-first-frame-"))
    server = ModelProcess()
    times: dict[str, list[float]] = {p.name: [] for p in chosen}
    try:
        places = {}
        for i, program in enumerate(chosen):
            home, cwd = root / f"home{i}", root / f"project{i}"
            home.mkdir()
            cwd.mkdir()
            program.setup(home, cwd)
            places[program.name] = (bench_env(root, home, server.url), cwd)
        for n in range(runs + 1):  # the first round warms the caches
            for program in chosen:
                env, cwd = places[program.name]
                term = PtyTerminal(program.argv, env, str(cwd))
                try:
                    shown = term.wait_for(contains(program.first_frame), 30)
                    if shown is None:
                        print(f"  [{program.name}] no first frame; the screen:\n{term.text().rstrip()}", file=sys.stderr)
                    elif n:
                        times[program.name].append(shown - term.started)
                finally:
                    term.close()
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("which", nargs="*", help="tui-agent and/or claude (default: tui-agent)")
    parser.add_argument("--runs", type=int, default=9, help="measured launches (after one warm launch)")
    parser.add_argument("--cmd", action="append", default=[], help="also measure this command (with --marker); repeatable")
    parser.add_argument("--marker", default="esc interrupt", help="text on the first frame of the --cmd programs")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    chosen = programs(args.which or ([] if args.cmd else ["tui-agent"]), None)
    chosen += [Program(cmd, shlex.split(cmd), args.marker, lambda home, cwd: None) for cmd in args.cmd]
    for name, times in launches(chosen, args.runs).items():
        if not times:
            print(f"{name}: no first frame")
            continue
        print(f"{name}: first frame median {statistics.median(times):.3f} s, "
              f"range {min(times):.3f}-{max(times):.3f} s over {len(times)} launches "
              f"[{' '.join(f'{t:.3f}' for t in times)}]")


if __name__ == "__main__":
    main()
