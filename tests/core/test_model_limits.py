"""Output limits per model (issue 26 A): no request asks for more output than its model allows, and a thinking
budget stays within the API's rules — the loop's requests, the raised retry of a cut tool call, a compaction
with thinking on, a subagent's, WebFetch's small model's; an unknown model is named once per session.

The scripted model is given the API's own checks (`api_rules`): a request over the model's maximum, or with a
budget under 1,024 or not below max_tokens, gets the 400 the API sends, so a request that would fail for real
fails here too."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import pytest

from tests.core.context.scripts import conversation, is_summary_request
from tests.core.support import sample_tools
from tests.core.test_stop_reasons import cut_write
from tests.core.test_subagents import agent_call
from tests.core.test_subagents import tools as subagent_tools
from tests.tools.test_web_fetch import Site, site  # noqa: F401  (the local web site fixture)
from tui_agent.core.events import CompactionFinished, Notice
from tui_agent.core.model_limits import MIN_THINKING_BUDGET, UNKNOWN_MODEL_CEILING, OutputLimits, canonical, fit_output, known_ceiling
from tui_agent.providers.scripted import Conversations, Reply, Step, Text, ToolUse, fault

OPUS_4_1 = "claude-opus-4-1-20250805"


def api_rules(script: list[Step] | Callable[[dict[str, Any], int], Step], ceilings: dict[str, int]) -> Callable[[dict[str, Any], int], Step]:
    """`script`, behind the checks the API makes before answering; only accepted requests step it."""
    accepted = [0]

    def handler(body: dict[str, Any], _index: int) -> Step:
        model, wanted = body["model"], body["max_tokens"]
        limit = ceilings.get(model)
        if limit is not None and wanted > limit:
            return fault(400, f"max_tokens: {wanted} > {limit}, which is the maximum allowed number of output tokens for {model}")
        thinking = body.get("thinking") or {}
        if thinking.get("type") == "enabled":
            budget = thinking["budget_tokens"]
            if budget < MIN_THINKING_BUDGET:
                return fault(400, "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024")
            if budget >= wanted:
                return fault(400, "`max_tokens` must be greater than `thinking.budget_tokens`")
        n = accepted[0]
        accepted[0] += 1
        if callable(script):
            return script(body, n)
        return script[n] if n < len(script) else Reply([Text(f"(no reply #{n + 1})")])

    return handler


def settings_file(tmp_path: Path, data: dict[str, Any]) -> Path:
    path = tmp_path / "limits-settings.json"
    path.write_text(json.dumps(data))
    return path


class TestTheTable:
    def test_dated_ids_aliases_and_provider_names_find_their_family(self):
        assert known_ceiling(OPUS_4_1) == known_ceiling("claude-opus-4-1") == 32_000
        assert known_ceiling("us.anthropic.claude-opus-4-1-20250805-v1:0") == 32_000  # Bedrock
        assert known_ceiling("claude-opus-4-1@20250805") == 32_000  # Vertex
        assert known_ceiling("anthropic/claude-opus-4.1") == 32_000
        assert known_ceiling("claude-opus-4-20250514") == 32_000
        assert known_ceiling("claude-opus-4-5-20251101") == 64_000
        assert known_ceiling("claude-opus-4-6") == 128_000
        assert known_ceiling("claude-sonnet-4-5") == known_ceiling("claude-sonnet-4-20250514") == 64_000
        assert known_ceiling("claude-sonnet-4-6[1m]") == 64_000
        assert known_ceiling("claude-haiku-4-5-20251001") == 64_000
        assert known_ceiling("claude-3-7-sonnet-20250219") == 64_000
        assert known_ceiling("claude-3-5-haiku-20241022") == 8_192
        assert known_ceiling("claude-3-haiku-20240307") == 4_096
        assert canonical("global.anthropic.claude-haiku-4-5-20251001-v1:0") == "claude-haiku-4-5-20251001-v1:0"

    def test_a_family_is_matched_whole_and_unknown_names_are_unknown(self):
        assert known_ceiling("claude-opus-4-10") == 32_000, "4-10 is not 4-1: only the opus-4 family is known"
        assert known_ceiling("my-local-llm") is None and known_ceiling("claude-next") is None
        assert OutputLimits().ceiling("my-local-llm") == UNKNOWN_MODEL_CEILING == 8_192

    def test_a_users_figure_decides_an_unknown_model_and_can_only_lower_a_known_one(self):
        limits = OutputLimits(explicit=50_000, overrides={"local": {"maxOutputTokens": 12_000}})
        assert limits.ceiling("local-coder") == 12_000 and limits.ceiling("other-llm") == 50_000
        assert limits.ceiling(OPUS_4_1) == 32_000 and OutputLimits(explicit=2_000).ceiling(OPUS_4_1) == 2_000

    def test_fit_output_keeps_every_request_valid(self):
        for ceiling in (600, 1_024, 1_025, 4_096, 8_192, 32_000, 64_000):
            for wanted in (1, 1_000, 16_000, 51_999, 200_000):
                for budget in (None, 0, 500, 1_024, 10_000, 31_999, 100_000):
                    max_tokens, fitted = fit_output(ceiling, wanted, budget)
                    assert 1 <= max_tokens <= ceiling, (ceiling, wanted, budget)
                    if fitted is not None:
                        assert MIN_THINKING_BUDGET <= fitted < max_tokens, (ceiling, wanted, budget)
        assert fit_output(32_000, 51_999, 31_999, 20_000) == (32_000, 12_000), "the budget shrinks, the summary keeps its room"


class TestEveryRequestKind:
    async def test_a_loop_request_asks_no_more_than_the_model_allows(self, make_harness):
        h = make_harness(api_rules([Reply([ToolUse("SleepRead", {"text": "a"})]), Reply([Text("done")])], {"claude-3-5-haiku-20241022": 8_192}),
                         tools=sample_tools(), model="claude-3-5-haiku-20241022")
        ended = await h.agent.run("go")
        assert ended.reason == "completed" and ended.result == "done"
        assert [r["max_tokens"] for r in h.requests] == [8_192, 8_192]

    async def test_thinking_on_opus_4_1_shrinks_its_budget_under_the_ceiling(self, make_harness):
        h = make_harness(api_rules([Reply([Text("hi")])], {OPUS_4_1: 32_000}), model=OPUS_4_1, thinking="enabled")
        ended = await h.agent.run("hi")
        assert ended.reason == "completed"
        [request] = h.requests
        assert request["max_tokens"] == 32_000
        assert request["thinking"] == {"type": "enabled", "budget_tokens": 32_000 - 4_096}

    async def test_a_cut_tool_call_is_retried_with_the_ceiling_the_user_gave_an_unknown_model(self, make_harness, tmp_path):
        target = tmp_path / "work" / "big.txt"
        settings = settings_file(tmp_path, {"contextWindows": {"local-coder": {"maxOutputTokens": 24_000}}})
        script = [Reply([cut_write(str(target))], stop_reason="max_tokens"),
                  Reply([ToolUse("Write", {"file_path": str(target), "content": "whole"}, id="w")]), Reply([Text("written")])]
        from tui_agent.tools.registry import default_tools

        h = make_harness(api_rules(script, {"local-coder": 24_000}), tools=default_tools(), model="local-coder",
                         allowed_tools=["Write"], settings_file=settings)
        ended = await h.agent.run("go")
        assert ended.reason == "completed" and target.read_text() == "whole"
        assert [r["max_tokens"] for r in h.requests] == [16_000, 24_000, 16_000], "raised once, to the user's figure"
        assert not [n for n in h.of(Notice) if "local-coder" in n.text], "the user gave the figure: nothing to tell"

    async def test_a_compaction_with_thinking_on_opus_4_1_fits_under_32000(self, make_harness):
        handler, seen = conversation([Reply([Text("first answer")])])
        h = make_harness(api_rules(handler, {OPUS_4_1: 32_000}), tools=sample_tools(), model=OPUS_4_1, thinking="enabled")
        await h.agent.run("first prompt")
        finished = await h.agent.compact()
        assert isinstance(finished, CompactionFinished) and finished.outcome == "compacted", finished.detail
        [summary] = seen["summaries"]
        assert is_summary_request(summary)
        budget = summary["thinking"]["budget_tokens"]
        assert summary["max_tokens"] <= 32_000 and MIN_THINKING_BUDGET <= budget < summary["max_tokens"]
        assert summary["max_tokens"] - budget >= 20_000, "the summary keeps Claude Code's 20 k of room above the budget"

    async def test_a_subagent_on_another_model_asks_within_that_models_ceiling(self, make_harness, tmp_path):
        folder = tmp_path / "work" / ".claude" / "agents"
        folder.mkdir(parents=True)
        (folder / "old.md").write_text("---\nname: old\ndescription: An old small model\nmodel: claude-3-haiku-20240307\n---\nBe brief.\n")
        routes = Conversations({
            "MAIN": [Reply([agent_call("TASKA", subagent_type="old")]), Reply([Text("ok")])],
            "TASKA": [Reply([Text("A report")])],
        })
        h = make_harness(api_rules(routes, {"claude-3-haiku-20240307": 4_096, "claude-sonnet-4-6": 64_000}), tools=subagent_tools())
        ended = await h.agent.run("MAIN: go")
        assert ended.result == "ok"
        [child] = routes.requests["TASKA"]
        assert child["model"] == "claude-3-haiku-20240307" and child["max_tokens"] == 4_096
        assert all(r["max_tokens"] == 16_000 for r in routes.requests["MAIN"])

    async def test_webfetchs_small_model_asks_within_its_ceiling(self, make_harness, tmp_path, site, monkeypatch):  # noqa: F811
        monkeypatch.setenv("ANTHROPIC_SMALL_FAST_MODEL", "local-small")
        settings = settings_file(tmp_path, {"contextWindows": {"local-small": {"maxOutputTokens": 2_000}}})
        main = [Reply([ToolUse("WebFetch", {"url": site + "/article", "prompt": "What is new?"}, id="f")]), Reply([Text("done")])]
        small: list[dict[str, Any]] = []

        def route(body: dict[str, Any], n: int) -> Step:
            if body["model"] == "local-small":
                small.append(body)
                return Reply([Text("Version 2.0 adds docs.")])
            return main[n - len(small)]

        h = make_harness(api_rules(route, {"local-small": 2_000}), allowed_tools=["WebFetch"], settings_file=settings)
        ended = await h.agent.run("read the page")
        assert ended.result == "done" and Site.hits == ["/article"]
        [request] = small
        assert request["max_tokens"] == 2_000, "WebFetch asks 4,096 of a model that allows 2,000"
        assert "Version 2.0 adds docs." in json.dumps(h.requests[-1]["messages"][-1])


class TestUnknownModel:
    async def test_an_unknown_model_gets_8192_and_is_named_exactly_once_per_session(self, make_harness):
        script = [Reply([ToolUse("SleepRead", {"text": "a"})]), Reply([Text("one")]), Reply([ToolUse("SleepRead", {"text": "b"})]), Reply([Text("two")])]
        h = make_harness(api_rules(script, {"my-local-llm": 8_192}), tools=sample_tools(), model="my-local-llm")
        await h.agent.run("first")
        ended = await h.agent.run("second")
        assert ended.result == "two" and len(h.requests) == 4
        assert {r["max_tokens"] for r in h.requests} == {8_192}
        told = [n for n in h.of(Notice) if "my-local-llm" in n.text]
        assert len(told) == 1 and "8,192" in told[0].text and "CLAUDE_CODE_MAX_OUTPUT_TOKENS" in told[0].text

    async def test_claude_code_max_output_tokens_is_what_requests_ask_for(self, make_harness, monkeypatch):
        monkeypatch.setenv("CLAUDE_CODE_MAX_OUTPUT_TOKENS", "30000")
        h = make_harness(api_rules([Reply([Text("x")])], {"my-local-llm": 30_000}), tools=sample_tools(), model="my-local-llm")
        await h.agent.run("go")
        assert h.requests[0]["max_tokens"] == 30_000
        assert not [n for n in h.of(Notice) if "my-local-llm" in n.text]


@pytest.mark.parametrize("model", ["claude-sonnet-4-6", OPUS_4_1])
async def test_known_models_are_never_named(make_harness, model):
    h = make_harness([Reply([Text("x")])], tools=sample_tools(), model=model)
    await h.agent.run("go")
    assert not [n for n in h.of(Notice) if "output limits" in n.text]
