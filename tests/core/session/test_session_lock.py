"""One writer per session (issue 26): the process that writes a session holds its lock from open to close;
another process that wants to carry the session on meanwhile forks it from its last completed turn (headless)
or is told who holds it (the app), and a lock whose holder died, SIGKILL included, is free."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.core.support import assert_history_valid, sample_tools
from tui_agent.core.session import load, open_session
from tui_agent.core.session.lock import SessionBusy, SessionLock, holder_pid, is_free, lock_path
from tui_agent.providers.scripted import Reply, Text, ToolUse

# A second process writing a session as the loop does, holding it open until its stdin closes. argv: the
# folder, the session to carry on ("-c" or an id), the shape of the turn it is in the middle of.
HOLDER = r"""
import json, sys
from pathlib import Path
from tui_agent.core.session import open_session

cwd, target, shape = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
opened = open_session(cwd, continue_=True) if target == "-c" else open_session(cwd, resume=target, fork=shape == "fork")
s = opened.session
use = {"type": "tool_use", "id": "toolu_slow", "name": "SleepRead", "input": {"text": "z"}}
if shape != "none":
    s.append("user", message={"role": "user", "content": "the slow prompt"})
if shape in ("tool_use", "results"):
    s.append("assistant", message={"role": "assistant", "content": [{"type": "text", "text": "Reading."}, use]}, meta={"id": "msg_slow"})
if shape == "results":
    s.append("user", message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_slow", "content": "zz"}]})
if shape == "written_ahead":  # a response still streaming: its first block is on disk already
    s.assistant_block({"type": "text", "text": "Half an ans"}, {"id": "msg_slow", "model": "m", "usage": {}})
if shape == "torn":  # caught in the middle of writing a line
    with s.transcript_path.open("a") as fh:
        fh.write('{"parentUuid": "x", "type": "assistant", "message": {"role": "assist')
print(s.id, flush=True)
sys.stdin.read()
s.close()
"""

SHAPES = ["prompt", "tool_use", "results", "written_ahead", "torn"]


class Holder:
    """A live process holding a session open (and its lock), as another window or `-p` would."""

    def __init__(self, cwd: Path, target: str, shape: str) -> None:
        self.proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(cwd), target, shape],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.session_id = self.proc.stdout.readline().strip()  # the session is open and the turn written
        assert self.session_id, "the holder could not open the session"

    def finish(self) -> None:
        self.proc.communicate("", timeout=60)

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=60)


async def finished_session(make_harness) -> tuple[Path, Path, list[dict]]:
    """A session whose one turn is complete: (its folder, its file, its history)."""
    h = make_harness([Reply([ToolUse("SleepRead", {"text": "a"})]), Reply([Text("one")])], tools=sample_tools())
    await h.agent.run("first")
    await h.agent.close()
    path = h.agent.session.transcript_path
    return h.agent.workspace.root, path, load(path).history


def all_text(history: list[dict]) -> str:
    return json.dumps(history)


class TestTheLock:
    def test_a_new_session_is_locked_until_closed_with_the_pid_in_a_private_file(self, tmp_path, data_home):
        opened = open_session(tmp_path)
        transcript = opened.session.transcript_path
        assert not is_free(transcript)
        assert holder_pid(lock_path(transcript)) == os.getpid()
        assert lock_path(transcript) == transcript.parent / f"{opened.session.id}.lock"
        assert (lock_path(transcript).stat().st_mode & 0o777) == 0o600
        opened.session.close()
        assert is_free(transcript) and not lock_path(transcript).exists()

    async def test_a_continued_session_is_locked_and_released_on_close(self, make_harness):
        cwd, path, _ = await finished_session(make_harness)
        assert is_free(path)  # the harness closed it
        opened = open_session(cwd, continue_=True)
        assert opened.session.transcript_path == path and not is_free(path)
        opened.session.close()
        assert is_free(path)
        again = open_session(cwd, continue_=True)  # free again: the same session, not a fork
        assert again.session.id == path.stem
        again.session.close()

    async def test_a_second_open_in_the_same_process_is_busy_too(self, make_harness):
        cwd, path, _ = await finished_session(make_harness)
        first = open_session(cwd, continue_=True)
        with pytest.raises(SessionBusy) as caught:
            open_session(cwd, continue_=True, busy="raise")
        assert caught.value.pid == os.getpid() and "this tui-agent process" in str(caught.value)
        first.session.close()

    def test_a_stale_lock_file_nobody_holds_is_free(self, tmp_path):
        transcript = tmp_path / "s.jsonl"
        lock_path(transcript).write_text("999999\n")
        assert is_free(transcript)
        lock = SessionLock.try_take(lock_path(transcript))
        assert lock is not None and holder_pid(lock_path(transcript)) == os.getpid()
        lock.release()


class TestBusySessionHeadless:
    @pytest.mark.parametrize("shape", SHAPES)
    async def test_a_busy_session_forks_from_its_last_completed_turn(self, make_harness, shape):
        cwd, path, completed = await finished_session(make_harness)
        holder = Holder(cwd, "-c", shape)
        try:
            before = path.read_bytes()
            opened = open_session(cwd, continue_=True)
            assert opened.session.id != path.stem and opened.resumed_from == path.stem
            assert opened.history == completed  # never the prompt being answered, nor its blocks or results
            assert "the slow prompt" not in all_text(opened.history)
            assert_history_valid(opened.history)
            warning = [text for level, text in opened.notes if level == "warning"]
            assert warning[0] == (f"Session {path.stem} is in use by another tui-agent process (pid {holder.proc.pid}); "
                                  f"continuing in a new session {opened.session.id} forked from its last completed turn.")
            assert not is_free(opened.session.transcript_path)  # the fork is this process's, locked
            assert path.read_bytes() == before  # the busy session is only read
            opened.session.close()
            assert load(opened.session.transcript_path).history == completed
        finally:
            holder.finish()
        conv = load(path)
        assert "the slow prompt" in all_text(conv.history)  # the holder's turn stays in its own session

    async def test_the_app_policy_raises_session_busy_with_the_holders_pid(self, make_harness):
        cwd, path, _ = await finished_session(make_harness)
        holder = Holder(cwd, "-c", "prompt")
        try:
            with pytest.raises(SessionBusy) as caught:
                open_session(cwd, resume=path.stem, busy="raise")
            assert caught.value.pid == holder.proc.pid and caught.value.session_id == path.stem
            assert caught.value.transcript == path
            assert sorted(p.name for p in path.parent.glob("*.jsonl")) == [path.name]  # nothing made
        finally:
            holder.finish()
        assert is_free(path)  # the holder closed it
        opened = open_session(cwd, resume=path.stem, busy="raise")
        assert opened.session.id == path.stem
        opened.session.close()

    async def test_a_busy_fork_in_its_first_turn_keeps_the_history_it_was_forked_with(self, make_harness):
        cwd, path, completed = await finished_session(make_harness)
        forked = Holder(cwd, path.stem, "fork")  # --fork-session, then a prompt it is answering
        try:
            assert forked.session_id != path.stem
            opened = open_session(cwd, resume=forked.session_id)
            assert opened.session.id not in (forked.session_id, path.stem)
            assert opened.history == completed
        finally:
            forked.finish()
        opened.session.close()

    async def test_fork_session_of_a_busy_session_also_stops_at_its_last_completed_turn(self, make_harness):
        cwd, path, completed = await finished_session(make_harness)
        holder = Holder(cwd, "-c", "tool_use")  # its tool is running: no made-up "session ended" result
        try:
            opened = open_session(cwd, resume=path.stem, fork=True)
            assert opened.history == completed and "toolu_slow" not in all_text(opened.history)
            assert "in use by another process" in opened.notes[0][1]
        finally:
            holder.finish()
        opened.session.close()

    async def test_a_lock_held_by_a_process_killed_with_sigkill_is_free(self, make_harness):
        cwd, path, _ = await finished_session(make_harness)
        holder = Holder(cwd, "-c", "prompt")
        assert not is_free(path)
        holder.kill()  # no cleanup of any kind: the lock file stays, its flock goes with the process
        assert lock_path(path).exists() and is_free(path)
        opened = open_session(cwd, continue_=True, busy="raise")
        assert opened.session.id == path.stem
        assert not is_free(path) and holder_pid(lock_path(path)) == os.getpid()
        opened.session.close()
