"""The path a result takes back to the model (DESIGN §1.10), and shell siblings (§1.9), end to end."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import psutil
from pydantic import Field

from tests.core.support import SleepRead, assert_history_valid, count_sleeping, sample_tools
from tui_agent.core.results import ResultStore, truncate_error
from tui_agent.providers.scripted import Reply, Text, ToolUse
from tui_agent.tools.base import ToolInput, ToolOutput
from tui_agent.tools.builtin import all_tools


class BigInput(ToolInput):
    size: int = Field(description="characters to return")
    error: bool = Field(False, description="return it as an error")


class Big(SleepRead):
    """Returns `size` characters: drives every branch of the pipeline with exact sizes."""

    name = "Big"
    aliases = ()
    Input = BigInput  # type: ignore[assignment]
    max_result_size_chars = 50_000

    async def call(self, input: BigInput, ctx) -> ToolOutput:  # type: ignore[override]
        body = "".join(chr(ord("a") + i % 26) for i in range(input.size))
        return ToolOutput(body, is_error=input.error)


def tools():
    return [*sample_tools(), Big()]


PERSISTED = re.compile(r"<persisted-output>\nOutput too large \((.+?)\)\. Full output saved to: (\S+)\n\nPreview \(first (.+?)\):\n", re.S)


class TestShaping:
    def test_long_errors_keep_head_and_tail(self):
        text = "h" * 6000 + "m" * 3000 + "t" * 6000
        out = truncate_error(text)
        assert out.startswith("h" * 5000) and out.endswith("t" * 5000)
        assert "... [5000 characters truncated] ..." in out
        assert truncate_error("short") == "short"

    async def test_an_oversized_result_is_saved_and_previewed(self, make_harness):
        h = make_harness([Reply([ToolUse("Big", {"size": 60_000}, id="big")]), Reply([Text("ok")])], tools=tools())
        await h.agent.run("go")
        content = h.agent.history[2]["content"][0]["content"]
        m = PERSISTED.match(content)
        assert m, content[:300]
        saved = Path(m.group(2))
        assert saved == h.agent.session.dir / "tool-results" / "big.txt"
        assert len(saved.read_text()) == 60_000
        assert content.endswith("</persisted-output>") and len(content) < 2_400

    async def test_an_oversized_error_is_truncated_not_persisted(self, make_harness):
        h = make_harness([Reply([ToolUse("Big", {"size": 60_000, "error": True})]), Reply([Text("ok")])], tools=tools())
        await h.agent.run("go")
        content = h.agent.history[2]["content"][0]["content"]
        assert "characters truncated" in content and "<persisted-output>" not in content

    async def test_the_turn_budget_replaces_the_largest_results_first(self, make_harness):
        sizes = {"a": 40_000, "b": 30_000, "c": 20_000, "d": 10_000}
        blocks = [ToolUse("Big", {"size": n}, id=i) for i, n in sizes.items()]
        h = make_harness([Reply(blocks), Reply([Text("ok")])], tools=tools(), message_budget=50_000)
        await h.agent.run("go")
        results = {b["tool_use_id"]: b["content"] for b in h.agent.history[2]["content"]}
        assert results["a"].startswith("<persisted-output>") and results["b"].startswith("<persisted-output>")
        assert len(results["c"]) == 20_000 and len(results["d"]) == 10_000

    async def test_a_replaced_result_stays_byte_identical_in_every_later_request(self, make_harness):
        script = [
            Reply([ToolUse("Big", {"size": 60_000}, id="big"), ToolUse("Big", {"size": 100}, id="small")]),
            Reply([ToolUse("SleepRead", {"text": "x"})]),
            Reply([ToolUse("SleepRead", {"text": "y"})]),
            Reply([Text("ok")]),
        ]
        h = make_harness(script, tools=tools())
        await h.agent.run("go")
        await h.agent.run("again")
        sent = [r["messages"][2]["content"] for r in h.requests[1:]]
        strip = [[{k: v for k, v in b.items() if k != "cache_control"} for b in blocks] for blocks in sent]
        assert len(strip) == 4 and all(s == strip[0] for s in strip)
        assert h.agent.results.frozen("big") == strip[0][0]["content"]

    def test_a_frozen_decision_is_reapplied_identically(self, tmp_path):
        store = ResultStore(tmp_path, message_budget=1_000)
        first = store.apply_budget([store.shape("T", "id1", "x" * 5_000, False, 100_000)])
        again = store.shape("T", "id1", "different now", False, 100_000)
        assert again.content == first[0].content


class TestShellSiblings:
    async def test_a_failing_shell_command_cancels_its_running_shell_siblings_only(self, make_harness):
        script = [
            Reply([
                ToolUse("Bash", {"command": "sleep 30"}, id="sibling"),
                ToolUse("SleepRead", {"seconds": 0.6, "text": "unaffected"}, id="other"),
                ToolUse("Bash", {"command": "sleep 0.2; ls no/such/dir"}, id="failing"),  # inside the workspace: runs without asking
            ]),
            Reply([Text("ok")]),
        ]
        h = make_harness(script, tools=[*sample_tools(), *all_tools()])
        await h.agent.model.client()  # the SDK's import (seconds on a loaded machine) is not the point
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        await h.agent.run("go")
        assert loop.time() - t0 < 25, "the sibling's 30 s sleep was cancelled"
        results = {b["tool_use_id"]: b for b in h.agent.history[2]["content"]}
        assert results["failing"]["is_error"] and "Exit code 2" in results["failing"]["content"]
        assert results["sibling"]["is_error"]
        assert "parallel shell command `sleep 0.2; ls no/such/dir` failed" in results["sibling"]["content"]
        assert results["other"]["content"] == "unaffected"

    async def test_abort_while_shells_run_leaves_no_process(self, make_harness):
        script = [Reply([ToolUse("Bash", {"command": "sleep 30"}, id=f"s{i}") for i in range(3)]
                        + [ToolUse("Bash", {"command": "setsid sleep 31 & sleep 32; wait"}, id="tree")])]
        h = make_harness(script, tools=all_tools(), permission_mode="bypassPermissions")
        run = asyncio.create_task(h.agent.run("go"))
        me = psutil.Process()
        for _ in range(3000):  # a safety net of a minute: it goes on as soon as they run
            await asyncio.sleep(0.02)
            if count_sleeping(me.children(recursive=True)) >= 3:
                break
        before = [p for p in me.children(recursive=True)]
        h.agent.abort()
        ended = await run
        assert ended.reason == "aborted"

        def alive() -> list[psutil.Process]:
            return [p for p in before if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]

        for _ in range(3000):  # a SIGKILLed process may take a moment to be gone on a busy machine
            if not alive():
                break
            await asyncio.sleep(0.02)
        assert not alive()
        assert_history_valid(h.agent.history)
        await h.agent.close()
