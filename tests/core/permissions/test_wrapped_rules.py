"""The rule offered for a command run through a wrapper names the wrapped command, never the wrapper alone."""

from __future__ import annotations

from tui_agent.core.permissions.wrapped_rules import wrapped_command_suggestions


async def test_pipeline_through_xargs_offers_the_wrapped_commands_rule(env) -> None:
    engine = env.engine()
    cases = {
        "find . -name '*.py' | xargs wc -l": ["Bash(xargs wc *)"],
        "git ls-files | xargs -r -n 1 git log --oneline": ["Bash(xargs -r -n 1 git log *)", "Bash(xargs -r -n 1 git *)"],
        "env FOO=1 make test": ["Bash(env FOO=1 make test *)", "Bash(env FOO=1 make *)"],
        "ls | xargs -I{} rm {}": ["Bash(xargs -I{} rm {})"],
        "ls | xargs": ["Bash(xargs)"],
    }
    for command, expected in cases.items():
        decision = await engine.decide(env.check("Bash", command=command))
        assert decision.behavior == "ask", command
        wrapper_rules = [s for s in decision.suggestions if s.startswith(("Bash(xargs", "Bash(env"))]
        assert wrapper_rules == expected, command
        assert "Bash(xargs *)" not in decision.suggestions and "Bash(env *)" not in decision.suggestions


async def test_wrapped_rule_allows_the_wrapped_command_and_not_another(env) -> None:
    engine = env.engine(allowed_tools=["Bash(xargs wc *)"])
    assert (await engine.decide(env.check("Bash", command="cat list | xargs wc -l"))).behavior == "allow"
    assert (await engine.decide(env.check("Bash", command="cat list | xargs rm -rf /"))).behavior == "ask"


def test_nested_wrappers_name_what_finally_runs() -> None:
    words = ("sudo", "-u", "bob", "xargs", "-0", "rm", "-f")
    assert wrapped_command_suggestions(words, " ".join(words)) == ["Bash(sudo -u bob xargs -0 rm *)"]
    assert wrapped_command_suggestions(("watch", "-n", "1", "ls"), "watch -n 1 ls") == ["Bash(watch -n 1 ls)"]
