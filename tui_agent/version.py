"""`tui-agent -v` / `--version`: the installed distribution's version, printed as Claude Code prints its own."""

from __future__ import annotations

import argparse
import sys
from typing import Any, NoReturn, Sequence


def installed_version() -> str:
    """The version from the package metadata (pyproject.toml's, as installed); read only when asked."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("tui-agent")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown"


class VersionAction(argparse.Action):
    """Like argparse's "version" action, but the metadata is read only when the flag is given."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help="print the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> NoReturn:
        sys.stdout.write(f"{installed_version()} (tui-agent)\n")  # `claude -v`: "2.1.197 (Claude Code)"
        parser.exit(0)
