"""Everyday read-only shell lines run unasked (issue 23, "Done when": nothing that passed before starts asking).

Issue 23 makes the read-only classifier a proof over a closed grammar; this table holds it to what developers and
Claude Code actually run. The lines come from the commands a coding agent issues while exploring a repository —
the examples in issue 23 and Claude Code's own Bash habits (listings, `git log/status/diff/show/blame`, `grep -rn`,
`rg`, `find -name`, `head`/`tail`/`wc`, `jq` on package.json, `sort | uniq -c | sort -rn`, `cd DIR && ...`,
`2>/dev/null || echo`, `test -f && cat`) — written against the `shell_env` fixture's project (conftest.py), through
the real Bash tool and the permission engine in default mode, as the adversarial table does. Only commands from
`bash_readonly.READER_NAMES` (less env, printenv and read, which issue 23 removes) and git's readers appear.

The project has an outward link at its top (`out_link`) and under `docs/` (`docs/keys`): readers that do not follow
links (`grep -r`, `rg`, `find`, `du`, `tree` without -l/-L) still run unasked there."""

from __future__ import annotations

from typing import Any

import pytest

from tests.core.support import plain_id

from tui_agent.core.permission_types import PermissionCheck
from tui_agent.tools.bash import BashTool

EVERYDAY: list[str] = [
    # listings
    "ls",
    "ls -la",
    "ls -lah src",
    "ls -l src/a.py",
    "ls -1",
    "ls -A",
    "ls -lt | head",
    "ls -d src/*/",
    "ls --color=never",
    "ls -la docs",
    "ls -la src lib",
    "ls -R src",
    "ls src/*.py",
    "ls -S src",
    "ls -ltr src | tail -5",
    "ls 2>/dev/null || echo none",
    "ls -la | grep py",
    "tree -L 2",
    "tree src",
    "tree -d",
    "tree -L 1 src",
    "tree -I node_modules",
    "pwd",
    # reading files
    "cat f",
    "cat -n f",
    "cat src/a.py",
    "cat README.md",
    "cat package.json",
    "cat missing 2>/dev/null",
    "cat src/a.py src/b.py",
    "cat f | head -n 3",
    "head -n 20 f",
    "head -20 f",
    "head f",
    "head -c 100 f",
    "head -n 5 src/*.py",
    "head -n 1 data.csv",
    "tail -n 50 f",
    "tail -5 f",
    "tail -n +2 data.csv",
    "tail -n 20 README.md",
    "nl -ba f",
    "nl src/a.py",
    "head -n 20 f | nl",
    # counting
    "wc -l f",
    "wc -l src/*.py",
    "wc -c f",
    "wc -w README.md",
    "wc f",
    "cat src/a.py | wc -l",
    "cat f | grep x | wc -l",
    "wc -l f && head -3 f",
    # grep
    "grep -rn foo src",
    "grep -rni 'def ' --include='*.py' src",
    "grep -c x f",
    "grep -E 'a|b' f",
    "grep -n TODO src/b.py",
    "grep -rl import src",
    "grep -i hello README.md",
    "grep -v '^#' f",
    "grep -v '^$' f",  # a quoted dollar sign is a literal: no expansion
    "grep -w name package.json",
    "grep -rn 'TODO\\|FIXME' src",
    "grep -A 2 -B 2 def src/b.py",
    "grep -o '[0-9]\\+' f",
    "grep -q x f && echo found",
    "grep -h def src/*.py",
    "grep -rn --exclude-dir=.git foo .",
    "grep -rn 'class ' src lib",
    "grep -l x src/a.py src/b.py",
    "grep -r TODO .",
    "egrep 'a|b' f",
    "fgrep -n 'a.b' f",
    "grep -rn foo src 2>/dev/null | head",
    # ripgrep
    "rg TODO",
    "rg -n 'fn main' -g '*.rs'",
    "rg --files",
    "rg -l needle src",
    "rg -i --type py import",
    "rg -n foo src",
    "rg -w def",
    "rg -c import src",
    "rg --files src",
    "rg --files -g '*.py'",
    "rg -F 'a.b' src",
    "rg -C 2 TODO src",
    "rg --hidden TODO",
    "rg -t md hello",
    "rg -e foo -e bar src",
    "rg --no-ignore -l import",
    "rg -uu TODO src",
    "rg --files | sort",
    # find
    "find . -name '*.py'",
    "find . -type f -name '*.md' -maxdepth 2",
    "find src -newer f",
    "find src -type d",
    "find . -name '*.py' -not -path './.git/*'",
    "find src -name '*.py' | wc -l",
    "find . -maxdepth 1 -type f",
    "find src -size +1k",
    "find . -name package.json",
    "find src -mtime -1",
    "find . -type f -name '*.json' -print",
    "find src -empty",
    "find . -path ./node_modules -prune -o -name '*.py' -print",
    "find src -iname '*.PY'",
    "find . -name '*.py' | head -20",
    # git
    "git status",
    "git status --short",
    "git status -sb",
    "git status --porcelain",
    "git log --oneline -5",
    "git log --oneline -n 20 --graph",
    "git log -1",
    "git log --format='%h %s' -n 3",
    "git log --stat -3",
    "git log -p -2 -- src/a.py",
    "git log --author=alice --oneline",
    "git log --since='2 weeks ago' --oneline",
    "git log --oneline --all --decorate",
    "git log --oneline | head -20",
    "git log --oneline -3 2>&1 | head",
    "git diff",
    "git diff --stat",
    "git diff HEAD~1 -- src",
    "git diff --cached",
    "git diff --name-only",
    "git diff main...HEAD --stat",
    "git diff HEAD -- src/a.py",
    "git diff --staged --stat",
    "git show --stat HEAD",
    "git show HEAD",
    "git show HEAD~2:src/a.py",
    "git show --name-only HEAD",
    "git blame -L 1,5 src/a.py",
    "git blame src/a.py",
    "git branch",
    "git branch -a",
    "git branch -vv",
    "git branch --show-current",
    "git branch -r",
    "git branch --merged main",
    "git rev-parse HEAD",
    "git rev-parse --abbrev-ref HEAD",
    "git rev-parse --show-toplevel",
    "git ls-files",
    "git ls-files src",
    "git ls-files | wc -l",
    "git describe --tags",
    "git shortlog -sn",
    "git status && git diff --stat",
    "git log --oneline -5 && git status --short",
    # jq
    "jq .name package.json",
    "jq -r '.dependencies | keys[]' package.json",
    "jq . data.json",
    "jq '.scripts' package.json",
    "jq -r .version package.json",
    "jq 'length' data.json",
    "jq -c '.items[]' data.json",
    "jq -r '.items[].name' data.json",
    "cat package.json | jq .name",
    "[ -f package.json ] && jq .name package.json",
    # sorting, cutting, columns
    "sort f",
    "sort f | uniq -c | sort -rn | head",
    "sort -k2 -t, data.csv",
    "sort -u f",
    "sort -n nums.txt",
    "sort -rn nums.txt | head -3",
    "sort -t: -k2 -n f",
    "uniq -c f",
    "uniq f",
    "sort f | uniq -d",
    "cut -d: -f1 f",
    "cut -d, -f2 data.csv",
    "cut -c1-10 f",
    "tr a-z A-Z < f",
    "cat f | tr -d '\\r'",
    "tr -s ' ' < f",
    "column -t f",
    "column -s, -t data.csv",
    # files, sizes, sums, comparisons
    "stat f",
    "stat -c '%s %n' src/a.py",
    "file f",
    "file src/*.py",
    "du -sh src",
    "du -sh .",
    "du -h --max-depth=1 .",
    "du -a src",
    "df -h .",
    "sha256sum f",
    "md5sum src/a.py",
    "sha1sum f",
    "cmp a b",
    "diff a b",
    "diff -u a b",
    "diff --brief a b",
    "diff -q src lib",
    "diff a b > /dev/null || echo differ",
    "cat src/a.py >/dev/null && echo ok",
    # the shell around them
    "echo done",
    "echo 'hello world'",
    "printf '%s\\n' hello",
    "which python3",
    "which git rg",
    "type ls",
    "date +%s",
    "date",
    "date -u +%Y-%m-%dT%H:%M:%SZ",
    "uname -a",
    "uname -m",
    "whoami",
    "id -u",
    "hostname",
    "cd src && ls",
    "cd src && grep -n def b.py",
    "test -f f && cat f",
    "[ -d src ] && ls src",
    "test -d lib || echo missing",
    "basename src/a.py",
    "dirname src/a.py",
    "realpath src",
    "readlink -f src/a.py",
    "readlink lib/src_link",
    "seq 1 5",
    "seq 3",
    "true",
    "false || echo failed",
    "echo done; ls src",
    "ls src; echo ---; ls lib",
]


@pytest.mark.parametrize("command", EVERYDAY, ids=[plain_id(c) for c in EVERYDAY])
async def test_everyday_line_runs_unasked(shell_env, monkeypatch, command: str) -> None:
    env = shell_env
    monkeypatch.setenv("HOME", str(env.home))
    tool = BashTool()
    inp: Any = tool.Input(command=command)
    check = PermissionCheck(tool, inp, {"command": inp.command}, "toolu_1", env.workspace, tool.is_read_only(inp))
    decision = await env.engine().decide(check)
    assert decision.behavior == "allow", decision


def test_the_table_is_big_enough_and_uses_only_readers() -> None:
    from tui_agent.tools import bash_readonly

    assert len(EVERYDAY) >= 150
    assert len(set(EVERYDAY)) == len(EVERYDAY)
    readers = set(bash_readonly.READER_NAMES) - {"env", "printenv", "read"}
    import bashlex

    def names(node: Any) -> list[str]:
        found = []
        if node.kind == "command":
            words = [p.word for p in node.parts if p.kind == "word"]
            found += words[:1]
        for child in getattr(node, "parts", None) or []:
            found += names(child)
        return found

    used = {name for line in EVERYDAY for tree in bashlex.parse(line) for name in names(tree)}
    assert used <= readers | {"git"}, used - readers
