"""A `!` command's output is whole: the cell's event carries all of it, and the model gets it under a Bash
result's rules (over Bash's `max_result_size_chars` it is saved under the session folder and the model
gets a <persisted-output> preview naming the file), never its last 200 characters."""

from __future__ import annotations

import re
from pathlib import Path

from tui_agent.core.events import ToolFinished
from tui_agent.core.session import load
from tui_agent.core.shell_mode import ShellCommand
from tui_agent.providers.scripted import Reply, Text
from tui_agent.tools.bash import BashTool
from tui_agent.tools.registry import default_tools


def sent_output(request: dict) -> str:
    """The `<bash-stdout>…<bash-stderr>…` text the model got for the `!` command."""
    return request["messages"][-1]["content"][1]["text"]


def seq(first: int, last: int) -> str:
    return "\n".join(str(n) for n in range(first, last + 1))


class TestTheModelsMessage:
    async def test_a_short_output_is_sent_whole(self, make_harness) -> None:
        h = make_harness([Reply([Text("ok")])], tools=default_tools())
        await ShellCommand(h.agent, "seq 1 300").run()
        assert sent_output(h.requests[0]) == f"<bash-stdout>{seq(1, 300)}</bash-stdout><bash-stderr></bash-stderr>"

    async def test_a_long_output_is_saved_and_previewed_as_a_bash_result_is(self, make_harness) -> None:
        h = make_harness([Reply([Text("ok")])], tools=default_tools())
        await ShellCommand(h.agent, "seq 1 20000; echo '<end> & done'").run()
        whole = seq(1, 20000) + "\n<end> & done"
        assert len(whole) > BashTool.max_result_size_chars
        sent = sent_output(h.requests[0])
        found = re.fullmatch(r"<bash-stdout><persisted-output>\nOutput too large \((\S+)\)\. Full output saved to: (\S+)\n\n"
                             r"Preview \(first 2\.0KB\):\n(.*)\n\.\.\.\n</persisted-output></bash-stdout><bash-stderr></bash-stderr>",
                             sent, re.DOTALL)
        assert found is not None, sent[:400]
        path = Path(found.group(2))
        assert path.read_text() == whole, "the file holds all of it"
        assert path.parent == h.agent.session.dir / "tool-results"
        assert found.group(3) == whole[:2000]
        assert len(sent) < 2600

    async def test_a_failing_commands_long_output_is_saved_and_its_exit_code_kept(self, make_harness) -> None:
        h = make_harness([Reply([Text("ok")])], tools=default_tools())
        await ShellCommand(h.agent, "seq 1 20000; exit 3").run()
        sent = sent_output(h.requests[0])
        assert sent.startswith("<bash-stdout><persisted-output>\nOutput too large") and "characters truncated" not in sent
        assert sent.endswith("</persisted-output></bash-stdout><bash-stderr>Exit code 3</bash-stderr>")
        path = Path(re.search(r"Full output saved to: (\S+)", sent).group(1))  # type: ignore[union-attr]
        assert path.read_text() == seq(1, 20000)

    async def test_output_with_tags_is_escaped_so_it_cannot_close_ours(self, make_harness) -> None:
        h = make_harness([Reply([Text("ok")])], tools=default_tools())
        await ShellCommand(h.agent, "echo '</bash-stdout><b>&'").run()
        assert sent_output(h.requests[0]) == "<bash-stdout>&lt;/bash-stdout&gt;&lt;b&gt;&amp;</bash-stdout><bash-stderr></bash-stderr>"


class TestTheCell:
    async def test_the_cells_event_carries_every_line(self, make_harness) -> None:
        h = make_harness([Reply([Text("ok")])], tools=default_tools())
        await ShellCommand(h.agent, "seq 1 20000; echo oops >&2; exit 1").run()
        finished = h.of(ToolFinished)[-1]
        assert finished.preview == seq(1, 20000) + "\noops\nExit code 1", "all of it, not its last 200 characters"
        assert finished.status == "error" and Path(finished.data["outputPath"]).read_text().endswith("20000\noops")

    async def test_what_the_history_does_not_hold_is_recorded_beside_it(self, make_harness) -> None:
        h = make_harness([Reply([Text("ok")])], tools=default_tools())
        await ShellCommand(h.agent, "echo hi").run()
        finished = h.of(ToolFinished)[-1]
        records = load(h.agent.session.transcript_path).shell_records
        assert records == [{"subtype": "shell_command", "id": finished.id, "command": "echo hi", "status": "ok",
                            "durationMs": int(finished.duration * 1000)}]
