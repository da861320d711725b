"""Two processes, one session (issue 26): `tui-agent -c -p` started while another process is still answering a
prompt of the same session forks it from its last completed turn, says so on stderr, and never sends the
other's unanswered prompt; the other's answer stays in the original session, which a later `-c` carries on."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
import time
from typing import Any, AsyncIterator

from tests.core.support import assert_history_valid
from tests.e2e.test_headless import env, run_cli, work  # noqa: F401  (fixtures)
from tests.e2e.test_sessions_headless import json_run, session_files
from tui_agent.providers.scripted import Reply, ScriptedModel, ScriptedServer, Text


class GatedModel(ScriptedModel):
    """The scripted model, with one reply held back (after the response's headers) until the test lets it go:
    a slow answer whose end the test decides, not a clock."""

    def __init__(self, script: list[Any], gated: Reply) -> None:
        super().__init__(script)
        self.gated = gated
        self.release = threading.Event()

    async def stream_bytes(self, reply: Reply, body: dict[str, Any]) -> AsyncIterator[bytes]:
        while reply is self.gated and not self.release.is_set():
            await asyncio.sleep(0.02)
        async for data in super().stream_bytes(reply, body):
            yield data


def texts(request: dict) -> list[str]:
    return [m["content"] if isinstance(m["content"], str) else m["content"][-1]["text"] for m in request["messages"]]


def wait_for(predicate: Any, what: str, timeout: float = 120) -> None:
    """A state to reach; the timeout is only a safety net."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def test_a_second_process_forks_a_busy_session_and_the_first_ones_answer_is_never_orphaned(env, work):
    slow = Reply([Text("the slow answer")])
    model = GatedModel([Reply([Text("one")]), slow, Reply([Text("B's answer")]), Reply([Text("later answer")])], slow)
    server = ScriptedServer(model).start()
    env["ANTHROPIC_BASE_URL"] = server.url
    a = None
    try:
        first, _ = json_run(["-p", "first"], env, work)
        sid = first["session_id"]
        # A: carries the session on with a prompt whose answer does not come until the test says.
        a = subprocess.Popen([sys.executable, "-m", "tui_agent", "-c", "-p", "the slow prompt", "--output-format", "json"],
                             env=env, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_for(lambda: len(model.requests) == 2, "A's request")
        assert texts(model.requests[1]) == ["first", "one", "the slow prompt"]

        # B: `-c -p next` meanwhile, on the same session.
        b = run_cli(["-c", "-p", "next", "--output-format", "json"], env, work)
        assert b.returncode == 0, b.stderr
        b_id = json.loads(b.stdout)["session_id"]
        assert b_id != sid
        said = (f"Session {sid} is in use by another tui-agent process (pid {a.pid}); continuing in a new session "
                f"{b_id} forked from its last completed turn.")
        assert f"[warning] {said}" in b.stderr.splitlines(), b.stderr  # one line, naming A
        sent = model.requests[2]
        assert_history_valid(sent["messages"])
        assert texts(sent) == ["first", "one", "next"]
        assert "the slow prompt" not in json.dumps(sent)  # A's unanswered prompt is A's, not B's

        # A's answer arrives; A ends well, in its own session.
        model.release.set()
        out, err = a.communicate(timeout=120)
        assert a.returncode == 0, err
        assert json.loads(out)["session_id"] == sid and json.loads(out)["result"] == "the slow answer"

        # A later `-c` carries on A's session (the last written), A's answer in its history.
        later, _ = json_run(["-c", "-p", "later"], env, work)
        assert later["session_id"] == sid
        history = model.requests[3]["messages"]
        assert_history_valid(history)
        assert texts(model.requests[3]) == ["first", "one", "the slow prompt", "the slow answer", "later"]
    finally:
        if a is not None and a.poll() is None:
            a.kill()
            a.communicate(timeout=30)
        server.stop()
    files = {f.stem: f.read_text() for f in session_files(env)}
    assert set(files) == {sid, b_id}
    assert "next" in files[b_id] and "the slow prompt" not in files[b_id]
    assert not any(f.suffix == ".lock" for f in session_files(env)[0].parent.iterdir())  # both released theirs
