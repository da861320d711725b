"""Rules offered for a command run through a wrapper that executes another command (`xargs wc -l`).

`Bash(xargs *)` would allow `xargs rm -rf` too, so the wrapper alone is never offered: the rule keeps
the wrapper's own words and names the wrapped command (`Bash(xargs wc *)`). When the wrapped command
can't be found, only the exact command line is offered.
"""

from __future__ import annotations

from .bash_split import ASSIGNMENT

# Wrapper -> its options that take a separate value. Words before the wrapped command are options
# (`-r`, `--null`, `-n 1`) or, for `env` and `sudo`, assignments (`FOO=1`).
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
    """Index of the wrapped command's first word, or None when there is none, or when the wrapper runs a shell
    line or a template (`watch 'a; b'`, `flock L -c 'a; b'`, `xargs -I{} sh -c '{}'`): then only the exact line
    is offered, since a prefix of a shell line allows anything after it."""
    runner = words[0]
    takes_value = _RUNNERS[runner]
    options = True
    lock_file_seen = False
    i = 1
    while i < len(words):
        word = words[i]
        if options and word == "--":
            options = False  # no more options; `env -- A=1 cmd` still takes assignments, `chrt -- 5 cmd` a priority
            i += 1
            continue
        if options and word.startswith("-") and (word != "-" or runner == "env"):  # `env -` empties the environment
            if runner == "xargs" and (word.startswith("-I") or word.startswith("--replace") or word == "-i"):
                return None  # `xargs -I{} sh -c '... {}'`: the line is a template, not a command prefix
            i += 2 if word in takes_value else 1
            continue
        if runner in ("env", "sudo") and ASSIGNMENT.match(word):  # `sudo FOO=1 make`: FOO=1 is not the command
            i += 1
            continue
        if runner == "watch":
            return None  # watch runs its words as a shell line: keep it whole
        if runner == "chrt" and word.isdigit():  # `chrt PRIO cmd`, `chrt -p PRIO PID`
            i += 1
            continue
        if runner == "flock" and not lock_file_seen:  # `flock LOCKFILE cmd` / `flock LOCKFILE -c 'line'`
            lock_file_seen = True
            i += 1
            if i < len(words) and (words[i] in ("-c", "--command") or words[i].startswith("--command=")):
                return None
            continue
        break
    return i if i < len(words) else None
