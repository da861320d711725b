"""A grammar of shell lines for the runtime proof of the read-only classifier (issue 23).

Mostly everyday read-only lines (so that many reach execution), salted with what broke the old classifier:
GNU long-option abbreviations (`--co=sh`, `--outp=F`), inputs that name files (`--files0-from=`, `--check`),
quoting of every kind, expansions that execute (`${x@P}`, `${!x}`, `${HOME:x:1}`, `$(…)`, here-documents),
redirects, paths through the `docs/keys -> ~/.ssh` symlink and `..`, files named like options, and a few
commands that are not on the allowlist at all. Names come from the classifier's own lists at import time.
"""

from __future__ import annotations

from hypothesis import strategies as st

from tui_agent.tools import bash_readonly

from .readonly_proof_support import Scratch

ALLOWLISTED: tuple[str, ...] = tuple(bash_readonly.READER_NAMES)
# "branch (listing)", "remote -v": the subcommand, then the words the listing form takes.
GIT_FORMS: tuple[tuple[str, ...], ...] = tuple(tuple(n.replace("(listing)", "").split()) for n in bash_readonly.GIT_READER_NAMES)
NOT_ALLOWLISTED = ("sh", "python3", "touch", "tee", "xargs", "sed", "awk", "env", "printenv", "read", "less",
                   "nohup", "timeout", "./cat", "/bin/cat", "command", "eval", "gzip")

# Long options by command, full names: `{P}` an input path, `{O}` an output path, `{L}` a list of names,
# `{X}` a program, `{T}` text. Each may be drawn whole or cut to a prefix, as getopt_long accepts it.
LONG: dict[str, tuple[str, ...]] = {
    "sort": ("--compress-program={X}", "--output={O}", "--files0-from={L}", "--temporary-directory={O}",
             "--random-source={P}", "--numeric-sort", "--reverse", "--unique", "--buffer-size=1", "--debug"),
    "uniq": ("--count", "--repeated", "--skip-fields=1", "--unique"),
    "date": ("--set=2020-01-01", "--file={P}", "--reference={P}", "--date=@0", "--utc", "--iso-8601"),
    "hostname": ("--file={P}", "--fqdn", "--short", "--boot", "--all-ip-addresses"),
    "file": ("--compile", "--magic-file={P}", "--files-from={L}", "--brief", "--mime", "--uncompress", "--dereference"),
    "grep": ("--file={P}", "--recursive", "--dereference-recursive", "--include=*.py", "--files-with-matches",
             "--regexp={T}", "--line-number", "--devices=read", "--count"),
    "rg": ("--pre={X}", "--search-zip", "--follow", "--hostname-bin={X}", "--ignore-file={P}", "--files",
           "--hidden", "--no-ignore", "--line-number"),
    "ls": ("--recursive", "--dereference", "--all", "--format=long", "--hide={T}", "--directory", "--sort=size"),
    "head": ("--lines=2", "--bytes=5", "--quiet"), "tail": ("--lines=2", "--bytes=5", "--quiet"),
    "cat": ("--show-all", "--number", "--squeeze-blank"),
    "wc": ("--files0-from={L}", "--lines", "--bytes", "--max-line-length"),
    "du": ("--files0-from={L}", "--dereference", "--all", "--summarize", "--max-depth=1", "--exclude-from={P}"),
    "df": ("--all", "--output=source", "--human-readable", "--inodes"),
    "diff": ("--recursive", "--paginate", "--from-file={P}", "--to-file={P}", "--new-file", "--unified",
             "--brief", "--exclude-from={P}"),
    "cmp": ("--bytes=4", "--verbose", "--print-bytes", "--ignore-initial=1"),
    "md5sum": ("--check", "--tag", "--zero"), "sha1sum": ("--check", "--tag"), "sha256sum": ("--check", "--tag"),
    "stat": ("--dereference", "--format=%n", "--file-system", "--printf=%s"),
    "cut": ("--delimiter=/", "--fields=1", "--bytes=1", "--output-delimiter={T}"),
    "realpath": ("--canonicalize-existing", "--relative-to={P}", "--no-symlinks", "--logical"),
    "readlink": ("--canonicalize", "--canonicalize-existing", "--no-newline"),
    "column": ("--table", "--separator=:", "--output-separator={T}"),
    "jq": ("--from-file={P}", "--null-input", "--raw-output", "--sort-keys", "--tab"),
    "nl": ("--body-numbering=a",), "tr": ("--delete", "--squeeze-repeats"), "basename": ("--suffix=.py", "--multiple"),
    "tree": ("--fromfile", "--noreport"),
}
SHORT: dict[str, tuple[str, ...]] = {
    "sort": ("-o {O}", "-S 1", "-T {O}", "-n", "-r", "-u", "-k1", "-rn"), "uniq": ("-c", "-d", "-u"),
    "date": ("-s 2020-01-01", "-f {P}", "-r {P}", "-u", "+%Y"), "hostname": ("-F {P}", "-f", "-s", "-b"),
    "file": ("-C", "-m {P}", "-f {L}", "-b", "-z", "-L"), "grep": ("-f {P}", "-R", "-r", "-n", "-l", "-e {T}", "-rn", "-E"),
    "rg": ("-z", "-L", "-n", "-l", "-uu", "-e {T}"), "ls": ("-la", "-R", "-L", "-1", "-d", "-I {T}", "-lR"),
    "head": ("-n 2", "-c 5", "-2"), "tail": ("-n 2", "-c 5", "-3"), "cat": ("-A", "-n", "-v"), "wc": ("-l", "-c", "-w"),
    "du": ("-sh", "-L", "-a", "-d 1"), "diff": ("-r", "-l", "-u", "-q", "-N"), "find": ("-L",),
    "stat": ("-L", "-c %n"), "cut": ("-d / -f 1", "-c 1"), "readlink": ("-f", "-e"), "column": ("-t",),
    "jq": ("-n", "-r", "-L {P}", "-f {P}", "--rawfile v {P}", "--slurpfile v {P}", "--arg v {T}"),
    "seq": ("-w", "-s ,"), "echo": ("-n", "-e"), "test": ("-f", "-e", "-r", "-d"), "tree": ("-o {O}", "-R", "-a", "-L 2"),
    "uname": ("-a", "-r"), "id": ("-u",), "which": ("-a",), "type": ("-a",), "cmp": ("-l",), "nl": ("-ba",),
}
FIND_PRIMARIES = ("-name '*.py'", "-type f", "-maxdepth 1", "-delete", "-exec sh -c 'touch pwned' \\;", "-fprint {O}",
                  "-fls {O}", "-newer {P}", "-files0-from {L}", "-follow", "-print", "-execdir cat {} +", "-ok cat {} \\;")
GIT_GLOBAL = ("-C sub", "-C ..", "--git-dir=.git", "--no-pager", "-c core.pager=sh", "--exec-path=.", "--work-tree=..",
              "--paginate")
GIT_OPTIONS = ("--ext-diff", "--ext", "--textconv", "--text", "--output={O}", "--outp={O}", "--ou={O}", "--no-index",
               "-p", "--stat", "--oneline", "-n 2", "--format=%H", "--show-signature", "--show-sig", "-O{P}",
               "--all", "--name-only", "--porcelain", "--contents={P}", "--ignore-revs-file={P}", "--dirty",
               "--untracked-files=all", "--ignored", "-a", "-v", "--list", "HEAD", "HEAD~1", "-- src", "src/a.py",
               "HEAD:src/a.py", "--exclude-from={P}", "-X {P}", "--show-toplevel", "--git-path config")

# Commands that take no operands in everyday use.
_BARE = frozenset({"whoami", "pwd", "uname", "id", "true", "false", "hostname", "df", "date", "env", "printenv"})

_W = "{W}"  # the workspace's absolute path
_H = "{H}"  # the scratch home's absolute path
INPUT_PATHS = (
    "src/a.py", "src", "README.md", "data.json", "big.txt", "docs", "docs/readme.md", "docs/keys", "docs/keys/id_rsa",
    "docs/keys/../.docker/config.json", "docs/keys/../secret.key", "docs/keys/..", "sub", "sub/../src/a.py", "..",
    "../", "./-delete", "-delete", "--files0-from=list0", "list0", "names.txt", "sums.txt", "x.gz", "*.py", "src/*",
    "*", ".git/config", "/etc/hostname", "/dev/null", f"{_W}/src/a.py", f"{_H}/.ssh/id_rsa", f"{_H}/secret.key",
    "~/.ssh/id_rsa", "~", "~+/src/a.py", ".", "/proc/self/environ", "/proc/1/environ", "-", "/dev/stdin",
    "payload.txt", "docs/keys/", f"{_W}/docs/keys/../secret.key", "hostname.txt",
)
# Everyday operands inside the workspace: half of all paths, so that many lines reach execution.
SAFE_PATHS = ("src/a.py", "src", "README.md", "data.json", "big.txt", "docs/readme.md", "sub", "sub/c.txt", ".", "src/b.txt")
OUTPUT_PATHS = ("out", ".git/config", "src/a.py", "docs/keys/x", "/tmp/out", f"{_H}/.bashrc", "/dev/null", "-")
LISTS = ("list0", "-", "names.txt", f"{_W}/list0")
PROGRAMS = ("sh", "./x", "cat", "gzip", "'sh -c id'")
TEXTS = ("x", "TODO", "a", ".", ".name", "FAKE", "'a b'", "%s", "\\n")
INNER = ("touch pwned", "cat docs/keys/id_rsa", "sh -c id", "ls", "echo hi", "cat ~/.ssh/id_rsa", "cat src/a.py")
PAYLOADS = ("$(touch pwned)", "a[$(touch pwned)]", "ANTHROPIC_API_KEY", "HOME", "\\$(touch pwned)", "`touch pwned`")
JQ_PROGRAMS = (".", ".name", "'.name'", "'import \"config\" as $c {search: \"~/.docker\"}; $c'",
               "'$ENV.ANTHROPIC_API_KEY'", "env", "'input_filename'", "'include \"x\"; .'", "'$__loc__'")
HEREDOC_OPENERS = ("<<EOF", "<<'EOF'", '<<"EOF"', "<<-EOF", "<<\\EOF", '<<E"O"F')
HEREDOC_BODIES = ("plain text", "$(touch pwned-hd)", "`touch pwned-bq`", "$HOME", "${x@P}", "$ANTHROPIC_API_KEY",
                  "$(cat docs/keys/id_rsa)", "a $((1+1)) b")
REDIRECTS = ("< {P}", "> {O}", ">> {O}", "2>/dev/null", ">/dev/null", "2>&1", "&>/dev/null", "<<< {T}",
             "<<< \"$(touch pwned-hs)\"", "> /dev/stderr", ">| {O}", "< /dev/tcp/127.0.0.1/9", "3< {P}", "<> {P}")
JOINERS = (" | ", " && ", " || ", " ; ")


def _fill(text: str, scratch: Scratch) -> str:
    return text.replace(_W, str(scratch.workspace)).replace(_H, str(scratch.home))


@st.composite
def _quoted(draw: st.DrawFn, word: str) -> str:
    """`word` as written on the line: plain mostly, else one of bash's quoting forms."""
    how = draw(st.integers(0, 11))
    if how <= 6 or not word:
        return word
    if how == 7 and "'" not in word:
        return f"'{word}'"
    if how == 8 and not set('"$`\\') & set(word):
        return f'"{word}"'
    if how == 9:
        return "\\" + word
    if how == 10:
        hexed = "".join(f"\\x{ord(c):02x}" if draw(st.booleans()) and ord(c) < 128 else c for c in word)
        return "$'" + hexed.replace("'", "\\'") + "'"
    cut = draw(st.integers(0, len(word)))
    return f"{word[:cut]}''{word[cut:]}" if "'" not in word else word


@st.composite
def _expansion(draw: st.DrawFn, depth: int, scratch: Scratch) -> str:
    inner = draw(_simple(depth + 1, scratch)) if depth < 1 and draw(st.booleans()) else draw(st.sampled_from(INNER))
    return draw(st.sampled_from((
        "$x", '"$x"', "${x}", "$HOME", "$ANTHROPIC_API_KEY", "${x@P}", "${!x}", "${HOME:x:1}", f"${{x:-$({inner})}}",
        f"$({inner})", f'"$({inner})"', f"`{inner}`", "$((1+1))", "$((x))", f"<({inner})",
        "{src/a.py,docs/keys/id_rsa}", "{a,b}", "src/{a,b}.py", "~", "~+", "~/.ssh/id_rsa", "$HOME/.ssh/id_rsa",
        "${HOME}/secret.key", "$PWD/docs/keys/id_rsa", "$'\\x2e\\x2e'", "~root",
    )))


@st.composite
def _slot(draw: st.DrawFn, template: str, scratch: Scratch) -> str:
    """Fill each `{P}`/`{O}`/`{L}`/`{X}`/`{T}` of an option template."""
    pools = {"{P}": INPUT_PATHS, "{O}": OUTPUT_PATHS, "{L}": LISTS, "{X}": PROGRAMS, "{T}": TEXTS}
    for key, pool in pools.items():
        while key in template:
            template = template.replace(key, draw(st.sampled_from(pool)), 1)
    return _fill(template, scratch)


@st.composite
def _option(draw: st.DrawFn, name: str, scratch: Scratch) -> str:
    longs, shorts = LONG.get(name, ()), SHORT.get(name, ("-a", "-l", "-r", "-n"))
    if longs and draw(st.booleans()):
        full = draw(st.sampled_from(longs))
        flag, eq, value = full.partition("=")
        if draw(st.integers(0, 2)) == 0:  # a unique-prefix abbreviation, as getopt_long accepts
            flag = flag[: draw(st.integers(min(4, len(flag)), len(flag)))]
        return draw(_slot(flag + eq + value, scratch))
    return draw(_slot(draw(st.sampled_from(shorts)), scratch))


@st.composite
def _operand(draw: st.DrawFn, name: str, scratch: Scratch, depth: int) -> str:
    roll = draw(st.integers(0, 19))
    if roll < 3:
        return draw(_expansion(depth, scratch))
    if name in ("echo", "printf", "seq", "which", "type", "uname", "test", "[", "tr", "printenv", "basename", "dirname"):
        pool = TEXTS + ("cat", "sh", "3", "ANTHROPIC_API_KEY", "HOME") + INPUT_PATHS[:8]
    elif name == "jq" and roll < 10:
        pool = JQ_PROGRAMS
    elif name in ("grep", "egrep", "fgrep", "rg") and roll < 8:
        pool = TEXTS
    else:
        pool = SAFE_PATHS if draw(st.booleans()) else INPUT_PATHS
    return draw(_quoted(_fill(draw(st.sampled_from(pool)), scratch)))


@st.composite
def _simple(draw: st.DrawFn, depth: int, s: Scratch) -> str:
    """One simple command: a name, options and operands, maybe redirects."""
    roll = draw(st.integers(0, 19))
    name = draw(st.sampled_from(NOT_ALLOWLISTED if roll == 0 else ALLOWLISTED))
    words: list[str] = []
    if name == "git":
        if draw(st.integers(0, 4)) == 0:
            words.append(draw(_slot(draw(st.sampled_from(GIT_GLOBAL)), s)))
        words += draw(st.sampled_from(GIT_FORMS))
        words += [draw(_slot(o, s)) for o in draw(st.lists(st.sampled_from(GIT_OPTIONS), max_size=3))]
    elif name == "find":
        words += [draw(st.sampled_from(SHORT["find"]))] if draw(st.integers(0, 5)) == 0 else []
        words.append(draw(_operand(name, s, depth)))
        words += [draw(_slot(p, s)) for p in draw(st.lists(st.sampled_from(FIND_PRIMARIES), max_size=2))]
    else:
        # Options a command has no table for are mostly junk (`whoami -l`): drawn rarely, so lines stay runnable.
        known = name in LONG or name in SHORT
        count = draw(st.integers(0, 1 if name in _BARE and draw(st.integers(0, 3)) else 3))
        for _ in range(count):
            option = draw(st.integers(0, 2 if known else 9)) == 0
            words.append(draw(_option(name, s)) if option else draw(_operand(name, s, depth)))
        if name == "[":
            words.append("]")
    if depth == 0 and draw(st.integers(0, 5)) == 0:
        words.append(draw(_slot(draw(st.sampled_from(REDIRECTS)), s)))
    return " ".join([name, *words])


@st.composite
def _gadget(draw: st.DrawFn) -> str:
    """A variable loaded with data, then an expansion that evaluates it (the issue's class 1)."""
    payload = draw(st.sampled_from(PAYLOADS))
    load = draw(st.sampled_from((f"read x <<< '{payload}'", f"printf -v x '%s' '{payload}'", f"x='{payload}'",
                                 "read x < payload.txt", "read x < payload2.txt", "read -r x < payload2.txt")))
    use = draw(st.sampled_from(("echo ${x@P}", 'echo "${!x}"', "echo ${HOME:x:1}", "cat ${!x}", "echo $((x))",
                                "printf '%s' \"${x@P}\"", "test ${HOME:x:1} = a", "[[ $x -eq 1 ]]")))
    return f"{load}{draw(st.sampled_from((' ; ', ' && ', chr(10))))}{use}"


def shell_lines(scratch: Scratch) -> st.SearchStrategy[str]:
    """Lines of 1-3 simple commands (or a variable gadget), joined as a model would join them; here-documents
    put their bodies after the line, as bash reads them."""
    @st.composite
    def line(draw: st.DrawFn) -> str:
        if draw(st.integers(0, 11)) == 0:
            return draw(_gadget())
        commands = [draw(_simple(0, scratch)) for _ in range(draw(st.sampled_from((1, 1, 2, 2, 3))))]
        bodies: list[str] = []
        if draw(st.integers(0, 9)) == 0:
            at = draw(st.integers(0, len(commands) - 1))
            opener = draw(st.sampled_from(HEREDOC_OPENERS))
            commands[at] += " " + opener
            body = draw(st.lists(st.sampled_from(HEREDOC_BODIES), min_size=1, max_size=2))
            indent = "\t" if opener == "<<-EOF" and draw(st.booleans()) else ""
            bodies.append("".join(f"{indent}{b}\n" for b in body) + f"{indent}EOF")
        if draw(st.integers(0, 7)) == 0:
            commands.insert(0, "cd " + draw(st.sampled_from(("src", "docs/keys", "..", "sub", "~", "/", "-", "docs"))))
        text = commands[0]
        for command in commands[1:]:
            text += draw(st.sampled_from(JOINERS)) + command
        return "\n".join([text, *bodies])

    return line()


def known_attacks(scratch: Scratch) -> list[str]:
    """The issue's reproduced lines (and kin): explicit examples, tried before anything generated."""
    return [_fill(line, scratch) for line in (
        "cat <<EOF\n$(touch pwned)\nEOF", "read x <<< '$(touch pwned)' ; echo ${x@P}",
        "printf -v x '%s' 'a[$(touch pwned)]' ; echo ${!x}", "read x <<< 'a[$(touch pwned)]' ; echo ${HOME:x:1}",
        "read x < payload2.txt ; echo ${HOME:x:1}",
        "sort --co=sh -S 1 big.txt", "sort --outp=.git/config src/a.py", "date --s=2020-01-01", "hostname --fi=hostname.txt",
        "file --comp", "sort --files0-from=list0", "sort --files0-from=- < list0", "uniq - out < src/a.py",
        "jq -n 'import \"config\" as $c {search: \"~/.docker\"}; $c'", "cat docs/keys/../.docker/config.json",
        "grep -R FAKE docs", "rg -L FAKE docs", "diff -r docs sub", "ls -R -L docs", "find -L docs -type f",
        "printenv ANTHROPIC_API_KEY", "echo $ANTHROPIC_API_KEY", "env", "cat /proc/self/environ",
        "diff -l src/a.py src/b.txt", "rg -z x x.gz", "md5sum --check sums.txt", "wc --files0-from=list0",
        "du --files0-from=list0", "file -f names.txt", "git status", "git diff", "git log -p -1", "git show HEAD",
        "git diff --outp=out", "git log --ext -p", "git log -p --ext-diff -1", "git blame --contents {H}/.ssh/id_rsa src/a.py",
        "cat < /dev/tcp/127.0.0.1/9", "cat src/a.py > /dev/stderr", "ls docs/keys/", "cat docs/keys/id_rsa",
    )]
