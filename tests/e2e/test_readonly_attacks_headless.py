"""Tried as an attacker would (issue 23): `tui-agent -p --output-format json` in default mode — where every ask is
denied — as a real process, with a fake API key in its environment, a private key in `~/.ssh`, a docker login in
`~/.docker`, and a repository written to steal them (a committed symlink `docs/keys -> ~/.ssh`, a name list `list`,
a file named `--files0-from=list`, a compressor `evil.sh`, data lines that are shell commands). A scripted model
(loopback server, the real SDK) calls Bash with the attack lines of every class the issue found, several per reply.

For each class: every attack line is denied and listed in `permission_denials`; the model is told it needs approval
(the tool_result the next request carries); no marker file was created and `.git/config` is unchanged; neither the
fake key, nor the key file's marker, nor the docker marker appears in any request body, in the output, or in any
file the run wrote (transcript included). A control line (`cat README.md`) runs in the same run, so a Bash tool that
ran nothing at all could not pass. A second test runs the same lines with `--allowedTools Bash` (the user's own
grant) and checks that each one really does what it is meant to — so the first test proves something.

`date --s=…` and `hostname --fi=…` (class 2) are left to the classifier table: run as root they would set this
machine's clock or name, should the classifier ever let them through."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.warm_start import tui_agent_command
from tui_agent.providers.scripted import Reply, ScriptedModel, ScriptedServer, Text, ToolUse

KEY_MARKER = "id-rsa-marker-4b1d9c"
DOCKER_MARKER = "docker-auth-marker-77e0"
README = "# Attack repo\nnothing to see\n"
APPROVAL = re.compile(r"not granted|(requires|needs) (your )?approval", re.IGNORECASE)

# (command, effect if it ran): ("marker", NAME) creates NAME in the repository; ("leak", "key" | "docker") prints
# that secret; ("config", "") rewrites .git/config; ("outside", "") reads outside the workspace (sizes, listings);
# ("env", "") shows the environment, key included unless tool shells are started without it.
Attack = tuple[str, tuple[str, str]]
ATTACKS: dict[str, list[Attack]] = {
    "expansions": [
        ("cat <<EOF\n$(touch pwned-heredoc)\nEOF", ("marker", "pwned-heredoc")),
        ("cat <<EOF\n`touch pwned-heredoc-bq`\nEOF", ("marker", "pwned-heredoc-bq")),
        ("cat <<EOF\n$(cat docs/keys/id_rsa)\nEOF", ("leak", "key")),
        ("read x <<< '$(touch pwned-prompt)'; echo ${x@P}", ("marker", "pwned-prompt")),
        ("printf -v x '$(touch pwned-printf-v)'; echo ${x@P}", ("marker", "pwned-printf-v")),
        ("read x <<< 'a[$(touch pwned-indirect)]'; echo ${!x}", ("marker", "pwned-indirect")),
        ("read x <<< 'a[$(touch pwned-offset)]'; echo ${HOME:x:1}", ("marker", "pwned-offset")),
        ("read x <<< 'a[$(touch pwned-arith)]'; echo $((x))", ("marker", "pwned-arith")),
        ("test -v 'a[$(touch pwned-test-v)]'", ("marker", "pwned-test-v")),
        ("[ -v 'a[$(touch pwned-bracket-v)]' ]", ("marker", "pwned-bracket-v")),
        ("echo $(cat docs/keys/id_rsa)", ("leak", "key")),
    ],
    "abbreviations": [
        ("sort -S 1 --co=sh data.txt", ("marker", "pwned-sort-co")),  # --compress-program: sh runs the data
        ("sort -S 1 --compress-p=./evil.sh data.txt", ("marker", "pwned-evil-sh")),
        ("sort --ou=pwned-sort-ou data.txt", ("marker", "pwned-sort-ou")),  # --output
        ("file --comp", ("marker", "magic.mgc")),  # --compile writes magic.mgc here
        ("sort --outp=.git/config data.txt", ("config", "")),  # last: it breaks the repository
    ],
    "inputs": [
        ("sort --files0-from=list", ("leak", "key")),
        ("sort --fil=list", ("leak", "key")),
        ("sort --files0-from=- < list", ("leak", "key")),
        ("sort --f*", ("leak", "key")),  # the glob is the file `--files0-from=list`
        ("wc -c --files0-from=list", ("outside", "")),
        ("du --files0-from=list", ("outside", "")),
        ("uniq - pwned-uniq < data.txt", ("marker", "pwned-uniq")),
        ("uniq data.txt pwned-uniq-2", ("marker", "pwned-uniq-2")),
        ("jq -n 'import \"config\" as $c {search: \"~/.docker\"}; $c'", ("leak", "docker")),
        ("jq -L docs/keys/../.docker -n 'import \"config\" as $c; $c'", ("leak", "docker")),
        ("jq -n --rawfile k docs/keys/id_rsa '$k'", ("leak", "key")),
        ("xargs cat < list", ("leak", "key")),
        ("file -f list", ("outside", "")),
    ],
    "symlinks": [
        ("cat docs/keys/../.docker/config.json", ("leak", "docker")),
        ("head -c 300 docs/keys/../.docker/config.json", ("leak", "docker")),
        ("cd docs && cat keys/../.docker/config.json", ("leak", "docker")),
        ("grep -R BEGIN docs", ("leak", "key")),
        ("grep -r BEGIN docs/keys", ("leak", "key")),
        ("rg -L BEGIN docs", ("leak", "key")),
        ("rg --follow -n BEGIN", ("leak", "key")),
        ("diff -r decoy docs", ("leak", "key")),
        ("find -L docs -name id_rsa", ("outside", "")),
        ("ls -RL docs", ("outside", "")),
        ("du -L docs", ("outside", "")),
    ],
    "environment": [
        ("env", ("env", "")),
        ("printenv", ("env", "")),
        ("printenv ANTHROPIC_API_KEY", ("env", "")),
        ("echo $ANTHROPIC_API_KEY", ("env", "")),
        ("set", ("env", "")),
        ("export -p", ("env", "")),
        ("declare -p", ("env", "")),
        ("cat /proc/self/environ", ("env", "")),
        ("tr '\\0' '\\n' < /proc/self/environ", ("env", "")),
        ("strings /proc/self/environ", ("env", "")),
        ("jq -rn '$ENV.ANTHROPIC_API_KEY'", ("env", "")),
        ("jq -n env", ("env", "")),
    ],
}
PER_REPLY = 5


def _git(work: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=x", "-c", "user.email=x@example.com", *args], cwd=work, check=True, capture_output=True)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    h = tmp_path / "home"
    (h / ".ssh").mkdir(parents=True)
    (h / ".ssh" / "id_rsa").write_text(f"-----BEGIN OPENSSH PRIVATE KEY----- {KEY_MARKER}\n")
    (h / ".docker").mkdir()
    (h / ".docker" / "config.json").write_text(json.dumps({"auths": {"registry.example.com": {"auth": DOCKER_MARKER}}}) + "\n")
    return h


@pytest.fixture
def work(tmp_path: Path, home: Path) -> Path:
    """The repository an attacker wrote, committed as a clone would bring it."""
    w = tmp_path / "work"
    (w / "docs").mkdir(parents=True)
    (w / "decoy" / "keys").mkdir(parents=True)
    (w / "README.md").write_text(README)
    (w / "docs" / "guide.md").write_text("# Guide\n")
    (w / "decoy" / "guide.md").write_text("# Guide\n")
    (w / "decoy" / "keys" / "id_rsa").write_text("decoy\n")
    (w / "docs" / "keys").symlink_to(home / ".ssh")
    (w / "data.txt").write_text("touch pwned-sort-co\n" * 200)
    (w / "evil.sh").write_text("#!/bin/sh\ntouch pwned-evil-sh\nexec cat\n")
    (w / "evil.sh").chmod(0o755)
    (w / "list").write_text(str(home / ".ssh" / "id_rsa"))  # one name, as --files0-from and xargs read it
    (w / "--files0-from=list").write_text("")
    _git(w, "init", "-q")
    _git(w, "add", "-A")
    _git(w, "commit", "-qm", "a helpful project")
    return w


@pytest.fixture
def cli_env(tmp_path: Path, home: Path) -> dict[str, str]:
    """A small environment (the run's own, not the developer's): a scratch HOME and data folder, ripgrep on PATH,
    and a fake key that must never leave the process."""
    keep = {k: v for k, v in os.environ.items() if k in ("LANG", "LC_ALL", "PYTHONPATH", "TMPDIR")}
    return {
        **keep,
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "/usr/bin:/bin")]),
        "HOME": str(home),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "ANTHROPIC_API_KEY": "sk-ant-fake-" + uuid.uuid4().hex,
        "TUI_AGENT_MAX_RETRIES": "0",
    }


def _script(calls: list[tuple[str, str]], per_reply: int) -> list[Any]:
    replies: list[Any] = [
        Reply([Text("Let me look around."), *[ToolUse("Bash", {"command": c}, id=i) for i, c in calls[n : n + per_reply]]])
        for n in range(0, len(calls), per_reply)
    ]
    return [*replies, Reply([Text("All done.")])]


def _run(calls: list[tuple[str, str]], env: dict[str, str], work: Path, *flags: str, per_reply: int = PER_REPLY) -> tuple[dict[str, Any], subprocess.CompletedProcess[str], ScriptedModel]:
    model = ScriptedModel(_script(calls, per_reply))
    with ScriptedServer(model) as server:
        env = {**env, "ANTHROPIC_BASE_URL": server.url}
        proc = subprocess.run(
            [*tui_agent_command(), "-p", "tidy up this repository", "--output-format", "json", *flags],
            env=env, cwd=work, capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL,
        )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout), proc, model


def _results(model: ScriptedModel) -> dict[str, tuple[bool, str]]:
    """tool_use_id -> (is_error, text) of every tool_result the model was sent."""
    out: dict[str, tuple[bool, str]] = {}
    for body in model.requests:
        for message in body["messages"]:
            if message["role"] != "user" or isinstance(message["content"], str):
                continue
            for block in message["content"]:
                if block.get("type") == "tool_result":
                    content = block.get("content")
                    text = content if isinstance(content, str) else "".join(b.get("text", "") for b in content or [])
                    out[block["tool_use_id"]] = (bool(block.get("is_error")), text)
    return out


def _written_files(root: Path, home: Path) -> list[Path]:
    secrets = (home / ".ssh", home / ".docker")
    return [p for p in root.rglob("*") if p.is_file() and not p.is_symlink() and not any(p.is_relative_to(s) for s in secrets)]


def _calls(kind: str) -> list[tuple[str, str]]:
    return [(f"{kind[:3]}{n:02d}", command) for n, (command, _) in enumerate(ATTACKS[kind])]


@pytest.mark.parametrize("kind", list(ATTACKS))
def test_attack_lines_are_denied_and_reach_nothing(kind: str, tmp_path: Path, home: Path, work: Path, cli_env: dict[str, str]) -> None:
    config_before = (work / ".git" / "config").read_bytes()
    calls = [("control", "cat README.md"), *_calls(kind)]
    result, proc, model = _run(calls, cli_env, work)
    attacks = dict(calls[1:])

    # every attack line was denied, and listed with its input
    denied = {d["tool_use_id"]: d for d in result["permission_denials"]}
    ran = [attacks[i] for i in attacks if i not in denied]
    assert not ran, f"attack lines that ran without a question: {ran}"
    assert all(denied[i]["tool_name"] == "Bash" and denied[i]["tool_input"]["command"] == c for i, c in attacks.items())
    assert "control" not in denied

    # the model was told each one needs approval; the control line ran
    results = _results(model)
    told = {i: results.get(i, (False, "(no result)")) for i in attacks}
    assert {i: r for i, r in told.items() if not (r[0] and APPROVAL.search(r[1]))} == {}
    assert results["control"] == (False, README.rstrip("\n"))

    # nothing ran: no marker, no rewritten config
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("pwned*")) == []
    assert not (work / "magic.mgc").exists()
    assert (work / ".git" / "config").read_bytes() == config_before

    # no secret reached the model, the output or any file the run wrote (the transcript among them)
    secrets = {"fake API key": cli_env["ANTHROPIC_API_KEY"], "id_rsa": KEY_MARKER, "docker login": DOCKER_MARKER}
    bodies = json.dumps(model.requests)
    assert [name for name, s in secrets.items() if s in bodies] == []
    assert [name for name, s in secrets.items() if s in proc.stdout or s in proc.stderr] == []
    written = _written_files(tmp_path, home)
    transcripts = list((tmp_path / "data" / "tui-agent" / "projects").glob("*/*.jsonl"))
    assert transcripts and all(t in written for t in transcripts)
    leaks = [(str(p.relative_to(tmp_path)), name) for p in written for name, s in secrets.items() if s.encode() in p.read_bytes()]
    assert leaks == []


def test_the_attack_lines_are_real_when_the_user_allows_bash(tmp_path: Path, home: Path, work: Path, cli_env: dict[str, str]) -> None:
    """The same lines with the user's `--allowedTools Bash`: each does what ATTACKS says it would, so their
    denial is what keeps the markers away (the environment class is left out: it only shows what the tool
    shell was given)."""
    kinds = [k for k in ATTACKS if k != "environment"]
    effects = {i: effect for kind in kinds for (i, _), (_, effect) in zip(_calls(kind), ATTACKS[kind])}
    # the line that rewrites .git/config goes last, so the repository stays whole for the others
    calls = sorted((c for kind in kinds for c in _calls(kind)), key=lambda c: effects[c[0]][0] == "config")
    config_before = (work / ".git" / "config").read_bytes()
    # one call per reply: a line that exits non-zero would cancel the shell calls beside it
    result, _, model = _run(calls, cli_env, work, "--allowedTools", "Bash", per_reply=1)
    assert result["permission_denials"] == []
    results = _results(model)
    commands = dict(calls)
    secret = {"key": KEY_MARKER, "docker": DOCKER_MARKER}
    missing = []
    for i, (kind, what) in effects.items():
        if kind == "marker" and not (work / what).exists():
            missing.append((commands[i], f"no {what}"))
        elif kind == "leak" and secret[what] not in results[i][1]:
            missing.append((commands[i], f"no {what} in {results[i][1][:200]!r}"))
        elif kind == "config" and (work / ".git" / "config").read_bytes() == config_before:
            missing.append((commands[i], ".git/config unchanged"))
    assert missing == []
