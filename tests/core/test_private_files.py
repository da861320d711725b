"""Files the agent writes hold the conversation: after a real run with umask 022 the transcript, the tool
results it saved and the folders it made are the owner's alone (0600 files, 0700 folders), as Claude Code
writes its transcripts and history (issue 23). Folders the user already had keep their modes."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Iterator

import pytest

from tui_agent.providers.scripted import Reply, Text, ToolUse
from tui_agent.tools.registry import default_tools

PERSISTED = "python3 -c 'print(\"p\" * 40000)'"  # over Bash's 30,000 characters: saved by the result store
SPILLED = "python3 -c 'print(\"s\" * 1500000)'"  # over the shell's 1 MB in memory: spilled while it runs


@pytest.fixture(autouse=True)
def umask_022() -> Iterator[None]:
    before = os.umask(0o022)
    yield
    os.umask(before)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


async def run_saving_results(make_harness, **settings):
    script = [
        Reply([ToolUse("Bash", {"command": PERSISTED}, id="persisted"), ToolUse("Bash", {"command": SPILLED}, id="spilled")]),
        Reply([Text("ok")]),
    ]
    h = make_harness(script, tools=default_tools(), allowed_tools=["Bash"], **settings)
    await h.agent.run("print a lot")
    h.agent.session.close()
    return h


async def test_transcript_results_and_their_folders_are_private(make_harness, data_home: Path) -> None:
    h = await run_saving_results(make_harness)
    session = h.agent.session
    results = session.dir / "tool-results"
    saved = sorted(p.name for p in results.iterdir())
    assert saved == ["persisted.txt", "spilled.txt"]
    for file in (session.transcript_path, results / "persisted.txt", results / "spilled.txt"):
        assert mode(file) == 0o600, file
    # Every folder the run made, from the data home (new in this test) down to the session's results.
    for folder in (results, session.dir, session.project_dir, *session.project_dir.parents):
        if folder == data_home.parent:
            break
        assert mode(folder) == 0o700, folder


async def test_an_existing_session_is_narrowed_and_the_users_folders_are_left(make_harness, data_home: Path) -> None:
    first = await run_saving_results(make_harness)
    session = first.agent.session
    # As an older version left them: everything readable by all.
    for folder in (data_home, session.project_dir, session.dir, session.dir / "tool-results"):
        os.chmod(folder, 0o755)
    os.chmod(session.transcript_path, 0o644)
    os.chmod(session.dir / "tool-results" / "spilled.txt", 0o644)

    await run_saving_results(make_harness, resume=session.id)
    assert mode(session.transcript_path) == 0o600
    assert mode(session.dir / "tool-results" / "spilled.txt") == 0o600  # written again by the resumed run
    assert mode(session.dir) == 0o700 and mode(session.dir / "tool-results") == 0o700  # the session's own
    assert mode(data_home) == 0o755 and mode(session.project_dir) == 0o755  # shared folders: not ours to change


def test_prompt_history_is_private(tmp_path: Path) -> None:
    from tui_agent.ui.prompt_history import PromptHistory

    path = tmp_path / "data" / "tui-agent" / "history.jsonl"
    PromptHistory(tmp_path, path=path, claude_path=tmp_path / "none.jsonl").add("my secret prompt", "s1")
    assert mode(path) == 0o600
    assert mode(path.parent) == 0o700 and mode(path.parent.parent) == 0o700
