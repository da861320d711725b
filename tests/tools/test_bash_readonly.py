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
    "cat < input.txt",
    "cat ~/notes.txt",
    "sort -rn --key=2 names.txt",
    "sort --ch=quiet names.txt",  # a unique prefix of --check, as sort reads it
    "head -20 a.py",
    "grep -A3 -rn x src",
    "cat <<'EOF'\nliteral $(not run) `text`\nEOF",  # a quoted delimiter: the body is never expanded
    "grep -c x <<< 'a b c'",
    "git log --oneline -5",
    "echo '$(id)' \"a\\$b\"",  # quoted: printed as written
]

# Outside the grammar since issue 23: every expansion asks, even one that only reads.
EXPANSIONS = [
    "env",
    "printenv HOME",
    "echo $(git rev-parse HEAD)",
    "echo `date`",
    "diff <(ls a) <(ls b)",
    "if true; then ls; fi",
    "echo $HOME",
    "echo \"$HOME\"",
    "echo $'\\x41'",
    "echo ${x@P}",
    "echo ${!x}",
    "echo {a,b}",
    "cat <<EOF\nplain\nEOF",  # an unquoted delimiter: the body is expanded, whatever it holds
    "cat ~+/x",
    "ls &",
    "! ls",
    "ls |& cat",
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


@pytest.mark.parametrize("command", NOT_READ_ONLY + EXPANSIONS)
def test_not_read_only(command: str) -> None:
    assert not is_read_only(command), command


# Options read as each command reads them (issue 23): unique prefixes of long options, bundled short ones,
# values glued on or in the next word, options after operands.
OPTION_FORMS = [
    ("sort --co=sh f", False),  # --compress-program
    ("sort --compress=sh f", False),
    ("sort --outp=x f", False),  # --output
    ("sort -rno x f", False),  # -o bundled after -r -n
    ("sort f -o x", False),  # GNU reads options after operands
    ("sort --c f", False),  # ambiguous: --check, --compress-program
    ("sort --files0-from=- f", False),
    ("sort --random-source=/etc/passwd f", True),  # a read: decided by the path check
    ("sort -T /tmp f", False),  # writes temporary files there
    ("sort -- -o", True),  # after --, `-o` is a file name
    ("wc --files0-from=list", False),
    ("wc --fi=list", False),
    ("du --files0=list", False),
    ("date --s=2020-01-01", False),
    ("date --se 2020-01-01", False),
    ("date 010100002020", False),
    ("date -d tomorrow +%F", True),
    ("hostname --fi=f", False),
    ("hostname --fqd", True),
    ("file --comp x", False),
    ("file -z x", False),
    ("file --files-from=l", False),
    ("uniq - out", False),
    ("uniq in out", False),
    ("uniq -c in", True),
    ("md5sum -c sums", False),
    ("grep -f pats src", False),
    ("grep --fi=pats src", False),
    ("grep -e x -r src", True),
    ("rg --pre=./x y", False),
    ("rg --pr=x y", False),  # ripgrep takes no abbreviations: an unknown flag
    ("rg -z y", False),
    ("rg -L x", True),
    ("jq 'import \"x\" as $c; .' f", False),
    ("jq -n env", False),
    ("jq '$ENV.PATH' f", False),
    ("jq .env f", True),
    ("jq -L / . f", False),
    ("jq -f prog f", False),
    ("jq --arg k v '.[$k]' f", True),
    ("git log --no-ext-d", False),  # exact names only for git
    ("git diff --outp=x", False),
    ("git diff --output=x", False),
    ("git -c core.pager=sh log", False),
    ("git -p log", False),
    ("git log --oneline -n5", True),
    ("git status -uno", True),
    ("git branch --contains HEAD", True),
    ("git branch feature", False),
    ("git tag v1", False),
    ("git tag -l 'v*'", True),
    ("find . -newer f -name '*.py'", True),
    ("find . -files0-from l", False),
    ("find . -fprint0 x", False),
    ("find . -name *", False),  # an unquoted glob could expand to -delete
    ("test -v 'a[$(id)]'", False),
    ("[ -f x ]", True),
    ("[ -v x ]", False),
    ("printf -v x y", False),
    ("read x <<< 'a'", False),
    ("tail -f log", True),
    ("ls --hyperlink=always", True),
    ("ls --quoting=c", True),  # --quoting-style
]


@pytest.mark.parametrize("command, read_only", OPTION_FORMS, ids=[c for c, _ in OPTION_FORMS])
def test_options_are_read_as_the_command_reads_them(command: str, read_only: bool) -> None:
    assert is_read_only(command) is read_only


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
    assert "inside the working directories" in listed and "--ext-diff" in listed and "--files0-from" in listed
