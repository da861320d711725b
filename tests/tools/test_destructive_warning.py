"""Which shell lines get the "destructive" warning (tools/bash_readonly.is_destructive): every way to spell a
recursive or forced rm, each disk-wiping command, groups, and a line bashlex cannot parse (a pattern then
decides); and the lines that only look like one. Found by mutation testing (docs/testing/mutation.md)."""

from __future__ import annotations

import pytest

from tui_agent.tools.bash_readonly import is_destructive

DESTRUCTIVE = [
    "rm -R dir", "rm --recursive dir", "rm --force x", "rm -v -f x", "rm -i -r dir",
    "shred secret.key", "mkfs /dev/sdb", "mkfs.ext4 /dev/sdb1", "wipefs -a /dev/sdb", "truncate -s 0 app.log",
    "(rm -rf build)", "{ rm -r x; }",
    # bashlex cannot parse these: the pattern `rm -<flags with r, R or f>` decides
    "rm -rf build )", "rm -R a |", "rm -f a; fi",
]
NOT_DESTRUCTIVE = [
    "> out.txt",  # a command with no words at all
    "echo reset --hard", "echo clean -fd",  # git's subcommands, but not git's
    "rm draft.txt", "rm --verbose notes", "rm -v -i notes", "rm -X notes",  # no r, R or f among the flags
    "git", "find . -name '*.tmp'",
    "RM -RF x )", "ls -l | grep rf )",  # unparseable, and no lowercase `rm -…[rRf]`
]


@pytest.mark.parametrize("command", DESTRUCTIVE)
def test_these_lines_get_the_destructive_warning(command: str) -> None:
    assert is_destructive(command) is True


@pytest.mark.parametrize("command", NOT_DESTRUCTIVE)
def test_these_lines_do_not(command: str) -> None:
    assert is_destructive(command) is False
