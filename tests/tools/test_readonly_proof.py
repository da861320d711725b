"""A runtime proof of the read-only classifier (issue 23): every shell line the product would run without
asking (the real Bash tool and permission engine, default mode) is run in bwrap under `strace -f`, and must
execute only allowlisted readers, write nothing, open nothing outside the workspace and print no secret.

The lines come from a grammar (readonly_proof_grammar.py) driven by Hypothesis, derandomized so that CI
tries the same lines every run; the issue's reproduced attacks go first as explicit examples. A longer run:
`python bench/readonly_proof.py N`. The checker itself is tested below on lines known to be bad, fed to it
without the classifier in front, so that it cannot pass by seeing nothing."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, Phase, example, given, settings

from .readonly_proof_grammar import known_attacks, shell_lines
from .readonly_proof_support import (
    API_KEY,
    STD_PATH,
    Prover,
    Scratch,
    Violation,
    allowed_programs,
    as_the_tool_runs_it,
    make_scratch,
    run_traced,
    sandbox_tools_missing,
    violations,
)

pytestmark = pytest.mark.skipif(
    bool(sandbox_tools_missing()),
    reason=f"needs {' and '.join(sandbox_tools_missing())} (`apt-get install bubblewrap strace`; .ci/run installs them)",
)

# ~300 lines take 10-30 s on 2 busy cores: most are decided in a millisecond and never run.
MAX_EXAMPLES = 300


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Scratch:
    return make_scratch(tmp_path_factory.mktemp("proof"))


def _fingerprint(root: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(root)): (p.lstat().st_size, p.lstat().st_mtime_ns) for p in root.rglob("*")}


def test_every_line_the_classifier_runs_unasked_only_reads_the_workspace(scratch: Scratch) -> None:
    prover = Prover(scratch)
    before = _fingerprint(scratch.workspace)
    started = time.monotonic()

    @settings(max_examples=MAX_EXAMPLES, derandomize=True, database=None, deadline=None,
              phases=[Phase.explicit, Phase.generate],  # no shrinking: every violating line is collected instead
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
    @given(shell_lines(scratch))
    def prove(line: str) -> None:
        prover.prove(line)

    for line in known_attacks(scratch):
        prove = example(line)(prove)
    try:
        prove()
    finally:
        prover.close()
    t = prover.tally
    print(f"\nreadonly proof: {t.generated} lines ({len(prover.seen)} distinct), {t.unasked} run unasked, "
          f"{t.executed} run under strace, "
          f"{len(t.found)} violating, {time.monotonic() - started:.1f}s")
    assert t.executed > 0, "no line reached execution: the proof proved nothing"
    assert _fingerprint(scratch.workspace) == before, "the original workspace changed: something ran outside the sandbox"
    assert not t.found, prover.report()


# --- the checker catches what it must, without the classifier in front -------------------------------------

def _raw(scratch: Scratch, line: str, timeout: float = 20.0, env: dict[str, str] | None = None) -> list[Violation]:
    """Run `line` as the tool would (hardened git, its environment), but whatever the classifier says."""
    with mock.patch.dict(os.environ, {"HOME": str(scratch.home)}):  # the classifier expands `~` from it
        command, tool_env = asyncio.run(as_the_tool_runs_it(scratch, line))
    run = run_traced(scratch, command, env or tool_env, timeout)
    return violations(run, scratch, allowed_programs())


def _kinds(found: list[Violation]) -> set[str]:
    return {v.kind for v in found}


def _evidence(found: list[Violation], kind: str) -> str:
    return "\n".join(v.evidence for v in found if v.kind == kind)


@pytest.mark.parametrize("line", [
    "cat src/a.py | wc -l", "ls -la docs", "find . -name '*.py'", "grep -rn TODO src", "rg -n TODO src",
    "jq .name data.json", "head -n 2 big.txt", "diff src/a.py src/b.txt", "git status", "git log --oneline -3",
    "sort -S 1 big.txt | head -1", "cat < src/a.py 2>/dev/null", "file src/a.py", "du -sh src", "git rev-parse HEAD",
])
def test_the_checker_passes_everyday_read_only_lines(scratch: Scratch, line: str) -> None:
    # What it excepts (system files, sort's spill files, git's index refresh) is enough for a plain reader.
    assert _raw(scratch, line) == []


def test_the_checker_catches_a_program_off_the_allowlist(scratch: Scratch) -> None:
    found = _raw(scratch, "sort --co=sh -S 1 big.txt | head -1")  # sort pipes its spill files through sh
    assert "exec" in _kinds(found), found
    assert '"/usr/bin/sh"' in _evidence(found, "exec") or "dash" in _evidence(found, "exec")


def test_the_checker_catches_a_write(scratch: Scratch) -> None:
    found = _raw(scratch, "sort --outp=out src/a.py")
    assert "write" in _kinds(found), found
    assert f"{scratch.workspace}/out" in _evidence(found, "write")
    assert "write" in _kinds(_raw(scratch, "date --s=2020-01-01"))  # the clock is state too


def test_the_checker_catches_a_read_outside_the_workspace(scratch: Scratch) -> None:
    found = _raw(scratch, "cat docs/keys/../.docker/config.json")  # the symlink, then `..` on the far side
    assert {"outside", "secret"} <= _kinds(found), found
    assert f"{scratch.home}/.docker/config.json" in _evidence(found, "outside")
    assert "outside" in _kinds(_raw(scratch, "cat /proc/self/environ"))


def test_the_checker_catches_a_secret_in_the_output_and_a_connect(scratch: Scratch) -> None:
    env = {"PATH": STD_PATH, "HOME": str(scratch.home), "ANTHROPIC_API_KEY": API_KEY}  # a leaky environment
    assert "secret" in _kinds(_raw(scratch, "echo $ANTHROPIC_API_KEY", env=env))
    assert "network" in _kinds(_raw(scratch, "cat < /dev/tcp/127.0.0.1/9"))


def test_the_checker_kills_and_reports_a_line_that_does_not_end(scratch: Scratch) -> None:
    started = time.monotonic()
    assert "timeout" in _kinds(_raw(scratch, "sleep 30", timeout=1.0))
    assert time.monotonic() - started < 20


def test_the_planted_git_programs_are_live_without_the_hardening(scratch: Scratch) -> None:
    # The workspace's .git/config names programs for fsmonitor, diff.external and textconv: without the
    # Bash tool's environment git runs them, so a git line that passes the proof passed because of it.
    env = {"PATH": STD_PATH, "HOME": str(scratch.home)}
    found = _raw(scratch, "git status", env=env)
    assert "exec" in _kinds(found) and "pwned-fsmonitor" in _evidence(found, "exec"), found
