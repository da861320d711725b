"""Permission rules in Claude Code's syntax: `Tool` or `Tool(specifier)`, parsed once and matched many times.

A rule for `Bash` matches a command text against a wildcard pattern; a rule for a file tool (`Read`,
`Edit`, ...) matches a resolved path against a gitignore-style pattern (see paths.py); a bare tool name
matches every call of that tool.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from .paths import PathPattern, compile_path_pattern

RuleKind = Literal["allow", "ask", "deny"]
RULE_KINDS: tuple[RuleKind, ...] = ("deny", "ask", "allow")

# Tools whose rules name paths (the engine lets `Edit` rules govern every file write, `Read` rules every read).
READ_RULE_TOOLS = frozenset({"Read", "Glob", "Grep"})
EDIT_RULE_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
PATH_RULE_TOOLS = READ_RULE_TOOLS | EDIT_RULE_TOOLS

# `mcp__server__*` (every tool of an MCP server) is the one name that may end in a star.
_RULE_RE = re.compile(r"(?P<tool>[A-Za-z_][A-Za-z0-9_\-]*(?:__\*)?)(?:\((?P<spec>.*)\))?", re.DOTALL)


class RuleError(ValueError):
    """A rule string that is not `Tool` or `Tool(specifier)`."""


@dataclass(frozen=True, slots=True)
class Rule:
    tool: str
    specifier: str | None  # None: the whole tool
    text: str  # as written, for display and for saving
    source: str  # the settings file it came from, or "--allowedTools", "session", ...
    path_pattern: PathPattern | None = field(default=None, compare=False, repr=False)
    bash_regex: re.Pattern[str] | None = field(default=None, compare=False, repr=False)

    def __str__(self) -> str:
        return self.text

    @property
    def described(self) -> str:
        return f"{self.text} in {self.source}"

    def matches_command(self, command: str) -> bool:
        """For a Bash rule: whether `command` (one simple command's text) matches."""
        if self.tool != "Bash":
            return False
        return self.bash_regex is None or self.bash_regex.fullmatch(command) is not None

    def matches_path(self, path: Path, is_dir: bool = False) -> bool:
        """For a file rule: whether the resolved `path` matches (a bare tool name matches every path)."""
        return self.path_pattern is None or self.path_pattern.matches(path, is_dir)


def parse_rule(text: str, *, source: str, rule_dir: Path, cwd: Path, home: Path) -> Rule:
    """Parse one rule string. `rule_dir` is the folder `/x` path patterns are relative to."""
    if not isinstance(text, str):
        raise RuleError(f"a rule must be a string, got {type(text).__name__}")
    stripped = text.strip()
    m = _RULE_RE.fullmatch(stripped)
    if m is None:
        raise RuleError(f"{text!r} is not a rule: expected Tool or Tool(specifier)")
    tool, spec = m["tool"], m["spec"]
    # `Bash()` and `Bash(*)` are spelled-out forms of the whole tool.
    if spec is not None and spec.strip() in ("", "*"):
        spec = None
    path_pattern = bash_regex = None
    if spec is not None and tool == "Bash":
        bash_regex = compile_bash_pattern(spec)
    elif spec is not None and tool in PATH_RULE_TOOLS:
        path_pattern = compile_path_pattern(spec.strip(), rule_dir=rule_dir, cwd=cwd, home=home)
    return Rule(tool, spec, stripped, source, path_pattern, bash_regex)


def compile_bash_pattern(spec: str) -> re.Pattern[str]:
    """`*` matches anything (`\\*` is a literal star); a trailing ` *` or the legacy `:*` mean
    "this prefix, then nothing or a space and anything", so `ls *` matches `ls` and `ls -la`, not `lsof`."""
    spec = spec.strip()
    word_prefix = False
    if spec.endswith(":*"):
        spec, word_prefix = spec[:-2], True
    elif spec.endswith(" *") and not spec.endswith("\\ *"):
        spec, word_prefix = spec[:-2].rstrip(), True
    pieces = re.split(r"(\\\*|\*)", spec)
    regex = "".join(
        ".*" if piece == "*" else re.escape("*") if piece == "\\*" else re.escape(piece) for piece in pieces
    )
    if word_prefix:
        regex += r"(?:\s.*)?"
    return re.compile(regex, re.DOTALL)


def split_rule_list(value: str) -> list[str]:
    """Split a `--allowedTools` value into rules: commas or spaces separate, except inside parentheses."""
    rules: list[str] = []
    current: list[str] = []
    depth = 0
    for ch in value:
        if ch == "(":
            depth += 1
        elif ch == ")" and depth:
            depth -= 1
        if depth == 0 and (ch == "," or ch.isspace()):
            if current:
                rules.append("".join(current))
                current = []
            continue
        current.append(ch)
    if current:
        rules.append("".join(current))
    return rules
