"""How a Bash line is split into the simple commands rules are checked against (`bash_split.split_command`):
every command of a list, pipeline, subshell, loop, function, command or process substitution, each with its
leading `VAR=value` assignments apart, the files it writes, its own source text (with its here-document), and
its core words (wrappers such as `timeout 5` or `nice -n 10` stripped); then how allow and deny rules see
those parts through the engine."""

from __future__ import annotations

import pytest

from tests.core.support import plain_id

from tui_agent.core.permissions.bash_split import split_command

# (line, [(assignments, words, files written)] in the order the parts are found)

SPLITS: list[tuple[str, list[tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]]]] = [
    ("", []),
    ("  \n ", []),
    ("make test", [((), ("make", "test"), ())]),
    # lists and pipelines; a substitution's command comes before the command that holds it
    ("a && b | c; d $(e) > f", [((), ("a",), ()), ((), ("b",), ()), ((), ("c",), ()), ((), ("e",), ()), ((), ("d", "$(e)"), ("f",))]),
    ("(cd src && rm x)", [((), ("cd", "src"), ()), ((), ("rm", "x"), ())]),
    ("for f in a b; do rm $f; done", [((), ("rm", "$f"), ())]),
    ("if true; then rm x; fi", [((), ("true",), ()), ((), ("rm", "x"), ())]),
    ("echo $(rm x)", [((), ("rm", "x"), ()), ((), ("echo", "$(rm x)"), ())]),
    ("echo `rm x`", [((), ("rm", "x"), ()), ((), ("echo", "`rm x`"), ())]),
    ('echo "$(rm z)"', [((), ("rm", "z"), ()), ((), ("echo", '"$(rm z)"'), ())]),
    ("cat <(rm x)", [((), ("rm", "x"), ()), ((), ("cat", "<(rm x)"), ())]),
    ("X=$(rm y)", [((), ("rm", "y"), ()), (("X=$(rm y)",), (), ())]),
    # only leading assignments are assignments; `CC=clang` after the command is an argument
    ("FOO=1 BAR=2 make CC=clang", [(("FOO=1", "BAR=2"), ("make", "CC=clang"), ())]),
    ("FOO=1", [(("FOO=1",), (), ())]),
    # files written: not /dev/null, not a file descriptor
    ("make > build.log 2>&1", [((), ("make",), ("build.log",))]),
    ("make >> /dev/null", [((), ("make",), ())]),
    ("echo x >| out", [((), ("echo", "x"), ("out",))]),
    ("make &> all.log", [((), ("make",), ("all.log",))]),
    ("make 2>/dev/null >out.log", [((), ("make",), ("out.log",))]),
    # the `time` keyword bashlex can't parse is kept as written
    ("time make test", [((), ("time", "make", "test"), ())]),
    ("ls; time make", [((), ("ls",), ()), ((), ("time", "make"), ())]),
]


@pytest.mark.parametrize("line, expected", SPLITS, ids=[plain_id(s[0]) for s in SPLITS])
def test_a_line_splits_into_its_simple_commands(line, expected) -> None:
    parts = split_command(line)
    assert parts is not None, "parseable"
    assert [(p.assignments, p.words, p.redirect_targets) for p in parts] == expected


# (line, each part's source: what the tool's read-only check of that one part is shown)
SOURCES: list[tuple[str, list[str]]] = [
    ("make > out && ls -la", ["make > out", "ls -la"]),
    ("a; FOO=1 b 2>/dev/null | c", ["a", "FOO=1 b 2>/dev/null", "c"]),
    # a here-document's body belongs to its command (a quoted delimiter keeps the body literal)
    ("cat <<'EOF'\nbody $(x)\nEOF", ["cat <<'EOF'\nbody $(x)\nEOF"]),
    ("ls && cat <<A <<B\na\nA\nb\nB", ["ls", "cat <<A <<B\na\nA\nb\nB"]),
]


@pytest.mark.parametrize("line, expected", SOURCES, ids=[plain_id(s[0]) for s in SOURCES])
def test_each_part_keeps_its_own_source_text(line, expected) -> None:
    parts = split_command(line)
    assert parts is not None
    assert [p.source for p in parts] == expected


# (line, core words: what allow rules are matched against once wrappers are stripped)
CORES: list[tuple[str, tuple[str, ...]]] = [
    ("make test", ("make", "test")),
    ("nohup rm x", ("rm", "x")),
    ("nice -n 10 rm x", ("rm", "x")),
    ("timeout -s KILL -k 2 5s rm x", ("rm", "x")),
    ("timeout 5 rm x", ("rm", "x")),
    ("stdbuf -oL -e 0 rm x", ("rm", "x")),
    ("stdbuf -oL rm x", ("rm", "x")),
    ("command -p rm x", ("rm", "x")),
    ("time nice -n 5 timeout 3 make test", ("make", "test")),
    # `--` ends a wrapper's options; what follows is the command (or the wrapper's positional argument)
    ("nice -n 5 -- make test", ("make", "test")),
    ("timeout -- 5 make", ("make",)),
    ("nohup -- -weird-tool arg", ("-weird-tool", "arg")),
    # a lone `-` is not an option: it is the program nohup runs
    ("nohup - rm x", ("-", "rm", "x")),
    # a wrapper with nothing to run is matched as written
    ("nohup", ("nohup",)),
    ("timeout 5", ("timeout", "5")),
    ("nice -n 5", ("nice", "-n", "5")),
    ("FOO=1", ()),
]


@pytest.mark.parametrize("line, expected", CORES, ids=[c[0] for c in CORES])
def test_wrappers_are_stripped_down_to_the_command_they_run(line, expected) -> None:
    parts = split_command(line)
    assert parts is not None and len(parts) == 1
    assert parts[0].core_words == expected


# (rule kind, rule, line, decision): the forms each kind of rule is tried on
FORMS: list[tuple[str, str, str, str]] = [
    # allow rules see the command without wrappers, without and with its assignments
    ("allow", "Bash(make test *)", "CC=clang make test", "allow"),
    ("allow", "Bash(CC=clang make test)", "CC=clang make test", "allow"),
    ("allow", "Bash(CC=clang make test)", "CC=clang timeout 9 make test", "allow"),
    ("allow", "Bash(timeout 9 make test)", "timeout 9 make test", "ask"),
    # deny rules see every spelling: with or without the wrapper, with or without the assignments
    ("deny", "Bash(rm x)", "A=1 timeout 5 rm x", "deny"),
    ("deny", "Bash(timeout 5 rm *)", "A=1 timeout 5 rm x", "deny"),
    ("deny", "Bash(A=1 rm *)", "A=1 timeout 5 rm x", "deny"),
    ("deny", "Bash(A=1 timeout 5 rm *)", "A=1 timeout 5 rm x", "deny"),
    ("deny", "Bash(B=1 rm *)", "A=1 timeout 5 rm x", "ask"),
]


@pytest.mark.parametrize("kind, rule, line, expected", FORMS, ids=[f"{f[0]}-{f[1]}-{f[2]}" for f in FORMS])
async def test_allow_and_deny_rules_see_the_parts_spellings(env, kind, rule, line, expected) -> None:
    engine = env.engine(**({"allowed_tools": [rule]} if kind == "allow" else {"disallowed_tools": [rule]}))
    assert (await engine.decide(env.check("Bash", command=line))).behavior == expected


async def test_an_assignment_alone_is_offered_as_a_rule_for_itself(env) -> None:
    decision = await env.engine().decide(env.check("Bash", command="FOO=1"))
    assert decision.behavior == "ask" and list(decision.suggestions) == ["Bash(FOO=1 *)"]


@pytest.mark.parametrize("line", ["echo x > $F", "make > ~/build.log", "date >> $(hostname).log", "make 2> \"$LOG\""])
def test_a_line_writing_a_file_known_only_when_it_runs_cannot_be_split(line) -> None:
    assert split_command(line) is None
