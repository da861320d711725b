"""A transcript replayed as the live events (core/session/replay.py): the calls a resume draws are the
calls the live run drew (status, summary, preview, data, duration), from our own files with what they
record beside the history, and from files without it (Claude Code's) as well as the history allows."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

from tui_agent.core.events import LoopEnded, ToolFinished, ToolQueued, ToolStarted
from tui_agent.core.permission_types import PermissionAnswer
from tui_agent.core.session import load
from tui_agent.core.session.reader import Conversation, rebuild
from tui_agent.core.session.paths import sessions_root
from tui_agent.core.session.replay import PromptReplayed, replay
from tui_agent.core.shell_mode import ShellCommand, record_data
from tui_agent.core.tool_call import REJECTED
from tui_agent.core.session.replay import DENIED_PREFIXES
from tui_agent.providers.scripted import Reply, Text, ToolUse
from tui_agent.tools.registry import default_tools


def ms(event: ToolFinished) -> int:
    """A duration as the cells show it: whole milliseconds (what the transcript records)."""
    return int(event.duration * 1000 + 1e-6)


def drawn(queued: ToolQueued, finished: ToolFinished) -> tuple[Any, ...]:
    """Everything a cell draws of a finished call."""
    ran = finished.lane >= 0
    return (queued.name, queued.input, queued.summary, finished.status, finished.preview, finished.is_error,
            finished.data, ran, ms(finished) if ran else None)


def calls(events: list[Any]) -> dict[str, tuple[Any, ...]]:
    """Each finished call as drawn, by its tool_use id (a `!` command, whose id is the app's, by its summary)."""
    queued = {e.id: e for e in events if isinstance(e, ToolQueued)}
    return {queued[e.id].summary if queued[e.id].summary.startswith("! ") else e.id: drawn(queued[e.id], e)
            for e in events if isinstance(e, ToolFinished)}


async def a_live_session(make_harness) -> tuple[Any, list[Any]]:
    """Parallel reads, a denial with words, an unknown tool and an invalid input (never ran), an Edit with
    its diff, then a `!` command that fails; the run's own events."""

    async def ask(request: Any) -> PermissionAnswer:
        return PermissionAnswer("deny", words="not that one") if request.tool_name == "Write" else PermissionAnswer("allow_once")

    script = [
        Reply([ToolUse("Read", {"file_path": "app.py"}, id="read"), ToolUse("Glob", {"pattern": "*.py"}, id="glob"),
               ToolUse("Write", {"file_path": "notes.txt", "content": "x"}, id="write"), ToolUse("Nope", {}, id="nope"),
               ToolUse("Grep", {"pattern": 3}, id="invalid")]),
        Reply([ToolUse("Edit", {"file_path": "app.py", "old_string": "return 1", "new_string": "return 2"}, id="edit")]),
        Reply([Text("done")]),
        Reply([Text("seen")]),
    ]
    h = make_harness(script, tools=default_tools(), ask=ask)
    root = h.agent.workspace.root
    (root / "app.py").write_text("def main():\n    return 1\n")
    for call in script[0].blocks + script[1].blocks:  # paths in the workspace, as the model would give them
        if "file_path" in call.input:
            call.input["file_path"] = str(root / call.input["file_path"])
    await h.agent.run("tidy up")
    await ShellCommand(h.agent, "seq 1 5; echo oops >&2; exit 2").run()
    await h.agent.close()
    return h, list(h.events)


class TestOurOwnFiles:
    async def test_the_replayed_calls_are_the_live_calls(self, make_harness) -> None:
        h, live = await a_live_session(make_harness)
        path = h.agent.session.transcript_path
        replayed = replay(load(path))
        assert calls(replayed) == calls(live)
        statuses = {key: c[3] for key, c in calls(live).items()}
        assert statuses == {"read": "ok", "glob": "ok", "write": "denied", "nope": "error", "invalid": "error", "edit": "ok",
                            "! seq 1 5; echo oops >&2; exit 2": "error"}
        assert calls(live)["edit"][6]["type"] == "diff", "the Edit's diff, which the history does not hold"
        assert calls(live)["! seq 1 5; echo oops >&2; exit 2"][4] == "1\n2\n3\n4\n5\noops\nExit code 2"
        ran = {key: c[7] for key, c in calls(replayed).items()}
        assert ran == {"read": True, "glob": True, "write": False, "nope": False, "invalid": False, "edit": True,
                       "! seq 1 5; echo oops >&2; exit 2": True}
        assert [e.text for e in replayed if isinstance(e, PromptReplayed)] == ["tidy up", "!seq 1 5; echo oops >&2; exit 2"]

    async def test_without_what_was_recorded_nothing_is_made_up(self, make_harness) -> None:
        h, live = await a_live_session(make_harness)
        conv = load(h.agent.session.transcript_path)
        conv.tool_meta, conv.shell_records = {}, []  # an older file of ours: the history alone
        replayed = replay(conv)
        finished = {e.id: e for e in replayed if isinstance(e, ToolFinished)}
        assert not any(isinstance(e, ToolStarted) for e in replayed), "no duration is known: none is shown"
        assert all(e.lane == -1 for e in finished.values())
        assert finished["write"].status == "denied" and finished["write"].data == {"type": "denied", "words": "not that one"}
        assert finished["nope"].status == "error" and finished["read"].status == "ok"
        shell = [e for e in finished.values() if e.id.startswith("shell")]
        assert [(e.status, e.preview) for e in shell] == [("error", "1\n2\n3\n4\n5\noops\nExit code 2")]

    def test_records_are_matched_to_commands_from_the_end(self) -> None:
        def bang(command: str) -> dict[str, Any]:
            return {"role": "user", "content": [{"type": "text", "text": f"<bash-input>{command}</bash-input>"},
                                                {"type": "text", "text": "<bash-stdout>x</bash-stdout><bash-stderr></bash-stderr>"}]}

        history = [bang("make"), {"role": "assistant", "content": [{"type": "text", "text": "ok"}]}, bang("make"), bang("ls"), bang("make")]
        conv = Conversation(history=history, metas=[None] * 5, hidden=[False] * 5)
        records = [record_data(f"r{i}", c, "ok", d, None) for i, (c, d) in enumerate([("make", 100), ("make", 200), ("ls", 300), ("make", 400)])]
        conv.shell_records = records
        replayed = replay(conv, last=3)  # the first `make` is not shown
        assert [e.duration for e in replayed if isinstance(e, ToolFinished)] == [0.2, 0.3, 0.4]


def cc_line(kind: str, content: Any, parent: str | None, **extra: Any) -> dict[str, Any]:
    """A Claude Code transcript line (the fields its reader needs)."""
    message = {"role": kind, "content": content}
    if kind == "assistant":
        message.update(id=extra.pop("msg_id", "msg_" + uuid.uuid4().hex[:8]), model="claude-sonnet-4-6", stop_reason="tool_use")
    return {"parentUuid": parent, "isSidechain": False, "type": kind, "message": message, "uuid": str(uuid.uuid4()),
            "timestamp": "2026-01-01T00:00:00.000Z", "sessionId": "cc", "cwd": "/p", "version": "2.1.0", **extra}


def cc_conversation(*lines: tuple[str, Any, dict[str, Any]]) -> Conversation:
    out, parent = [], None
    for kind, content, extra in lines:
        line = cc_line(kind, content, parent, **extra)
        out.append(line)
        parent = line["uuid"]
    return rebuild(json.loads(json.dumps(out)))


class TestClaudeCodesFiles:
    def test_a_rejection_an_interruption_and_a_bang_command_replay_as_our_cells(self) -> None:
        rejected = ("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, "
                    "the new_string was NOT written to the file). To tell you how to proceed, the user said:\nuse tabs")
        conv = cc_conversation(
            ("user", "fix it", {}),
            ("assistant", [{"type": "tool_use", "id": "t1", "name": "Edit", "input": {"file_path": "/p/a.py", "old_string": "a", "new_string": "b"}}], {"msg_id": "m1"}),
            ("assistant", [{"type": "tool_use", "id": "t2", "name": "Task", "input": {"description": "look", "prompt": "p", "subagent_type": "Explore"}}], {"msg_id": "m1"}),
            ("user", [{"type": "tool_result", "tool_use_id": "t1", "content": rejected, "is_error": True}], {"toolUseResult": "Error"}),
            ("user", [{"type": "tool_result", "tool_use_id": "t2", "content": "[Request interrupted by user for tool use]", "is_error": True}], {}),
            ("user", [{"type": "text", "text": "[Request interrupted by user for tool use]"}], {}),
            ("user", "<bash-input>ls</bash-input>", {}),
            ("user", "<bash-stdout>a.txt\nb &amp; &lt;c&gt;</bash-stdout><bash-stderr></bash-stderr>", {}),
            ("assistant", [{"type": "text", "text": "two files"}], {"msg_id": "m2"}),
        )
        replayed = replay(conv)
        finished = {e.id: e for e in replayed if isinstance(e, ToolFinished)}
        queued = {e.id: e for e in replayed if isinstance(e, ToolQueued)}
        assert finished["t1"].status == "denied" and finished["t1"].data == {"type": "denied", "words": "use tabs"}
        assert finished["t2"].status == "cancelled" and queued["t2"].summary == "Explore: look"
        assert any(isinstance(e, LoopEnded) and e.reason == "aborted" for e in replayed)
        shell = [e for e in finished.values() if e.id.startswith("shell")]
        assert [(queued[e.id].summary, e.status, e.preview) for e in shell] == [("! ls", "ok", "a.txt\nb & <c>")]
        assert [e.text for e in replayed if isinstance(e, PromptReplayed)] == ["fix it", "!ls"]
        assert all(e.lane == -1 for e in finished.values()), "Claude Code records no durations: none is shown"
        assert "<bash-" not in repr([e for e in replayed if not isinstance(e, (ToolQueued, ToolFinished))][:-1])

    def test_the_rejection_text_is_the_one_the_executor_writes(self) -> None:
        assert REJECTED.startswith(DENIED_PREFIXES)


def persisted(saved: Path) -> Conversation:
    stdout = f"<persisted-output>\nOutput too large (23.3KB). Full output saved to: {saved}\n\nPreview (first 2.0KB):\n1\n2\n...\n</persisted-output>"
    return Conversation(history=[{"role": "user", "content": [{"type": "text", "text": "<bash-input>seq 1 5000</bash-input>"},
                                                              {"type": "text", "text": f"<bash-stdout>{stdout}</bash-stdout><bash-stderr></bash-stderr>"}]}],
                        metas=[None], hidden=[False])


def test_a_persisted_bang_output_is_read_back_whole(data_home: Path) -> None:
    """The model got a preview naming the file: the cell shows the file's whole text."""
    whole = "\n".join(str(n) for n in range(1, 5001))
    saved = sessions_root() / "-work" / "some-session" / "tool-results" / "bash_1.txt"
    saved.parent.mkdir(parents=True)
    saved.write_text(whole)
    finished = [e for e in replay(persisted(saved)) if isinstance(e, ToolFinished)]
    assert [(e.preview, e.data) for e in finished] == [(whole, {"type": "user_shell", "outputPath": str(saved)})]


def test_a_transcript_naming_a_file_outside_the_sessions_output_folders_gets_the_preview_only(data_home: Path, tmp_path: Path) -> None:
    """The path comes from a transcript: only a session's own tool-results/ are read back (a file that
    names ~/.ssh/id_rsa shows the preview it carries, never the key)."""
    secret = tmp_path / "home" / ".ssh" / "tool-results" / "id_rsa"
    secret.parent.mkdir(parents=True)
    secret.write_text("-----BEGIN OPENSSH PRIVATE KEY-----")
    link = sessions_root() / "-work" / "s" / "tool-results" / "bash_2.txt"
    link.parent.mkdir(parents=True)
    link.symlink_to(secret)
    for saved in (secret, link):
        finished = [e for e in replay(persisted(saved)) if isinstance(e, ToolFinished)]
        assert len(finished) == 1 and "PRIVATE KEY" not in finished[0].preview and "Preview (first 2.0KB)" in finished[0].preview


async def test_an_output_past_the_shells_memory_reads_back_as_its_cell_showed_it(make_harness) -> None:
    """Over the capture's memory the cell showed head and tail around a note; the file holds the whole
    stream (bytes that are not UTF-8 included): read back, the same text."""
    h = make_harness([Reply([Text("ok")])], tools=default_tools())
    await ShellCommand(h.agent, "printf 'bad \\377 byte\\n'; seq 1 300000; printf 'end \\376\\n'").run()
    live = [e for e in h.events if isinstance(e, ToolFinished)][-1]
    assert "bytes omitted; the full output is in" in live.preview and "\\xff" in live.preview and "\\xfe" in live.preview
    path = h.agent.session.transcript_path
    replayed = [e for e in replay(load(path)) if isinstance(e, ToolFinished)]
    assert [(e.preview, e.data, e.duration) for e in replayed] == [(live.preview, live.data, int(live.duration * 1000) / 1000)]
