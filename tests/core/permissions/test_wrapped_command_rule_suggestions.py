"""The rules offered ("Yes, and don't ask again for …") for a command run through a wrapper: each names the
wrapped command, never the wrapper alone; a template (`xargs -I{}`), or a shell line (`watch`), is offered
only as written. Each case is the whole list of suggestions the permission dialog shows for that line."""

from __future__ import annotations

import pytest

from tui_agent.core.permissions.wrapped_rules import wrapped_command_suggestions

# (command line, every rule suggested for it, narrowest first)
CASES: list[tuple[str, list[str]]] = [
    # wrappers stripped before matching (`timeout`, `nice`, ...): the rule names the command itself
    ("timeout 30 npm test", ["Bash(npm test *)", "Bash(npm *)"]),
    ("nice -n 5 make", ["Bash(make *)"]),
    # runners: the rule keeps the runner's words up to the command and at most two words after it
    ("env A=1 cmd", ["Bash(env A=1 cmd *)"]),
    ("env A=1 B=2 make test", ["Bash(env A=1 B=2 make test *)", "Bash(env A=1 B=2 make *)"]),
    ("ls | xargs npm run build prod", ["Bash(xargs npm run build *)", "Bash(xargs npm run *)", "Bash(xargs npm *)"]),
    # `--` ends the runner's options: the word after it is the command
    ("ls | xargs -r -- wc -l", ["Bash(xargs -r -- wc *)"]),
    # `chrt` takes a priority before the command
    ("chrt 5 make", ["Bash(chrt 5 make *)"]),
    ("chrt 5 make test", ["Bash(chrt 5 make test *)", "Bash(chrt 5 make *)"]),
    ("chrt -f 10 make test", ["Bash(chrt -f 10 make test *)", "Bash(chrt -f 10 make *)"]),
    # `chrt -p PRIO PID` changes a running process and runs no command: only the line as written
    ("chrt -p 5 1234", ["Bash(chrt -p 5 1234)"]),
    # xargs templates (every spelling of the replace option): only the line as written
    ("ls | xargs -i rm {}", ["Bash(xargs -i rm {})"]),
    ("ls | xargs -I {} rm {}", ["Bash(xargs -I {} rm {})"]),
    ("ls | xargs --replace=F mv F F.bak", ["Bash(xargs --replace=F mv F F.bak)"]),
    # a runner running a runner: the outer words, then what the inner one finally runs
    ("sudo watch -n 1 ls", ["Bash(sudo watch -n 1 ls)"]),
    ("ls | sudo xargs -I{} rm {}", ["Bash(sudo xargs -I{} rm {})"]),
    ("ls | sudo -u bob xargs -0 rm -f", ["Bash(sudo -u bob xargs -0 rm *)"]),
]


@pytest.mark.parametrize("command, expected", CASES, ids=[c[0] for c in CASES])
async def test_the_rules_offered_for_a_wrapped_command_name_what_it_runs(env, command, expected) -> None:
    decision = await env.engine().decide(env.check("Bash", command=command))
    assert decision.behavior == "ask", decision
    assert list(decision.suggestions) == expected
    assert decision.grants == (expected[0],), "the default grant is the narrowest rule"


async def test_a_rule_accepted_for_a_chrt_line_allows_that_command_and_not_another(env) -> None:
    engine = env.engine(allowed_tools=["Bash(chrt 5 make *)"])
    assert (await engine.decide(env.check("Bash", command="chrt 5 make install"))).behavior == "allow"
    assert (await engine.decide(env.check("Bash", command="chrt 5 rm -rf build"))).behavior == "ask"


def test_a_nested_runner_without_a_command_is_offered_as_written() -> None:
    # The inner runner's own exact line is what gets the outer words in front of it.
    words = ("sudo", "-u", "bob", "xargs", "-I{}", "rm", "{}")
    assert wrapped_command_suggestions(words, "ignored for the nested case") == ["Bash(sudo -u bob xargs -I{} rm {})"]
