"""A command's options, parsed the way the command itself parses them.

A read-only check that matches option names by hand can be walked around: GNU tools take any unique prefix
of a long option (`sort --co=sh` is `--compress-program=sh`), bundle short ones (`-rno FILE`), take a
value glued on or in the next word, and keep reading options after the operands. So each command gets a
table (`OptionTable`) that lists every option it has — the harmless ones and the ones that write, run a
program or read a list of further files — and `parse_options` reads the words as getopt_long does. An
option that is not in the table, an ambiguous prefix, or a forbidden option makes the words unreadable
(None): the line then asks.

Tables are written as a small spec string, one option per token, aliases joined with `|`:
`-a|--all` a flag; `-n=V|--lines=V` a required value; `--color?` an optional value (only as `--color=X`);
`=I` a value that is a path the command reads; `=VV` / `=VI` two values, the second plain or a path read
(jq's `--arg NAME VALUE`, `--rawfile NAME FILE`); `!` an option that is never read-only (`-o=V!` takes a value
and is forbidden). `prefixes=False` is for programs that match long options exactly (git, rg, jq, tree).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Kind = Literal["flag", "value", "optional", "input", "pair", "pair_input"]


@dataclass(frozen=True, slots=True)
class Option:
    name: str  # the canonical name: its first long name, else its short letter
    kind: Kind
    forbidden: bool = False


@dataclass(frozen=True, slots=True)
class OptionTable:
    short: dict[str, Option]
    long: dict[str, Option]
    prefixes: bool = True  # getopt_long: a unique prefix of a long option is that option
    digits: str | None = None  # `head -20`, `grep -3`: a number as an option, meaning this one

    @classmethod
    def of(cls, spec: str, *, prefixes: bool = True, digits: str | None = None) -> "OptionTable":
        short: dict[str, Option] = {}
        long: dict[str, Option] = {}
        for token in spec.split():
            forbidden = token.endswith("!")
            names = token.rstrip("!").split("|")
            bare = [n.split("=")[0].rstrip("?") for n in names]
            longs = [b[2:] for b in bare if b.startswith("--")]
            canonical = longs[0] if longs else bare[0][1:]
            # Each spelling has its own kind: sort's `-c` is a flag where `--check` takes an optional value.
            for name, b in zip(names, bare):
                option = Option(canonical, _kind_of(name), forbidden)
                if b.startswith("--"):
                    long[b[2:]] = option
                else:
                    short[b[1:]] = option
        return cls(short, long, prefixes, digits)


def _kind_of(name: str) -> Kind:
    if name.endswith("=VV"):
        return "pair"  # jq --arg NAME VALUE
    if name.endswith("=VI"):
        return "pair_input"  # jq --rawfile NAME FILE
    if name.endswith("?"):
        return "optional"
    if name.endswith("=I"):
        return "input"
    return "value" if "=" in name else "flag"


@dataclass(slots=True)
class Parsed:
    """The options found (canonical name, value or None) and the operands, in order."""

    options: list[tuple[str, str | None]] = field(default_factory=list)
    operands: list[int] = field(default_factory=list)  # indexes into the words
    inputs: list[str] = field(default_factory=list)  # values of options that name a file read

    def has(self, *names: str) -> bool:
        return any(n in names for n, _ in self.options)

    def values(self, *names: str) -> list[str]:
        return [v for n, v in self.options if n in names and v is not None]


def parse_options(words: list[str], table: OptionTable, *, permute: bool = True) -> Parsed | None:
    """Read `words` (after the command name) as getopt_long would with `table`; None when a word is an
    unknown, ambiguous or forbidden option, or an option lacks its value. With `permute` (GNU's default)
    options may follow operands; `--` ends the options either way."""
    parsed = Parsed()
    i = 0
    options_done = False
    while i < len(words):
        word = words[i]
        i += 1
        if options_done or word == "-" or not word.startswith("-"):
            parsed.operands.append(i - 1)
            if not permute:
                options_done = True
            continue
        if word == "--":
            options_done = True
            continue
        if word.startswith("--"):
            taken = _long(word[2:], words, i, table, parsed)
        else:
            taken = _short(word[1:], words, i, table, parsed)
        if taken is None:
            return None
        i += taken
    return parsed


def _long(text: str, words: list[str], i: int, table: OptionTable, parsed: Parsed) -> int | None:
    name, eq, value = text.partition("=")
    option = table.long.get(name)
    if option is None and table.prefixes and name:
        candidates = {o for n, o in table.long.items() if n.startswith(name)}
        option = candidates.pop() if len(candidates) == 1 else None  # none, or ambiguous
    if option is None or option.forbidden:
        return None
    if option.kind == "flag":
        if eq:
            return None
        parsed.options.append((option.name, None))
        return 0
    if option.kind == "optional":
        parsed.options.append((option.name, value if eq else None))
        return 0
    if option.kind in ("pair", "pair_input"):
        return _pair(option, words, i, parsed) if not eq else None
    if not eq:
        if i >= len(words):
            return None
        value = words[i]
    _take(option, value, parsed)
    return 0 if eq else 1


def _short(cluster: str, words: list[str], i: int, table: OptionTable, parsed: Parsed) -> int | None:
    if table.digits is not None and cluster.isdigit():
        option = table.short.get(table.digits)
        if option is None or option.forbidden:
            return None
        _take(option, cluster, parsed)
        return 0
    for k, letter in enumerate(cluster):
        option = table.short.get(letter)
        if option is None or option.forbidden:
            return None
        rest = cluster[k + 1 :]
        if option.kind == "flag":
            parsed.options.append((option.name, None))
            continue
        if option.kind == "optional":
            parsed.options.append((option.name, rest or None))
            return 0
        if option.kind in ("pair", "pair_input"):
            return _pair(option, words, i, parsed) if not rest else None
        if rest:
            _take(option, rest, parsed)
            return 0
        if i >= len(words):
            return None
        _take(option, words[i], parsed)
        return 1
    return 0


def _pair(option: Option, words: list[str], i: int, parsed: Parsed) -> int | None:
    if i + 1 >= len(words):
        return None
    parsed.options.append((option.name, words[i + 1]))
    if option.kind == "pair_input":
        parsed.inputs.append(words[i + 1])
    return 2


def _take(option: Option, value: str, parsed: Parsed) -> None:
    parsed.options.append((option.name, value))
    if option.kind == "input":
        parsed.inputs.append(value)
