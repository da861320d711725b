"""Table of rule × call cases, decided in default mode against a project settings file."""

from __future__ import annotations

from typing import Any

import pytest

B, R, E, W, G, GL, F = "Bash", "Read", "Edit", "Write", "Grep", "Glob", "WebFetch"

# (id, {"allow"|"deny"|"ask": [rules]}, tool, input, expected behavior). `{outside}` / `{home}` are filled in.
CASES: list[tuple[str, dict[str, list[str]], str, dict[str, Any], str]] = [
    # word boundary vs plain prefix
    ("ls-star-ls", {"allow": ["Bash(touch *)"]}, B, {"command": "touch"}, "allow"),
    ("ls-star-args", {"allow": ["Bash(touch *)"]}, B, {"command": "touch -c a b"}, "allow"),
    ("ls-star-not-lsof", {"allow": ["Bash(ls *)"]}, B, {"command": "lsof -i"}, "ask"),
    ("lsstar-matches-lsof", {"allow": ["Bash(ls*)"]}, B, {"command": "lsof -i"}, "allow"),
    ("legacy-colon", {"allow": ["Bash(npm run:*)"]}, B, {"command": "npm run test"}, "allow"),
    ("legacy-colon-bare", {"allow": ["Bash(npm run:*)"]}, B, {"command": "npm run"}, "allow"),
    ("legacy-colon-boundary", {"allow": ["Bash(npm run:*)"]}, B, {"command": "npm runner"}, "ask"),
    ("legacy-colon-other", {"allow": ["Bash(npm run:*)"]}, B, {"command": "npm test"}, "ask"),
    ("wildcard-middle", {"allow": ["Bash(git * main)"]}, B, {"command": "git push origin main"}, "allow"),
    ("wildcard-middle-miss", {"allow": ["Bash(git * main)"]}, B, {"command": "git push origin dev"}, "ask"),
    ("exact", {"allow": ["Bash(npm test)"]}, B, {"command": "npm test"}, "allow"),
    ("exact-no-extra", {"allow": ["Bash(npm test)"]}, B, {"command": "npm test --watch"}, "ask"),
    ("escaped-star", {"allow": ["Bash(touch \\*)"]}, B, {"command": "touch *"}, "allow"),
    ("escaped-star-literal", {"allow": ["Bash(touch \\*)"]}, B, {"command": "touch x"}, "ask"),
    ("bash-star-all", {"allow": ["Bash(*)"]}, B, {"command": "rm -rf build"}, "allow"),
    # compound commands: every part must be allowed, any denied part denies
    ("and-all-allowed", {"allow": ["Bash(make *)"]}, B, {"command": "make && make install"}, "allow"),
    ("and-one-not-allowed", {"allow": ["Bash(make *)"]}, B, {"command": "make && rm -rf x"}, "ask"),
    ("and-read-only-part", {"allow": ["Bash(make *)"]}, B, {"command": "make && ls"}, "allow"),
    ("and-deny", {"allow": ["Bash(make *)"], "deny": ["Bash(rm *)"]}, B, {"command": "make && rm -rf x"}, "deny"),
    ("pipe-deny", {"deny": ["Bash(rm *)"]}, B, {"command": "ls | rm x"}, "deny"),
    ("semicolon-deny", {"deny": ["Bash(rm *)"]}, B, {"command": "ls; rm x"}, "deny"),
    ("or-deny", {"deny": ["Bash(rm *)"]}, B, {"command": "false || rm x"}, "deny"),
    ("background-deny", {"deny": ["Bash(rm *)"]}, B, {"command": "sleep 1 & rm x"}, "deny"),
    ("pipe-stderr-deny", {"deny": ["Bash(rm *)"]}, B, {"command": "ls |& rm x"}, "deny"),
    ("newline-deny", {"deny": ["Bash(rm *)"]}, B, {"command": "ls\nrm x"}, "deny"),
    ("subshell-deny", {"deny": ["Bash(rm *)"]}, B, {"command": "(cd src && rm x)"}, "deny"),
    ("cmd-subst-deny", {"deny": ["Bash(rm *)"]}, B, {"command": "echo $(rm x)"}, "deny"),
    ("backtick-deny", {"deny": ["Bash(rm *)"]}, B, {"command": "echo `rm x`"}, "deny"),
    ("proc-subst-deny", {"deny": ["Bash(rm *)"]}, B, {"command": "cat <(rm x)"}, "deny"),
    ("loop-deny", {"deny": ["Bash(rm *)"]}, B, {"command": "for f in a b; do rm $f; done"}, "deny"),
    ("assignment-subst-deny", {"deny": ["Bash(rm *)"]}, B, {"command": "X=$(rm y)"}, "deny"),
    ("compound-ask-rule", {"allow": ["Bash(git *)"], "ask": ["Bash(git push *)"]}, B, {"command": "git add . && git push"}, "ask"),
    ("compound-two-allows", {"allow": ["Bash(make *)", "Bash(npm *)"]}, B, {"command": "make | npm x; npm y"}, "allow"),
    # wrappers
    ("timeout-deny", {"deny": ["Bash(rm *)"]}, B, {"command": "timeout 5 rm x"}, "deny"),
    ("timeout-opts-deny", {"deny": ["Bash(rm *)"]}, B, {"command": "timeout -s KILL -k 2 5s rm x"}, "deny"),
    ("nice-deny", {"deny": ["Bash(rm *)"]}, B, {"command": "nice -n 10 rm x"}, "deny"),
    ("nohup-deny", {"deny": ["Bash(rm *)"]}, B, {"command": "nohup rm x"}, "deny"),
    ("time-deny", {"deny": ["Bash(rm *)"]}, B, {"command": "time rm x"}, "deny"),
    ("stdbuf-deny", {"deny": ["Bash(rm *)"]}, B, {"command": "stdbuf -oL -e 0 rm x"}, "deny"),
    ("command-deny", {"deny": ["Bash(rm *)"]}, B, {"command": "command rm x"}, "deny"),
    ("nested-wrappers-deny", {"deny": ["Bash(rm *)"]}, B, {"command": "timeout 5 nice nohup rm x"}, "deny"),
    ("timeout-allow", {"allow": ["Bash(make *)"]}, B, {"command": "timeout 60 make test"}, "allow"),
    ("wrapper-rule-does-not-vouch", {"allow": ["Bash(timeout *)"]}, B, {"command": "timeout 5 rm x"}, "ask"),
    # env assignments: stripped for allow, denied with or without them
    ("env-deny", {"deny": ["Bash(rm *)"]}, B, {"command": "FOO=1 rm -rf x"}, "deny"),
    ("env-deny-written", {"deny": ["Bash(FOO=1 rm *)"]}, B, {"command": "FOO=1 rm x"}, "deny"),
    ("env-deny-many", {"deny": ["Bash(rm *)"]}, B, {"command": "A=1 B=2 timeout 3 rm x"}, "deny"),
    ("env-allow", {"allow": ["Bash(make *)"]}, B, {"command": "CC=clang make"}, "allow"),
    ("deny-beats-allow", {"allow": ["Bash(rm *)"], "deny": ["Bash(rm *)"]}, B, {"command": "rm x"}, "deny"),
    ("ask-beats-allow", {"allow": ["Bash(git *)"], "ask": ["Bash(git push *)"]}, B, {"command": "git push"}, "ask"),
    ("default-read-only", {}, B, {"command": "ls -la | grep x"}, "allow"),
    ("default-write-asks", {}, B, {"command": "rm x"}, "ask"),
    ("bash-name-allows-all", {"allow": ["Bash"]}, B, {"command": "curl x | sh"}, "allow"),
    # redirections are edits of their target
    ("redirect-needs-edit", {"allow": ["Bash(make *)"]}, B, {"command": "make > build.log"}, "ask"),
    ("redirect-with-edit-rule", {"allow": ["Bash(make *)", "Edit(./**)"]}, B, {"command": "make >> build.log"}, "allow"),
    ("redirect-devnull", {"allow": ["Bash(make *)"]}, B, {"command": "make > /dev/null 2>&1"}, "allow"),
    ("redirect-denied-path", {"allow": ["Bash(echo *)", "Edit(./**)"], "deny": ["Edit(./secrets/**)"]}, B, {"command": "echo x > secrets/k"}, "deny"),
    ("redirect-read-deny", {"deny": ["Read(./secrets/**)"]}, B, {"command": "echo x > secrets/new"}, "deny"),
    ("redirect-outside", {"allow": ["Bash(echo *)", "Edit(./**)"]}, B, {"command": "echo x > {outside}/f"}, "ask"),
    ("redirect-variable-target", {"allow": ["Bash(echo *)", "Edit(./**)"]}, B, {"command": "echo x > $F"}, "ask"),
    # unparseable commands
    ("unparseable-asks", {"allow": ["Bash(echo *)"]}, B, {"command": 'echo "unterminated'}, "ask"),
    ("unparseable-raw-deny", {"deny": ["Bash(rm *)"]}, B, {"command": 'rm -rf x "'}, "deny"),
    ("unparseable-raw-deny-inside", {"deny": ["Bash(*rm -rf*)"]}, B, {"command": "[[ -f x ]] && rm -rf y"}, "deny"),
    ("unparseable-bash-name", {"allow": ["Bash"]}, B, {"command": 'echo "x'}, "allow"),
    # file rules
    ("edit-default-asks", {}, E, {"file_path": "src/a.py"}, "ask"),
    ("edit-dot-anchor", {"allow": ["Edit(./src/**)"]}, E, {"file_path": "src/a.py"}, "allow"),
    ("edit-bare-anchor", {"allow": ["Edit(src/**)"]}, E, {"file_path": "src/a.py"}, "allow"),
    ("edit-settings-anchor", {"allow": ["Edit(/src/**)"]}, E, {"file_path": "src/a.py"}, "allow"),
    ("edit-bare-any-depth", {"allow": ["Edit(*.py)"]}, E, {"file_path": "src/deep/x.py"}, "allow"),
    ("edit-glob-miss", {"allow": ["Edit(*.py)"]}, E, {"file_path": "src/deep/x.txt"}, "ask"),
    ("dotdot-escapes-allow", {"allow": ["Edit(./src/**)"]}, E, {"file_path": "src/../secrets/k"}, "ask"),
    ("dotdot-hits-deny", {"allow": ["Edit"], "deny": ["Edit(./secrets/**)"]}, E, {"file_path": "src/../secrets/k"}, "deny"),
    ("symlink-out-of-workspace", {"allow": ["Edit(./**)"]}, W, {"file_path": "out_link/f"}, "ask"),
    ("symlink-into-denied", {"deny": ["Edit(./secrets/**)"]}, W, {"file_path": "secret_link/k"}, "deny"),
    ("absolute-anchor", {"allow": ["Edit(/{outside}/**)"]}, W, {"file_path": "{outside}/f"}, "allow"),
    ("home-anchor", {"allow": ["Edit(~/notes/**)"]}, W, {"file_path": "{home}/notes/x.md"}, "allow"),
    ("outside-no-rule", {}, W, {"file_path": "{outside}/f"}, "ask"),
    ("edit-rules-govern-write", {"allow": ["Edit(./src/**)"]}, W, {"file_path": "src/b.py"}, "allow"),
    ("folder-rule-covers-contents", {"deny": ["Edit(./secrets)"]}, E, {"file_path": "secrets/k"}, "deny"),
    ("read-deny-blocks-edit", {"deny": ["Read(./secrets/**)"]}, E, {"file_path": "secrets/k"}, "deny"),
    ("read-deny-blocks-write", {"deny": ["Read(*.env)"]}, W, {"file_path": "src/.env"}, "deny"),
    ("read-deny", {"deny": ["Read(./secrets/**)"]}, R, {"file_path": "secrets/k"}, "deny"),
    ("read-deny-any-depth", {"deny": ["Read(*.env)"]}, R, {"file_path": "src/.env"}, "deny"),
    ("read-deny-via-symlink", {"deny": ["Read(./secrets/**)"]}, R, {"file_path": "secret_link/k"}, "deny"),
    ("read-default-allows", {}, R, {"file_path": "src/a.py"}, "allow"),
    ("read-allow-does-not-edit", {"allow": ["Read"]}, E, {"file_path": "src/a.py"}, "ask"),
    ("grep-folder-denied", {"deny": ["Read(./secrets/**)"]}, G, {"path": "secrets"}, "deny"),
    ("glob-other-folder", {"deny": ["Read(./secrets/**)"]}, GL, {"path": "src"}, "allow"),
    ("grep-no-path-is-cwd", {"deny": ["Read(./secrets/**)"]}, G, {}, "allow"),
    ("read-ask-rule", {"ask": ["Read(./src/**)"]}, R, {"file_path": "src/a.py"}, "ask"),
    ("read-name-deny", {"deny": ["Read"]}, R, {"file_path": "src/a.py"}, "deny"),
    ("edit-name-allows-write", {"allow": ["Edit"]}, W, {"file_path": "src/new.py"}, "allow"),
    ("write-deny-not-edit", {"deny": ["Write"]}, E, {"file_path": "src/a.py"}, "ask"),
    ("grep-own-rule", {"deny": ["Grep(./src/**)"]}, G, {"path": "src/deep"}, "deny"),
    # other tools
    ("other-tool-default", {}, F, {}, "ask"),
    ("other-tool-allow", {"allow": ["WebFetch"]}, F, {}, "allow"),
    ("other-tool-deny", {"allow": ["WebFetch"], "deny": ["WebFetch"]}, F, {}, "deny"),
    ("unknown-rule-name", {"allow": ["NoSuchTool"]}, F, {}, "ask"),
]


@pytest.mark.parametrize("rules, tool, fields, expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
async def test_rule_table(env, rules, tool, fields, expected) -> None:
    def fill(s: str) -> str:
        return s.replace("{outside}", str(env.outside)).replace("{home}", str(env.home))

    env.write(env.project_settings, {"permissions": {k: [fill(r) for r in v] for k, v in rules.items()}})
    engine = env.engine()
    decision = await engine.decide(env.check(tool, **{k: fill(v) for k, v in fields.items()}))
    assert decision.behavior == expected, decision
    assert env.warnings() == []


def test_table_is_big_enough() -> None:
    assert len(CASES) >= 60
    assert len({c[0] for c in CASES}) == len(CASES)
