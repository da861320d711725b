"""Rules offered for a command run through a wrapper that executes another command (`xargs wc -l`).

`Bash(xargs *)` would allow `xargs rm -rf` too, so the wrapper alone is never offered: the rule keeps
the wrapper's own words and names the wrapped command (`Bash(xargs wc *)`). When the wrapped command
can't be found, only the exact command line is offered.
"""

from __future__ import annotations

# Wrapper -> its options that take a separate value. Words before the wrapped command are options
# (`-r`, `--null`, `-n 1`) or, for `env`, assignments (`FOO=1`).
_RUNNERS: dict[str, frozenset[str]] = {
    "xargs": frozenset({"-a", "-E", "-I", "-L", "-n", "-P", "-s", "-d", "--arg-file", "--delimiter",
                        "--max-args", "--max-procs", "--max-chars", "--max-lines", "--process-slot-var"}),
    "env": frozenset({"-u", "--unset", "-C", "--chdir", "-S", "--split-string"}),
    "sudo": frozenset({"-u", "--user", "-g", "--group", "-h", "--host", "-p", "--prompt", "-C",
                       "--close-from", "-D", "--chdir", "-r", "--role", "-t", "--type", "-T", "--command-timeout"}),
    "doas": frozenset({"-u", "-C"}),
    "watch": frozenset({"-n", "--interval", "-d", "--differences", "-q", "--equexit"}),
    "parallel": frozenset({"-j", "--jobs", "-S", "--sshlogin", "--delay", "--timeout"}),
    "flock": frozenset({"-w", "--timeout", "-E", "--conflict-exit-code"}),
    "ionice": frozenset({"-c", "--class", "-n", "--classdata", "-p", "--pid"}),
    "chrt": frozenset(),
    "exec": frozenset({"-a"}),
    "setsid": frozenset(),
    "unbuffer": frozenset(),
}
_SPECIAL = set("/\\'\"$`=*?[]{}()<>|&;~!#")


def is_runner(word: str) -> bool:
    """Whether `word` names a wrapper that runs the command after its own words."""
    return word in _RUNNERS


def wrapped_command_suggestions(words: tuple[str, ...] | list[str], text: str) -> list[str]:
    """Rules for `words` (a simple command starting with a runner), narrowest first; never the runner alone."""
    start = _wrapped_start(list(words))
    if start is None:
        return [f"Bash({text})"]
    inner = list(words[start:])
    if inner and is_runner(inner[0]):  # `sudo xargs rm`: name what finally runs
        nested = wrapped_command_suggestions(inner, " ".join(inner))
        head = " ".join(words[:start])
        return [f"Bash({head} {rule[len('Bash('):]}" if rule.startswith("Bash(") else rule for rule in nested]
    prefix = list(words[: start + 1])
    for word in inner[1:3]:
        if word.startswith("-") or _SPECIAL & set(word):
            break
        prefix.append(word)
    return [f"Bash({' '.join(prefix[:n])} *)" for n in range(len(prefix), start, -1)]


def _wrapped_start(words: list[str]) -> int | None:
    """Index of the wrapped command's first word, or None when there is none (or `-I`-style templates)."""
    takes_value = _RUNNERS[words[0]]
    i = 1
    while i < len(words):
        word = words[i]
        if word == "--":
            i += 1
            break
        if word.startswith("-") and word != "-":
            if words[0] == "xargs" and (word.startswith("-I") or word.startswith("--replace") or word == "-i"):
                return None  # `xargs -I{} sh -c '... {}'`: the line is a template, not a command prefix
            i += 2 if word in takes_value else 1
            continue
        if words[0] == "env" and "=" in word:
            i += 1
            continue
        if words[0] == "watch" or words[0] == "chrt":
            # `chrt PRIO cmd` has a positional priority; `watch` runs a shell line: keep it whole.
            if words[0] == "chrt" and word.isdigit():
                i += 1
                continue
            if words[0] == "watch":
                return None
        break
    return i if i < len(words) else None
