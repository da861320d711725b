"""Mutation testing of the core modules with mutmut (prints figures; asserts nothing). See docs/testing/mutation.md.

Each target runs on its own, with the in-process tests that exercise it (the table TARGETS below): a mutant is
seen only by tests that import the mutated copy, never by a `tui-agent` subprocess. A target's run lives in
mutants/modules/<name>/ (gitignored): `tui_agent` and `tests` linked from the repository, a pyproject.toml whose
[tool.mutmut] is the repository's with the target's files and tests, and mutmut's own ./mutants in it. A second
run there reuses mutmut's cache (only changed functions and new tests run again); --fresh starts over.

Per file it prints: mutants, killed, survived, no tests (no selected test reaches the function), timeout,
skipped (`# pragma: no mutate`), unchecked (a run stopped by --time-limit), then every survivor as its mutant name and a one-line diff, marked when it is a listed equivalent
(bench/mutation_equivalents.txt: `<mutant name> | <why it cannot be told apart>`).

    python bench/mutation.py                                          # every target, one after another
    python bench/mutation.py --module tui_agent/core/history.py       # one target (or one file in a target folder)
    python bench/mutation.py --module tui_agent/core/permissions/mcp_rules.py --max-children 2
    python bench/mutation.py --report                                 # figures of the last runs, running nothing
    python bench/mutation.py --equivalents                            # the equivalents list, with their diffs
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
RUNS = REPO / "mutants" / "modules"
EQUIVALENTS = REPO / "bench" / "mutation_equivalents.txt"
INSTALL = "mutmut is not installed: .venv/bin/pip install -e '.[mutation]'  (or: .venv/bin/pip install mutmut==3.8.1)"

# target -> the in-process tests that exercise it (UI tests drive the real app through Pilot, in-process too).
TARGETS: dict[str, list[str]] = {
    "tui_agent/core/history.py": [
        "tests/core/test_history_repair.py", "tests/core/test_history_rules_named.py", "tests/core/test_loop.py",
        "tests/core/test_results.py", "tests/core/test_interrupts.py", "tests/core/test_stop_reasons.py",
    ],
    "tui_agent/tools/bash_readonly.py": [
        "tests/tools/test_bash_readonly.py", "tests/tools/test_destructive_warning.py",
        "tests/tools/test_cd_moves_relative_paths.py", "tests/core/permissions/test_read_only_shell_table.py",
        "tests/core/permissions/test_everyday_read_only.py", "tests/core/test_read_only_shell.py",
    ],
    "tui_agent/core/permissions/": [
        # not tests/core/test_access_gate.py: it reads core's source, which mutmut's trampolines rewrite
        "tests/core/permissions", "tests/core/test_trust.py", "tests/core/test_hook_events.py",
        "tests/tools/test_web_fetch.py", "tests/ui/test_commands_on_the_real_app.py",
    ],
    "tui_agent/core/context/": [
        "tests/core/context", "tests/core/test_model_limits.py", "tests/ui/test_commands_on_the_real_app.py",
    ],
    "tui_agent/core/session/": [
        "tests/core/session", "tests/core/context/test_auto_compaction.py", "tests/core/context/test_manual_and_hooks.py",
        "tests/core/test_history_repair.py", "tests/core/test_bang_output_whole.py",
        "tests/tools/test_non_utf8_paths.py", "tests/ui/test_commands_on_the_real_app.py",
        # a class of hypothesis tests: run again in mutmut's process, it fails hypothesis's differing_executors check
        "--deselect=tests/core/session/test_malformed_sessions.py::TestRandomDamage",
    ],
    "tui_agent/core/mcp/": [
        "tests/mcp", "--ignore=tests/mcp/test_mcp_headless.py", "tests/core/test_partial_output.py",
    ],
}

# mutmut's exit codes as it classifies them (mutmut.stats.status_by_exit_code), folded into our columns.
COLUMNS = ("mutants", "killed", "survived", "no tests", "timeout", "skipped", "unchecked")


@dataclass
class FileResult:
    path: str
    statuses: dict[str, str] = field(default_factory=dict)  # mutant name -> mutmut's status

    def count(self, column: str) -> int:
        if column == "mutants":
            return len(self.statuses)
        wanted = {"killed": ("killed", "caught by type check"), "survived": ("survived",),
                  "timeout": ("timeout",), "skipped": ("skipped",), "no tests": ("no tests",),
                  "unchecked": ("not checked",)}.get(column)
        return sum(1 for s in self.statuses.values() if s in wanted) if wanted else 0

    def others(self) -> dict[str, str]:
        """Mutants in none of the columns (suspicious, segfault, interrupted)."""
        known = {"killed", "caught by type check", "survived", "timeout", "skipped", "no tests", "not checked"}
        return {k: v for k, v in self.statuses.items() if v not in known}


def target_of(module: str) -> str:
    """The target whose test selection applies to `module` (a target, or a file or folder inside one)."""
    norm = module.strip().rstrip("/")
    for target in TARGETS:
        base = target.rstrip("/")
        if norm == base or norm.startswith(base + "/"):
            return target
    raise SystemExit(f"{module} is in no target; the targets are: {', '.join(TARGETS)}")


def only_mutate(module: str) -> list[str]:
    norm = module.strip().rstrip("/")
    return [norm] if norm.endswith(".py") else [norm + "/*"]


def run_dir(module: str) -> Path:
    return RUNS / re.sub(r"[^A-Za-z0-9]+", "_", module.strip().rstrip("/").removeprefix("tui_agent/"))


def timing_file(module: str) -> Path:
    return run_dir(module) / "wall_time.json"


def past_runs(module: str) -> list[dict[str, Any]]:
    try:
        return list(json.loads(timing_file(module).read_text())["runs"])
    except (OSError, ValueError, KeyError, TypeError):
        return []


def toml_list(values: list[str]) -> str:
    return "[" + ", ".join(json.dumps(v) for v in values) + "]"


def run_pyproject(module: str) -> str:
    """The repository's pyproject.toml with its [tool.mutmut] narrowed to `module` and its tests."""
    text = (REPO / "pyproject.toml").read_text()
    repo_cli_args = tomllib.loads(text).get("tool", {}).get("mutmut", {}).get("pytest_add_cli_args", [])
    start = text.find("\n[tool.mutmut]")
    if start < 0:
        raise SystemExit("pyproject.toml has no [tool.mutmut] section")
    following = re.search(r"^\[", text[start + 2:], flags=re.MULTILINE)
    rest = text[start + 2 + following.start():] if following else ""
    section = "\n".join([
        "[tool.mutmut]",
        'source_paths = ["tui_agent"]',
        f"only_mutate = {toml_list(only_mutate(module))}",
        f"pytest_add_cli_args_test_selection = {toml_list(TARGETS[target_of(module)])}",
        # the repository's own: `-n 0` keeps pytest in mutmut's process when addopts asks for xdist workers
        f"pytest_add_cli_args = {toml_list(repo_cli_args)}",
        # The run folder is inside an ignored folder of the repository: git has nothing to say about it.
        "use_git_change_detection = false",
    ])
    return text[:start] + "\n\n" + rest + ("\n" if rest else "") + section + "\n"


def prepare(module: str, fresh: bool) -> Path:
    where = run_dir(module)
    if fresh and where.exists():
        shutil.rmtree(where)
    where.mkdir(parents=True, exist_ok=True)
    for name in ("tui_agent", "tests"):
        link = where / name
        if not link.is_symlink():
            link.symlink_to(REPO / name, target_is_directory=True)
    (where / "pyproject.toml").write_text(run_pyproject(module))
    return where


def mutmut_command() -> list[str]:
    script = Path(sys.executable).with_name("mutmut")
    return [str(script)] if script.exists() else [sys.executable, "-c", "from mutmut.__main__ import cli; cli()"]


def stop(proc: subprocess.Popen[bytes]) -> None:
    """Ctrl-C first (mutmut then stops its workers itself); a test run in mutmut's process (the app under
    Pilot) may have left SIGINT ignored, so then its whole process group ends. Each result is saved as it
    comes, so nothing checked is lost either way."""
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def run_module(module: str, max_children: int, fresh: bool, mutant_names: list[str], limit: float | None) -> float:
    """Run mutmut for one module; its output goes to <run dir>/mutmut.log. Returns the wall time (s).
    After `limit` seconds mutmut is interrupted as Ctrl-C would: it keeps what it checked, the rest stays
    "not checked" (and a later run goes on from there)."""
    where = prepare(module, fresh)
    log = where / "mutmut.log"
    print(f"== {module}: mutmut run in {where.relative_to(REPO)} (log: {log.relative_to(REPO)})", flush=True)
    started = time.monotonic()
    stopped = False
    with log.open("w") as out:
        proc = subprocess.Popen([*mutmut_command(), "run", "--max-children", str(max_children), *mutant_names],
                                cwd=where, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True)
        try:
            proc.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            stopped = True
            stop(proc)
    took = time.monotonic() - started
    if proc.returncode != 0 and not stopped:
        tail = log.read_text(errors="replace").splitlines()[-15:]
        print(f"   mutmut exited {proc.returncode} after {took:.0f} s; the end of its log:", *tail, sep="\n   ")
    # Every run since the last --fresh: a module may be run in parts (some mutants first, the rest later).
    runs = past_runs(module) if not fresh else []
    runs.append({"seconds": round(took, 1), "finished": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                 "exit": proc.returncode, "stopped_at_time_limit": stopped, "mutants": mutant_names})
    timing_file(module).write_text(json.dumps({"runs": runs}, indent=1))
    return took


def read_results(module: str) -> list[FileResult]:
    """Each mutated file's mutants and their status: mutmut's, or for a mutant it has not checked since its
    results were reset (a changed test selection resets them all; --mutant re-tests only some), the last
    status it had while its function was unchanged (known.json). Tests are only ever added between runs, so
    a kept "killed" stays true; a kept "survived" is the cautious answer."""
    from mutmut.stats import status_by_exit_code

    base = run_dir(module) / "mutants"
    known_file = run_dir(module) / "known.json"
    known: dict[str, list[str]] = json.loads(known_file.read_text()) if known_file.exists() else {}
    results = []
    for meta in sorted(base.glob("tui_agent/**/*.py.meta")):
        path = str(meta.relative_to(base))[: -len(".meta")]
        if not any(Path(path).match(p) or path == p or path.startswith(p.rstrip("*")) for p in only_mutate(module)):
            continue
        data = json.loads(meta.read_text())
        hashes = data.get("hash_by_function_name", {})
        statuses = {}
        for name, code in data["exit_code_by_key"].items():
            function_hash = hashes.get(name.rpartition(".")[2].partition("__mutmut_")[0], "")
            status = status_by_exit_code[code]
            if status != "not checked":
                known[name] = [status, function_hash]
            elif name in known and known[name][1] == function_hash:
                status = known[name][0]
            statuses[name] = status
        if statuses:
            results.append(FileResult(path, statuses))
    if base.exists():
        known_file.write_text(json.dumps(known, indent=0))
    return results


def one_line_diff(module: str, mutant: str, path: str) -> str:
    """The mutant as `- old line  => + new line` (the changed lines of mutmut's diff, joined)."""
    from mutmut.mutation.diff_apply import get_diff_for_mutant

    here = os.getcwd()
    os.chdir(run_dir(module))
    try:
        diff = get_diff_for_mutant(mutant, path=path)
    except (OSError, ValueError, KeyError, SyntaxError) as e:  # a stale index or a vanished function: say so
        return f"(no diff: {e})"
    finally:
        os.chdir(here)
    minus = [ln[1:].strip() for ln in diff.splitlines() if ln.startswith("-") and not ln.startswith("---")]
    plus = [ln[1:].strip() for ln in diff.splitlines() if ln.startswith("+") and not ln.startswith("+++")]
    return f"- {' / '.join(minus)}  =>  + {' / '.join(plus)}"


def load_equivalents() -> dict[str, str]:
    if not EQUIVALENTS.exists():
        return {}
    out = {}
    for line in EQUIVALENTS.read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#") and "|" in line:
            name, why = line.split("|", 1)
            out[name.strip()] = why.strip()
    return out


def report(module: str) -> dict[str, int]:
    results = read_results(module)
    equivalents = load_equivalents()
    totals = dict.fromkeys((*COLUMNS, "equivalent"), 0)
    runs = past_runs(module)
    if runs:
        stops = sum(1 for r in runs if r["stopped_at_time_limit"])
        note = f" in {len(runs)} run(s)" + (f", {stops} stopped at the time limit" if stops else "")
        print(f"\n{module}  (wall time {sum(r['seconds'] for r in runs):.0f} s{note}; last {runs[-1]['finished']})")
    else:
        print(f"\n{module}")
    if not results:
        print("   no results: run it first")
        return totals
    print(f"   {'file':<34}" + "".join(f"{c:>11}" for c in (*COLUMNS, "equivalent")))
    for r in results:
        eq = sum(1 for n, s in r.statuses.items() if s == "survived" and n in equivalents)
        print(f"   {r.path.removeprefix('tui_agent/'):<34}" + "".join(f"{r.count(c):>11}" for c in COLUMNS) + f"{eq:>11}")
        for c in COLUMNS:
            totals[c] += r.count(c)
        totals["equivalent"] += eq
    if len(results) > 1:
        print(f"   {'total':<34}" + "".join(f"{totals[c]:>11}" for c in (*COLUMNS, "equivalent")))
    for r in results:
        for name, status in sorted(r.others().items()):
            print(f"   ! {name}: {status}")
        survivors = sorted(n for n, s in r.statuses.items() if s == "survived")
        for name in survivors:
            mark = f"   [equivalent: {equivalents[name]}]" if name in equivalents else ""
            print(f"   survived {name}: {one_line_diff(module, name, r.path)}{mark}")
    for r in results:
        for name, status in r.statuses.items():
            if name in equivalents and status != "survived":
                print(f"   ! listed as equivalent but now {status}: {name}")
    return totals


def print_equivalents() -> None:
    equivalents = load_equivalents()
    print(f"{len(equivalents)} mutants listed as equivalent in {EQUIVALENTS.relative_to(REPO)}:")
    for name, why in equivalents.items():
        module = next((t for t in TARGETS if name.startswith(t.rstrip("/").removesuffix(".py").replace("/", "."))), None)
        path = None
        if module:
            prefix = name.split(".x_")[0].split(".xǁ")[0]
            path = prefix.replace(".", "/") + ".py"
            if not (REPO / path).exists():
                path = prefix.replace(".", "/") + "/__init__.py"
        diff = one_line_diff(module, name, path) if module and (run_dir(module) / "mutants").exists() else ""
        print(f"  {name}\n      why: {why}" + (f"\n      {diff}" if diff else ""))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--module", action="append", help="a target, or a file or folder in one (default: all targets)")
    parser.add_argument("--max-children", type=int, default=2, help="mutants tested at once (the machine has 2 cores)")
    parser.add_argument("--fresh", action="store_true", help="forget the previous run of the module(s)")
    parser.add_argument("--mutant", action="append", default=[], help="re-test these mutants only (names or globs)")
    parser.add_argument("--time-limit", type=float, default=None, help="stop each module's run after this many seconds")
    parser.add_argument("--report", action="store_true", help="print the figures of the last run(s), run nothing")
    parser.add_argument("--equivalents", action="store_true", help="print the equivalents list and stop")
    args = parser.parse_args()
    if importlib.util.find_spec("mutmut") is None:
        print(INSTALL, file=sys.stderr)
        return 2
    if args.equivalents:
        print_equivalents()
        return 0
    modules = args.module or list(TARGETS)
    for module in modules:
        target_of(module)  # fail before a long run on a typo
    for module in modules if not args.report else []:
        run_module(module, args.max_children, args.fresh, args.mutant, args.time_limit)
        report(module)
    if args.report or len(modules) > 1:
        print("\n===== summary =====")
        grand = dict.fromkeys((*COLUMNS, "equivalent"), 0)
        for module in modules:
            for k, v in report(module).items():
                grand[k] += v
        print("\nall: " + ", ".join(f"{k} {v}" for k, v in grand.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
