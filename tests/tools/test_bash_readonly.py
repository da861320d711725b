"""The read-only classifier: every part of a command must be a known reader writing no file."""

from __future__ import annotations

import pytest

from tui_agent.tools.bash_readonly import is_destructive, is_read_only

READ_ONLY = [
    "ls",
    "ls -la src/",
    "cat README.md",
    "head -n 20 a.py",
    "tail -f log.txt",
    "wc -l *.py",
    "echo hello",
    "printf '%s\\n' a b",
    "pwd",
    "date +%Y-%m-%d",
    "sleep 1",
    "true",
    "false",
    "which python",
    "grep -rn TODO src",
    "rg -i needle",
    "find . -name '*.py' -type f",
    "git status",
    "git log --oneline -n 5",
    "git diff HEAD~1 -- src/",
    "git show HEAD:README.md",
    "git branch",
    "git branch -a -v",
    "git branch --list 'feat/*'",
    "git rev-parse --abbrev-ref HEAD",
    "git -C sub status",
    "file image.png",
    "stat a.txt",
    "du -sh .",
    "df -h",
    "env",
    "whoami",
    "uname -a",
    "sort names.txt | uniq -c",
    "cut -d, -f1 data.csv | tr a-z A-Z",
    "ls && pwd",
    "ls || echo none",
    "ls; pwd",
    "(cd src && ls)",
    "{ ls; pwd; }",
    "ls 2>&1",
    "ls > /dev/null 2>&1",
    "cat missing 2>/dev/null",
    "echo $(git rev-parse HEAD)",
    "echo `date`",
    "diff <(ls a) <(ls b)",
    "cat < input.txt",
    "if true; then ls; fi",
    "cat ~/notes.txt",
]

NOT_READ_ONLY = [
    "rm -rf build",
    "touch new.txt",
    "mkdir out",
    "echo hi > out.txt",
    "echo hi >> out.txt",
    "ls &> listing.txt",
    "{ ls; } > out",
    "ls | tee out.txt",
    "find . -name '*.tmp' -delete",
    "find . -exec rm {} \\;",
    "find . -execdir cat {} +",
    "find . -fprint out.txt",
    "sort -o sorted.txt names.txt",
    "sort --output=sorted.txt names.txt",
    "uniq in.txt out.txt",
    "date -s '2020-01-01'",
    "git commit -m x",
    "git push",
    "git checkout main",
    "git branch new-feature",
    "git branch -D old",
    "git -c core.pager=evil log",
    "git diff --output=patch.txt",
    "rg --pre ./script needle",
    "env FOO=1 ls",
    "FOO=1 ls",
    "echo $(rm -rf /)",
    "echo ${x:-$(rm y)}",
    "cat <(rm x)",
    "$CMD",
    "find . $ACTION",
    "python script.py",
    "npm install",
    "sed -i s/a/b/ f.txt",
    "awk '{system(\"rm x\")}' f",
    "xargs rm < list",
    "f() { ls; }",
    "ls && rm x",
    "ls | sh",
    "[[ -f x ]] && cat x",
    "for f in *.py; do wc -l $f; done",  # `$f` names a file only known when it runs
    "",
    "ls 'unterminated",
]


@pytest.mark.parametrize("command", READ_ONLY)
def test_read_only(command: str) -> None:
    assert is_read_only(command), command


@pytest.mark.parametrize("command", NOT_READ_ONLY)
def test_not_read_only(command: str) -> None:
    assert not is_read_only(command), command


@pytest.mark.parametrize(
    "command",
    ["rm -rf build", "rm -f x", "rm -r dir", "git reset --hard HEAD~1", "git push --force", "git clean -fd",
     "dd if=/dev/zero of=disk", "find . -delete", "ls && rm -rf /", "echo $(rm -rf x)"],
)
def test_destructive(command: str) -> None:
    assert is_destructive(command), command


@pytest.mark.parametrize("command", ["ls", "rm file.txt", "git reset HEAD file", "git push", "echo rm -rf"])
def test_not_destructive(command: str) -> None:
    assert not is_destructive(command), command


def test_the_bash_description_tells_the_model_what_runs_without_asking() -> None:
    from tui_agent.tools.bash import BashTool
    from tui_agent.tools.bash_readonly import READER_NAMES

    text = BashTool.description
    start = text.index("Read-only commands run without asking: ")
    listed = text[start:].split("\n", 1)[0]
    for name in READER_NAMES:
        assert f" {name}," in listed or f" {name} (" in listed, name
    assert "inside the working directories" in listed and "--ext-diff" in listed
