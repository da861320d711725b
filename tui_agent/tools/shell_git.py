"""Read-only git: the subcommands that only look, each with the options it may take when it only looks.

git matches an option exactly when the word is a whole option name, and some of its parsers also take a
unique prefix (`git log --no-ext-d`); so here every option is matched exactly and anything else asks. What
a repository can make git run during a read (fsmonitor, textconv, diff drivers, a pager) is switched off
separately, by `git_safety`, for every line this module passes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from .shell_options import OptionTable, parse_options

_T = OptionTable.of

# Options of git itself, before the subcommand; -c, --config-env, --exec-path and -p (a pager) are left out:
# they run programs.
_GLOBAL_FLAGS = frozenset({
    "--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs", "--glob-pathspecs", "--noglob-pathspecs",
    "--icase-pathspecs", "--no-replace-objects", "--bare",
})
_GLOBAL_VALUES = frozenset({"-C", "--git-dir", "--work-tree", "--namespace"})
# The options of the revision walker and the diff machinery that only change what is printed. Left out, so
# asking: --output (writes), --ext-diff / --textconv (run programs), --show-signature (runs gpg), -O (reads an
# order file), --stdin, --submodule, and every option not named here.
_REVISIONS_AND_DIFFS = (
    " --oneline --graph --all --branches? --tags? --remotes? --glob=V --exclude=V --decorate? --no-decorate"
    " --stat? --shortstat --numstat --name-only --name-status --summary --patch -p -u --no-patch -s --raw"
    " --patch-with-stat --patch-with-raw --compact-summary --dirstat? --cumulative --abbrev-commit"
    " --no-abbrev-commit --abbrev? --no-abbrev --full-index --binary --reverse --first-parent --merges --no-merges"
    " --follow --topo-order --date-order --author-date-order --left-right --cherry-pick --cherry-mark --cherry"
    " --boundary -z --relative-date --date=V --format=V --pretty? --since=V --after=V --until=V --before=V"
    " --author=V --committer=V --grep=V --all-match --invert-grep -i|--regexp-ignore-case -E|--extended-regexp"
    " -F|--fixed-strings --perl-regexp -n=V|--max-count=V --skip=V --min-parents=V --max-parents=V --no-min-parents"
    " --no-max-parents --ancestry-path --simplify-by-decoration --full-history --dense --sparse --simplify-merges"
    " --no-walk? --do-walk -g|--walk-reflogs --log-size --no-color --color? --color-words? --color-moved?"
    " --word-diff? --word-diff-regex=V -b|--ignore-space-change -w|--ignore-all-space --ignore-space-at-eol"
    " --ignore-blank-lines --ignore-cr-at-eol --minimal --patience --histogram --diff-algorithm=V --anchored=V"
    " -U=V|--unified=V -W|--function-context -M?|--find-renames? -C?|--find-copies? --find-copies-harder"
    " --no-renames --rename-empty --no-rename-empty -B?|--break-rewrites? --irreversible-delete -D"
    " --diff-filter=V -S=V -G=V --pickaxe-all --pickaxe-regex --find-object=V -R --relative? --no-relative"
    " -a|--text --exit-code --quiet --check --ws-error-highlight=V --src-prefix=V --dst-prefix=V --no-prefix"
    " --default-prefix --line-prefix=V --inter-hunk-context=V --no-ext-diff --no-textconv --cached --staged"
    " --merge-base --no-index -L=V --notes? --no-notes --show-notes? --encoding=V --expand-tabs? --no-expand-tabs"
    " --mailmap --no-mailmap --use-mailmap --no-use-mailmap --children --parents --full-diff --source --not"
    " --remerge-diff --diff-merges=V --no-diff-merges --combined-all-paths -m -c --cc --dd --show-pulls"
    " --in-commit-order --stat-width=V --stat-name-width=V --stat-count=V --stat-graph-width=V -t -r"
    " --output-indicator-new=V --output-indicator-old=V --output-indicator-context=V --ignore-submodules?"
)
_LOG = _T(_REVISIONS_AND_DIFFS, prefixes=False, digits="n")
_SHORTLOG = _T(
    "-n|--numbered -s|--summary -e|--email --format=V --group=V -c|--committer -w? --all --branches? --tags?"
    " --since=V --after=V --until=V --before=V --author=V --no-merges --merges --first-parent -i --grep=V"
    " --max-count=V",
    prefixes=False,
)
_STATUS = _T(
    "-s|--short -b|--branch --show-stash --porcelain? --long -v|--verbose -u?|--untracked-files? --ignore-submodules?"
    " --ignored? -z --column? --no-column --ahead-behind --no-ahead-behind --renames --no-renames --find-renames?",
    prefixes=False,
)
_REV_PARSE = _T(
    "--abbrev-ref? --short? --verify -q|--quiet --show-toplevel --show-prefix --show-cdup --git-dir --git-common-dir"
    " --absolute-git-dir --is-inside-work-tree --is-inside-git-dir --is-bare-repository --is-shallow-repository"
    " --symbolic --symbolic-full-name --all --branches? --tags? --remotes? --show-object-format? --default=V --sq"
    " --not --path-format=V --show-superproject-working-tree",
    prefixes=False,
)
_LS_FILES = _T(
    "-c|--cached -d|--deleted -m|--modified -o|--others -i|--ignored -s|--stage -u|--unmerged -k|--killed -t -v -f"
    " -z --directory --no-empty-directory --eol -x=V|--exclude=V -X=I|--exclude-from=I --exclude-per-directory=V"
    " --exclude-standard --error-unmatch --full-name --abbrev? --deduplicate --format=V",
    prefixes=False,
)
_BLAME = _T(
    "-b --root --show-stats -f|--show-name -n|--show-number -p|--porcelain --line-porcelain -l -t -s"
    " -e|--show-email -w -c --incremental --date=V -L=V -M? -C? --abbrev=V --since=V --first-parent --encoding=V"
    " --ignore-rev=V --ignore-revs-file=I --color-lines --color-by-age --minimal --contents=I -S=I --no-progress",
    prefixes=False,
)
_DESCRIBE = _T(
    "--all --tags --contains --abbrev=V --candidates=V --exact-match --debug --long --match=V --exclude=V --always"
    " --first-parent --dirty? --broken?",
    prefixes=False,
)
_BRANCH = _T(
    "-a|--all -r|--remotes -v|--verbose --list -l --show-current --color? --no-color --column? --no-column"
    " -i|--ignore-case --omit-empty --contains=V --no-contains=V --merged=V --no-merged=V --points-at=V --sort=V"
    " --format=V --abbrev=V --no-abbrev",
    prefixes=False,
)
_TAG = _T("-l|--list -n=V --sort=V --contains=V --no-contains=V --merged=V --no-merged=V --points-at=V --format=V"
          " -i|--ignore-case --column? --no-column --color?", prefixes=False)
_REMOTE = _T("-v|--verbose", prefixes=False)

_SUBCOMMANDS: dict[str, OptionTable] = {
    "status": _STATUS, "log": _LOG, "diff": _LOG, "show": _LOG, "shortlog": _SHORTLOG, "rev-parse": _REV_PARSE,
    "ls-files": _LS_FILES, "blame": _BLAME, "describe": _DESCRIBE, "branch": _BRANCH, "tag": _TAG,
    "remote": _REMOTE,
}
# What the Bash tool inserts after these subcommands: an external diff has no "off" setting, and a textconv
# driver (even one made `cat`) has git write each blob to a temporary file first.
SAFETY_FLAGS = {"diff": "--no-ext-diff --no-textconv", "log": "--no-ext-diff --no-textconv",
                "show": "--no-ext-diff --no-textconv", "blame": "--no-textconv"}
READER_NAMES: tuple[str, ...] = (*sorted(set(_SUBCOMMANDS) - {"branch", "tag", "remote"}),
                                 "branch (listing)", "tag (listing)", "remote -v")


@dataclass(slots=True)
class GitReading:
    """What a read-only git line reads: `paths` as written (operands and `-C`, `--git-dir`, `--work-tree`,
    joined to `-C`), `dirs` the folders git runs in (relative to the line's folder), and `subcommand_at` the
    index of the subcommand word when it is one of SAFETY_FLAGS."""

    paths: list[str] = field(default_factory=list)
    dirs: list[str] = field(default_factory=lambda: ["."])
    subcommand_at: int | None = None


def git_reading(words: list[str]) -> GitReading | None:
    """What `git words…` reads, or None when it is not a read-only git line."""
    i = 0
    found = GitReading()
    while i < len(words) and words[i].startswith("-"):
        name, eq, value = words[i].partition("=")
        if name in _GLOBAL_VALUES:
            if not eq:
                if i + 1 >= len(words):
                    return None
                i += 1
                value = words[i]
            elif name == "-C":
                return None  # git has no `-C=DIR`
            if name == "-C":
                found.dirs = [os.path.join(d, value) for d in found.dirs]
            elif name in ("--git-dir", "--work-tree"):
                found.paths.append(value)
                found.dirs.append(value)
        elif eq or words[i] not in _GLOBAL_FLAGS:
            return None
        i += 1
    if i >= len(words) or words[i] not in _SUBCOMMANDS:
        return None
    sub, rest = words[i], words[i + 1 :]
    parsed = parse_options(rest, _SUBCOMMANDS[sub])
    if parsed is None:
        return None
    operands = [rest[k] for k in parsed.operands]
    if sub in ("branch", "tag") and operands and not parsed.has("list"):
        return None  # `git branch NAME` / `git tag NAME` create one
    if sub == "remote" and operands:
        return None
    here = found.dirs[0]
    found.paths += [os.path.join(here, p) for p in [*parsed.inputs, *operands]]
    if "-C" in words[:i] or here != ".":
        found.paths.append(here)
    if sub in SAFETY_FLAGS:
        found.subcommand_at = i
    return found
