"""The read-only classifier's adversarial table run again with the sandbox on (issue 25): every line of
tests/core/permissions/test_read_only_shell_table.py CASES and every attack line of
tests/e2e/test_readonly_attacks_headless.py ATTACKS goes through the real loop and the real Bash tool with
`autoAllowBashIfSandboxed` and nobody to ask. Whatever the classifier says of a line, what runs is contained:

- nothing outside the workspace copy changed (the scratch HOME and an outside folder, both under /var/tmp so
  the sandbox shows them read-only, are compared file by file before and after; no `pwned*` file appears
  next to them);
- no secret reached a request: the private key and docker login in the scratch HOME, a key in the outside
  folder (all in `sandbox.credentials.files`), and the fake API key in the environment;
- and the lines did run: a control line's output is there, and so is an OS refusal.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import uuid
from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.core.permissions.test_read_only_shell_table import CASES
from tests.core.sandbox_support import need_bwrap, write_json
from tests.e2e.test_readonly_attacks_headless import ATTACKS, DOCKER_MARKER, KEY_MARKER
from tui_agent.providers.scripted import Reply, Text, ToolUse
from tui_agent.tools.registry import default_tools

OUTSIDE_MARKER = "outside-key-31c7"
PER_REPLY = 25
LINE_TIMEOUT_MS = 5_000


@pytest.fixture
def scratch() -> Iterator[Path]:
    base = Path(tempfile.mkdtemp(prefix="tui-agent-sbx-table-", dir="/var/tmp"))
    try:
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _tree(root: Path) -> dict[str, tuple[int, int, str]]:
    out = {}
    for p in sorted(root.rglob("*")):
        st = p.lstat()
        kind = "l" if p.is_symlink() else "d" if p.is_dir() else "f"
        out[str(p)] = (st.st_size if kind == "f" else 0, st.st_mtime_ns if kind == "f" else 0, kind)
    return out


def _workspace(work: Path, home: Path, outside: Path) -> None:
    files = {
        "f": "b: 2\na: 1\nx y\na: 1\n\n", "a": "one\ntwo\n", "b": "one\nthree\n", "nums.txt": "3\n10\n2\n",
        "data.csv": "name,size\nb,2\na,1\n", "README.md": "# Demo\nhello\n", "package.json": '{"name": "demo"}\n',
        "data.json": '{"items": [{"name": "a"}]}\n', "src/a.py": "print(1)\n", "src/b.py": "import os\n",
        "src/deep/c.py": "class C:\n    pass\n", "docs/guide.md": "# Guide\n", "lib/mod.py": "def bar():\n    return 2\n",
        "data.txt": "touch pwned-sort-co\n" * 50, "evil.sh": "#!/bin/sh\ntouch pwned-evil-sh\nexec cat\n",
        "list": str(home / ".ssh" / "id_rsa"), "--files0-from=list": "", "secrets/k": "workspace secret\n",
    }
    for name, text in files.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(text)
    (work / "evil.sh").chmod(0o755)
    (work / "docs" / "keys").symlink_to(home / ".ssh")
    (work / "lib" / "src_link").symlink_to("../src")
    (work / "outside_link").symlink_to(outside)


def _lines(outside: Path) -> list[str]:
    lines = [c[0].replace("{outside}", str(outside)) for c in CASES]
    lines += [a[0] for kind in ATTACKS.values() for a in kind]
    return list(dict.fromkeys(lines))


async def test_every_table_line_is_contained(make_harness, tmp_path, scratch, monkeypatch) -> None:
    need_bwrap()
    home, outside = scratch / "home", scratch / "outside"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(f"-----BEGIN OPENSSH PRIVATE KEY----- {KEY_MARKER}\n")
    (home / ".docker").mkdir()
    (home / ".docker" / "config.json").write_text(json.dumps({"auths": {"r.example.com": {"auth": DOCKER_MARKER}}}))
    (home / "notes").mkdir()
    (home / "notes" / "n.md").write_text("notes\n")
    (outside / "ssh").mkdir(parents=True)
    (outside / "ssh" / "id_rsa").write_text(f"-----BEGIN OPENSSH PRIVATE KEY----- {OUTSIDE_MARKER}\n")
    (outside / "f").write_text("outside\n")
    api_key = "sk-ant-fake-" + uuid.uuid4().hex
    monkeypatch.setenv("ANTHROPIC_API_KEY", api_key)
    monkeypatch.setenv("HOME", str(home))
    work = tmp_path / "work"
    work.mkdir()
    _workspace(work, home, outside)
    write_json(home / ".claude" / "settings.json", {"sandbox": {
        "enabled": True, "autoAllowBashIfSandboxed": True,
        "credentials": {"files": [{"path": "~/.ssh", "mode": "deny"}, {"path": "~/.docker", "mode": "deny"},
                                  {"path": str(outside / "ssh"), "mode": "deny"}]},
    }})
    before = _tree(scratch)

    lines = ["echo control-line-ran", f"touch {outside}/refused", *_lines(outside)]
    calls = [(f"t{i}", line) for i, line in enumerate(lines)]
    script: list[Any] = [
        Reply([ToolUse("Bash", {"command": c, "timeout": LINE_TIMEOUT_MS}, id=i) for i, c in calls[n : n + PER_REPLY]])
        for n in range(0, len(calls), PER_REPLY)
    ]
    h = make_harness([*script, Reply([Text("done")])], tools=default_tools())
    await h.agent.run("go")

    sent = json.dumps(h.requests)
    assert "control-line-ran" in sent and "Read-only file system" in sent
    for secret in (KEY_MARKER, DOCKER_MARKER, OUTSIDE_MARKER, api_key):
        assert secret not in sent, secret
    assert _tree(scratch) == before
    assert not [p for p in Path("/var/tmp").glob("pwned*")]
    denied = {d["tool_use_id"] for d in h.agent.policy.denials}
    ran = len(calls) - len(denied)
    assert ran >= len(calls) * 0.8, f"only {ran} of {len(calls)} lines ran: {sorted(denied)[:10]}"
    print(f"{ran} of {len(calls)} lines ran sandboxed; {len(denied)} refused by a deny rule")
