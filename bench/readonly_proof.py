"""The runtime proof of the read-only classifier, longer than CI's (prints figures and every violating line).

Generates N shell lines from tests/tools/readonly_proof_grammar.py, decides each as the product does (the real
Bash tool and permission engine, default mode) and runs every line it would run without asking in bwrap under
`strace -f`, as tests/tools/test_readonly_proof.py does with a fixed 300. Prints how many lines were generated,
how many ran unasked, how many ran under strace, and each violating line with its evidence. Without --seed the
lines differ from run to run (that is the point of a longer run); the issue's known attacks go first.

    python bench/readonly_proof.py 2000 [--seed 7] [--per-line 4]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hypothesis import HealthCheck, Phase, given, seed, settings  # noqa: E402

from tests.tools.readonly_proof_grammar import known_attacks, shell_lines  # noqa: E402
from tests.tools.readonly_proof_support import Prover, make_scratch, sandbox_tools_missing  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("examples", type=int, help="how many lines to generate")
    parser.add_argument("--seed", type=int, default=None, help="repeat a run exactly")
    parser.add_argument("--per-line", type=int, default=4, help="evidence lines shown per violating line")
    args = parser.parse_args()
    missing = sandbox_tools_missing()
    if missing:
        print(f"needs {' and '.join(missing)}: apt-get install bubblewrap strace", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="readonly-proof-") as base:
        scratch = make_scratch(Path(base))
        prover = Prover(scratch)
        started = time.monotonic()
        for line in known_attacks(scratch):
            prover.prove(line)

        @settings(max_examples=args.examples, database=None, deadline=None, phases=[Phase.generate],
                  suppress_health_check=list(HealthCheck))
        @given(shell_lines(scratch))
        def prove(line: str) -> None:
            prover.prove(line)

        if args.seed is not None:
            prove = seed(args.seed)(prove)
        try:
            prove()
        finally:
            prover.close()
        t = prover.tally
        elapsed = time.monotonic() - started
        print(f"lines generated:          {t.generated} ({len(known_attacks(scratch))} known attacks first)")
        print(f"  distinct:               {len(prover.seen)}")
        print(f"run unasked (classifier): {t.unasked}")
        print(f"run under strace:         {t.executed}")
        print(f"violating lines:          {len(t.found)}")
        print(f"time:                     {elapsed:.1f}s ({elapsed / max(t.generated, 1) * 1000:.1f} ms a line)")
        if t.found:
            print()
            print(prover.report(per_line=args.per_line))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
