"""The commands a shell line may run without asking, each with every option it has.

`reading(name, words)` says what one simple command reads when it is read-only: the paths it names (each
checked by the permission engine like a Read), the trees it walks following symbolic links (checked for a
link that leads out), where a `cd` goes, and for git what `shell_git` found. It returns None when the
command is not on the list, when an option is unknown, ambiguous, or writes, runs a program, reads a list of
further files, or shows the environment, and when an operand is of a kind the command would write to.

The tables list each tool's options as GNU coreutils 9, grep 3.8, diffutils 3.8, findutils 4.9, file 5.44,
util-linux 2.38, jq 1.6 and ripgrep 14 print them in `--help`, so a prefix that getopt_long would take as a
forbidden option (`sort --co`) is never read as a harmless one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

from .shell_git import GitReading, git_reading
from .shell_options import OptionTable, parse_options


@dataclass(slots=True)
class Reading:
    """What a read-only command reads. Paths are as written (relative to the command's folder, `~` not yet
    expanded when `tilde`); `follows` are the folders it walks through symbolic links."""

    paths: list[str] = field(default_factory=list)
    follows: list[str] = field(default_factory=list)
    cd: str | None = None
    git: GitReading | None = None


_T = OptionTable.of

_LS = _T(
    "-a|--all -A|--almost-all --author -b|--escape --block-size=V -B|--ignore-backups -c -C --color? -d|--directory"
    " -D|--dired -f -F|--classify? --file-type --format=V --full-time -g --group-directories-first -G|--no-group"
    " -h|--human-readable --si -H|--dereference-command-line --dereference-command-line-symlink-to-dir --hide=V"
    " --hyperlink? --indicator-style=V -i|--inode -I=V|--ignore=V -k|--kibibytes -l -L|--dereference -m"
    " -n|--numeric-uid-gid -N|--literal -o -p -q|--hide-control-chars --show-control-chars -Q|--quote-name"
    " --quoting-style=V -r|--reverse -R|--recursive -s|--size -S --sort=V --time=V --time-style=V -t -T=V|--tabsize=V"
    " -u -U -v -w=V|--width=V -x -X -Z|--context --zero -1 --help --version"
)
_CAT = _T("-A|--show-all -b|--number-nonblank -e -E|--show-ends -n|--number -s|--squeeze-blank -t -T|--show-tabs -u"
          " -v|--show-nonprinting --help --version")
_HEAD = _T("-c=V|--bytes=V -n=V|--lines=V -q|--quiet|--silent -v|--verbose -z|--zero-terminated --help --version",
           digits="n")
_TAIL = _T("-c=V|--bytes=V -f --follow? -F -n=V|--lines=V --max-unchanged-stats=V --pid=V -q|--quiet|--silent --retry"
           " -s=V|--sleep-interval=V -v|--verbose -z|--zero-terminated --help --version", digits="n")
_WC = _T("-c|--bytes -m|--chars -l|--lines --files0-from=V! -L|--max-line-length -w|--words --total=V --help --version")
_SORT = _T(
    "-b|--ignore-leading-blanks -d|--dictionary-order -f|--ignore-case -g|--general-numeric-sort"
    " -i|--ignore-nonprinting -M|--month-sort -h|--human-numeric-sort -n|--numeric-sort -R|--random-sort"
    " --random-source=I -r|--reverse --sort=V -V|--version-sort --batch-size=V -c|--check? -C"
    " --compress-program=V! --debug --files0-from=V! -k=V|--key=V -m|--merge -o=V!|--output=V! -s|--stable"
    " -S=V|--buffer-size=V -t=V|--field-separator=V -T=V!|--temporary-directory=V! --parallel=V -u|--unique"
    " -z|--zero-terminated --help --version"
)
_UNIQ = _T("-c|--count -d|--repeated -D --all-repeated? -f=V|--skip-fields=V --group? -i|--ignore-case"
           " -s=V|--skip-chars=V -u|--unique -z|--zero-terminated -w=V|--check-chars=V --help --version")
_CUT = _T("-b=V|--bytes=V -c=V|--characters=V -d=V|--delimiter=V -f=V|--fields=V -n --complement"
          " -s|--only-delimited --output-delimiter=V -z|--zero-terminated --help --version")
_TR = _T("-c|-C|--complement -d|--delete -s|--squeeze-repeats -t|--truncate-set1 --help --version")
_NL = _T("-b=V|--body-numbering=V -d=V|--section-delimiter=V -f=V|--footer-numbering=V -h=V|--header-numbering=V"
         " -i=V|--line-increment=V -l=V|--join-blank-lines=V -n=V|--number-format=V -p|--no-renumber"
         " -s=V|--number-separator=V -v=V|--starting-line-number=V -w=V|--number-width=V --help --version")
_STAT = _T("-L|--dereference -f|--file-system --cached=V -c=V|--format=V --printf=V -t|--terse --help --version")
_DU = _T(
    "-0|--null -a|--all --apparent-size -B=V|--block-size=V -b|--bytes -c|--total -D|-H|--dereference-args"
    " -d=V|--max-depth=V --files0-from=V! --inodes -h|--human-readable -k -L|--dereference -l|--count-links -m"
    " -P|--no-dereference -S|--separate-dirs --si -s|--summarize -t=V|--threshold=V --time? --time-style=V"
    " -X=I|--exclude-from=I --exclude=V -x|--one-file-system --help --version"
)
_DF = _T("-a|--all -B=V|--block-size=V -h|--human-readable -H|--si -i|--inodes -k -l|--local --no-sync --output?"
         " -P|--portability --sync --total -t=V|--type=V -T|--print-type -x=V|--exclude-type=V -v --help --version")
_DATE = _T("-d=V|--date=V --debug -f=I|--file=I -I?|--iso-8601? --resolution -R|--rfc-email --rfc-3339=V"
           " -r=I|--reference=I -s=V!|--set=V! -u|--utc|--universal --help --version")
_DIFF = _T(
    "--normal -q|--brief -s|--report-identical-files -c -C=V|--context? -u -U=V|--unified? -e|--ed -n|--rcs"
    " -y|--side-by-side -W=V|--width=V --left-column --suppress-common-lines -p|--show-c-function"
    " -F=V|--show-function-line=V --label=V -t|--expand-tabs -T|--initial-tab --tabsize=V --suppress-blank-empty"
    " -l|--paginate! -r|--recursive --no-dereference -N|--new-file --unidirectional-new-file --ignore-file-name-case"
    " --no-ignore-file-name-case -x=V|--exclude=V -X=I|--exclude-from=I -S=V|--starting-file=V --from-file=I"
    " --to-file=I -i|--ignore-case -E|--ignore-tab-expansion -Z|--ignore-trailing-space -b|--ignore-space-change"
    " -w|--ignore-all-space -B|--ignore-blank-lines -I=V|--ignore-matching-lines=V -a|--text --strip-trailing-cr"
    " -D=V|--ifdef=V --GTYPE-group-format=V --line-format=V --LTYPE-line-format=V --old-group-format=V"
    " --new-group-format=V --changed-group-format=V --unchanged-group-format=V --old-line-format=V"
    " --new-line-format=V --unchanged-line-format=V -d|--minimal --horizon-lines=V --speed-large-files --color?"
    " --palette=V --help -v|--version"
)
_CMP = _T("-b|--print-bytes -i=V|--ignore-initial=V -l|--verbose -n=V|--bytes=V -s|--quiet|--silent --help -v|--version")
_SUM = _T("-b|--binary -c!|--check! --tag -t|--text -z|--zero --ignore-missing --quiet --status --strict -w|--warn"
          " --help --version")
_BASENAME = _T("-a|--multiple -s=V|--suffix=V -z|--zero --help --version")
_DIRNAME = _T("-z|--zero --help --version")
_REALPATH = _T("-e|--canonicalize-existing -m|--canonicalize-missing -L|--logical -P|--physical -q|--quiet"
               " --relative-to=I --relative-base=I -s|--strip|--no-symlinks -z|--zero --help --version")
_READLINK = _T("-f|--canonicalize -e|--canonicalize-existing -m|--canonicalize-missing -n|--no-newline"
               " -q|--quiet -s|--silent -v|--verbose -z|--zero --help --version")
_SEQ = _T("-f=V|--format=V -s=V|--separator=V -w|--equal-width --help --version")
_ID = _T("-a -Z|--context -g|--group -G|--groups -n|--name -r|--real -u|--user -z|--zero --help --version")
_UNAME = _T("-a|--all -s|--kernel-name -n|--nodename -r|--kernel-release -v|--kernel-version -m|--machine"
            " -p|--processor -i|--hardware-platform -o|--operating-system --help --version")
_WHOAMI = _T("--help --version")
_HOSTNAME = _T("-a|--alias -A|--all-fqdns -b!|--boot! -d|--domain -f|--fqdn|--long -F=V!|--file=V! -i|--ip-address"
               " -I|--all-ip-addresses -s|--short -y!|--yp!|--nis! -h|--help -V|--version")
# file: -C writes a compiled magic file, -f reads a list of files, -z/-Z may run decompressors, -S drops
# file's own seccomp sandbox.
_FILE = _T(
    "--apple -b|--brief -c|--checking-printout -C!|--compile! -d|--debug -e=V|--exclude=V --exclude-quiet=V"
    " --extension -f=V!|--files-from=V! -F=V|--separator=V -i|--mime --mime-type --mime-encoding -k|--keep-going"
    " -l|--list -L|--dereference -h|--no-dereference -m=I|--magic-file=I -n|--no-buffer -N|--no-pad"
    " -0|--print0 -p|--preserve-date! -P=V|--parameter=V -r|--raw -s|--special-files -S!|--no-sandbox!"
    " -z!|--uncompress! -Z!|--uncompress-noreport! --help -v|--version"
)
_GREP = _T(
    "-E|--extended-regexp -F|--fixed-strings -G|--basic-regexp -P|--perl-regexp -e=V|--regexp=V -f=V!|--file=V!"
    " -i|-y|--ignore-case --no-ignore-case -v|--invert-match -w|--word-regexp -x|--line-regexp -c|--count"
    " --color?|--colour? -L|--files-without-match -l|--files-with-matches -m=V|--max-count=V -o|--only-matching"
    " -q|--quiet|--silent -s|--no-messages -b|--byte-offset -H|--with-filename -h|--no-filename --label=V"
    " -n|--line-number --line-buffered -T|--initial-tab -Z|--null -A=V|--after-context=V -B=V|--before-context=V"
    " -C=V|--context=V --group-separator=V --no-group-separator -a|--text --binary-files=V -D=V|--devices=V"
    " -d=V|--directories=V --exclude=V --exclude-from=I --exclude-dir=V --include=V -r|--recursive"
    " -R|--dereference-recursive -U|--binary -z|--null-data --help -V|--version",
    digits="C",
)
_COLUMN = _T(
    "-J|--json -n=V|--table-name=V -O=V|--table-order=V -N=V|--table-columns=V -l=V|--table-columns-limit=V"
    " -E=V|--table-noextreme=V -d|--table-noheadings -m|--table-maxout -e|--table-header-repeat -H=V|--table-hide=V"
    " -R=V|--table-right=V -T=V|--table-truncate=V -W=V|--table-wrap=V -L|--keep-empty-lines -r=V|--tree=V"
    " -i=V|--tree-id=V -p=V|--tree-parent=V -c=V|--output-width=V -o=V|--output-separator=V -s=V|--separator=V"
    " -t|--table -x|--fillrows -h|--help -V|--version"
)
# ripgrep matches long options exactly. --pre and --hostname-bin run programs, -z runs decompressors; -f
# (grep's too) reads patterns from a file, an input named by no argument the line shows.
_RG = _T(
    "-e=V|--regexp=V -f=V!|--file=V! --pre=V! --pre-glob=V! -z!|--search-zip! --hostname-bin=V! --hyperlink-format=V!"
    " -A=V|--after-context=V -B=V|--before-context=V -C=V|--context=V -a|--text --binary --no-binary"
    " -b|--byte-offset --no-byte-offset -s|--case-sensitive -i|--ignore-case -S|--smart-case --color=V --colors=V"
    " --column --no-column --context-separator=V --no-context-separator -c|--count --count-matches --crlf --no-crlf"
    " --debug --trace --dfa-size-limit=V -E=V|--encoding=V --no-encoding --engine=V --field-context-separator=V"
    " --field-match-separator=V --files -l|--files-with-matches --files-without-match -F|--fixed-strings"
    " --no-fixed-strings -L|--follow --no-follow -g=V|--glob=V --glob-case-insensitive --no-glob-case-insensitive"
    " --heading --no-heading -H|--with-filename -I|--no-filename --hidden --no-hidden --iglob=V"
    " --ignore-file=I --ignore-file-case-insensitive --no-ignore-file-case-insensitive --include-zero"
    " --no-include-zero --line-buffered --block-buffered -n|--line-number -N|--no-line-number -x|--line-regexp"
    " -M=V|--max-columns=V --max-columns-preview --no-max-columns-preview -m=V|--max-count=V -d=V|--max-depth=V"
    " --maxdepth=V --max-filesize=V --mmap --no-mmap -U|--multiline --no-multiline --multiline-dotall"
    " --no-multiline-dotall --no-config --no-ignore --ignore --no-ignore-dot --ignore-dot --no-ignore-exclude"
    " --ignore-exclude --no-ignore-files --ignore-files --no-ignore-global --ignore-global --no-ignore-messages"
    " --ignore-messages --no-ignore-parent --ignore-parent --no-ignore-vcs --ignore-vcs --no-messages --messages"
    " --no-require-git --require-git --no-unicode --unicode -0|--null --null-data --one-file-system"
    " --no-one-file-system -o|--only-matching --no-only-matching --path-separator=V --passthru|--passthrough"
    " -P|--pcre2 --no-pcre2 --pcre2-version -p|--pretty -q|--quiet --regex-size-limit=V -r=V|--replace=V"
    " --sort=V --sortr=V --sort-files --no-sort-files --stats --no-stats --stop-on-nonmatch -a|--text -j=V|--threads=V"
    " --trim --no-trim -t=V|--type=V -T=V|--type-not=V --type-add=V --type-clear=V --type-list -u|--unrestricted"
    " -v|--invert-match --no-invert-match --vimgrep -w|--word-regexp --json --no-json -h|--help -V|--version",
    prefixes=False,
)
# jq matches long options exactly. -f reads the program from a file, -L and `import` load modules, --args
# makes the operands data, and the program text itself is checked in `_jq`.
_JQ = _T(
    "-r|--raw-output -j|--join-output -a|--ascii-output -c|--compact-output -n|--null-input -e|--exit-status"
    " -s|--slurp -S|--sort-keys -C|--color-output -M|--monochrome-output --tab --indent=V -R|--raw-input --seq"
    " --stream --stream-errors --unbuffered --arg=VV --argjson=VV --rawfile=VI --slurpfile=VI -f=V!|--from-file=V!"
    " -L=V! --args! --jsonargs! --raw-output0 -0 -h|--help -V|--version",
    prefixes=False,
)
# tree matches long options exactly. -o writes the listing to a file, -R writes 00Tree.html in every
# folder, --fromfile reads the paths from a file.
_TREE = _T(
    "-a -d -l -f -x -L=V -R! -P=V -I=V --gitignore --gitfile=V! --ignore-case --matchdirs --metafirst --prune"
    " --info --infofile=V! --noreport --charset=V --filelimit=V --timefmt=V -o=V! -q -N -Q -p -u -g -s -h --si --du"
    " -D -F --inodes --device -v -t -c -U -r --dirsfirst --filesfirst --sort=V -i -A -S -n -C -X -J -H=V -T=V"
    " --nolinks --hintro=V --houtro=V --fromfile! --fromtabfile! --fflinks --help --version",
    prefixes=False,
)
_PWD = _T("-L -P", prefixes=False)
_CD = _T("-L -P -e -@", prefixes=False)
_WHICH = _T("-a -s", prefixes=False)
_TYPE = _T("-a -f -P -p -t", prefixes=False)
_NONE = _T("", prefixes=False)

_PATH_OPERANDS: dict[str, OptionTable] = {
    "ls": _LS, "cat": _CAT, "head": _HEAD, "tail": _TAIL, "wc": _WC, "sort": _SORT, "nl": _NL, "stat": _STAT,
    "du": _DU, "df": _DF, "diff": _DIFF, "cmp": _CMP, "md5sum": _SUM, "sha1sum": _SUM, "sha256sum": _SUM,
    "sha512sum": _SUM, "realpath": _REALPATH, "readlink": _READLINK, "file": _FILE, "column": _COLUMN, "tree": _TREE,
}
_NO_PATH_OPERANDS: dict[str, OptionTable] = {
    "cut": _CUT, "seq": _SEQ, "id": _ID, "uname": _UNAME, "whoami": _WHOAMI, "basename": _BASENAME,
    "dirname": _DIRNAME, "pwd": _PWD, "which": _WHICH, "type": _TYPE, "sleep": _NONE, "true": _NONE, "false": _NONE,
}
# cut reads files too: its operands are paths, but the table above keeps its values apart.
_NO_PATH_OPERANDS.pop("cut")
_PATH_OPERANDS["cut"] = _CUT

# Recursion that follows symbolic links: (option names that recurse, option names that follow). None: the
# command always recurses / always follows while it recurses.
_FOLLOWERS: dict[str, tuple[tuple[str, ...] | None, tuple[str, ...] | None]] = {
    "ls": (("recursive",), None),  # ls -R lists what is behind a link only with -L, but a link's name and size show
    "du": (None, ("dereference",)),
    "diff": (("recursive",), None),  # diff follows links unless --no-dereference
    "tree": (None, ("l",)),
}
# In a jq program: modules (import, include, modulemeta) and the environment (`env`, `$ENV`); `.env` is a key.
_JQ_FORBIDDEN = re.compile(
    r"(?<![.$\w])(import|include|modulemeta|env|get_search_list|get_prog_origin|get_jq_origin)\b|\$ENV\b|\$__"
)


def reading(name: str, words: list[str]) -> Reading | None:
    """What the read-only command `name words…` reads, or None when it is not read-only."""
    special = _SPECIAL.get(name)
    if special is not None:
        return special(words)
    table = _PATH_OPERANDS.get(name) or _NO_PATH_OPERANDS.get(name)
    if table is None:
        return None
    parsed = parse_options(words, table, permute=name not in ("pwd", "cd", "which", "type"))
    if parsed is None:
        return None
    if name in ("pwd", "whoami", "uname") and parsed.operands:
        return None  # they take no operands; keep to the forms that mean what they say
    found = Reading(list(parsed.inputs))
    if name in _PATH_OPERANDS:
        found.paths += [words[i] for i in parsed.operands if words[i] != "-"]
    follows = _FOLLOWERS.get(name)
    if follows is not None:
        recurse, follow = follows
        if (recurse is None or parsed.has(*recurse)) and (follow is None or parsed.has(*follow)):
            if not (name == "diff" and parsed.has("no-dereference")):
                found.follows += [words[i] for i in parsed.operands] or ["."]
    return found


def _echo(words: list[str]) -> Reading | None:
    # bash's echo takes only leading words made of n, e, E as options; everything else is printed.
    return Reading()


def _printf(words: list[str]) -> Reading | None:
    # `printf -v NAME` assigns a variable; a format is fine.
    if not words or (words[0].startswith("-") and words[0] != "--"):
        return None
    return Reading()


def _test(words: list[str]) -> Reading | None:
    # `test -v 'a[$(cmd)]'` evaluates the subscript, running cmd; -R looks a name up the same way.
    return None if any(w in ("-v", "-R") for w in words) else Reading()


def _bracket(words: list[str]) -> Reading | None:
    return _test(words[:-1]) if words and words[-1] == "]" else None


def _cd(words: list[str]) -> Reading | None:
    parsed = parse_options(words, _CD, permute=False)
    if parsed is None or len(parsed.operands) > 1:
        return None
    target = words[parsed.operands[0]] if parsed.operands else "~"
    if target == "-":
        return None
    return Reading([target], cd=target)


def _tr(words: list[str]) -> Reading | None:
    parsed = parse_options(words, _TR)
    return Reading() if parsed is not None else None


def _uniq(words: list[str]) -> Reading | None:
    parsed = parse_options(words, _UNIQ)
    if parsed is None or len(parsed.operands) > 1:
        return None  # `uniq IN OUT` writes OUT
    return Reading([words[i] for i in parsed.operands if words[i] != "-"])


def _date(words: list[str]) -> Reading | None:
    parsed = parse_options(words, _DATE)
    if parsed is None or any(not words[i].startswith("+") for i in parsed.operands):
        return None  # `date MMDDhhmm` sets the clock
    return Reading(list(parsed.inputs))


def _hostname(words: list[str]) -> Reading | None:
    parsed = parse_options(words, _HOSTNAME)
    if parsed is None or parsed.operands:
        return None  # `hostname NAME` renames the machine
    return Reading()


def _grep(words: list[str], table: OptionTable = _GREP) -> Reading | None:
    parsed = parse_options(words, table)
    if parsed is None:
        return None
    operands = [words[i] for i in parsed.operands]
    if not parsed.has("regexp"):
        if not operands:
            return None
        operands = operands[1:]  # the pattern
    found = Reading(list(parsed.inputs) + [o for o in operands if o != "-"])
    if parsed.has("dereference-recursive"):  # -r follows only the links named on the command line
        found.follows += operands or ["."]
    return found


def _rg(words: list[str]) -> Reading | None:
    parsed = parse_options(words, _RG)
    if parsed is None:
        return None
    operands = [words[i] for i in parsed.operands]
    if not parsed.has("regexp", "files", "type-list", "help", "version", "pcre2-version"):
        if not operands:
            return None
        operands = operands[1:]
    found = Reading(list(parsed.inputs) + [o for o in operands if o != "-"])
    if parsed.has("follow"):
        found.follows += operands or ["."]
    return found


def _jq(words: list[str]) -> Reading | None:
    parsed = parse_options(words, _JQ)
    if parsed is None:
        return None
    operands = [words[i] for i in parsed.operands]
    if not parsed.has("help", "version"):
        if not operands or _JQ_FORBIDDEN.search(operands[0]):
            return None  # the program may load modules or print the environment
        operands = operands[1:]
    return Reading(list(parsed.inputs) + [o for o in operands if o != "-"])


_FIND_TESTS_WITH_VALUE = frozenset({
    "-amin", "-atime", "-cmin", "-ctime", "-mmin", "-mtime", "-used", "-fstype", "-gid", "-group", "-ilname",
    "-iname", "-inum", "-ipath", "-iregex", "-iwholename", "-links", "-lname", "-name", "-path", "-perm", "-regex",
    "-size", "-type", "-uid", "-user", "-wholename", "-xtype", "-context", "-maxdepth", "-mindepth", "-regextype",
    "-printf",
})
_FIND_TESTS_WITH_FILE = frozenset({"-anewer", "-cnewer", "-newer", "-samefile"})
_FIND_FLAGS = frozenset({
    "-daystart", "-depth", "-d", "-follow", "-ignore_readdir_race", "-noignore_readdir_race", "-mount", "-noleaf",
    "-xdev", "-empty", "-executable", "-false", "-nogroup", "-nouser", "-readable", "-true", "-writable", "-print",
    "-print0", "-ls", "-prune", "-quit", "-not", "!", "-a", "-and", "-o", "-or", ",", "(", ")", "-help", "--help",
    "-version", "--version",
})
_FIND_NEWER_XY = re.compile(r"^-newer[aBcm][aBcmt]$")


def _find(words: list[str]) -> Reading | None:
    """find's own syntax: options, then start folders, then an expression of tests and actions."""
    i = 0
    follow = False
    while i < len(words):
        if words[i] in ("-H", "-L", "-P"):
            follow = follow or words[i] == "-L"
            i += 1
        elif words[i] in ("-D", "-O"):
            i += 2
        elif words[i].startswith("-O") and words[i][2:].isdigit():
            i += 1
        else:
            break
    starts: list[str] = []
    while i < len(words) and not (words[i].startswith("-") or words[i] in ("!", "(", ")", ",")):
        starts.append(words[i])
        i += 1
    found = Reading(list(starts) or ["."])
    while i < len(words):
        word = words[i]
        if word in _FIND_TESTS_WITH_VALUE or word in _FIND_TESTS_WITH_FILE or _FIND_NEWER_XY.match(word):
            if i + 1 >= len(words):
                return None
            if word in _FIND_TESTS_WITH_FILE or (_FIND_NEWER_XY.match(word) and not word.endswith("t")):
                found.paths.append(words[i + 1])
            i += 2
            continue
        if word not in _FIND_FLAGS:
            return None  # -exec, -delete, -fprint, -files0-from, ... and anything unknown
        follow = follow or word == "-follow"
        i += 1
    if follow:
        found.follows += starts or ["."]
    return found


def _git(words: list[str]) -> Reading | None:
    found = git_reading(words)
    if found is None:
        return None
    return Reading(found.paths, git=found)


_SPECIAL: dict[str, Callable[[list[str]], Reading | None]] = {
    "echo": _echo, "printf": _printf, "test": _test, "[": _bracket, "cd": _cd, "tr": _tr, "uniq": _uniq,
    "date": _date, "hostname": _hostname, "grep": _grep, "egrep": _grep, "fgrep": _grep, "rg": _rg, "jq": _jq,
    "find": _find, "git": _git,
}

READER_NAMES: tuple[str, ...] = tuple(sorted({*_PATH_OPERANDS, *_NO_PATH_OPERANDS, *_SPECIAL}))
