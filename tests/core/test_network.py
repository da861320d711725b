"""Finding 5 of issue 10: a silent or unreachable endpoint fails fast with its cause, a silent stream is
retried, pings are life, and a bad key is one clear line, never retried."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from tests.core.support import assert_history_valid, sample_tools
from tui_agent.config import AgentSettings
from tui_agent.core.events import Retrying
from tui_agent.core.model import ModelConfig, StreamSilentError, retry_plan
from tui_agent.factory import build_agent
from tui_agent.providers.scripted import Reply, SilentListener, Text, fault


def fast_limits(config: ModelConfig) -> None:
    config.connect_timeout = 0.3
    config.response_timeout = 0.3
    config.network_window = 1.5
    config.retry_base_delay = 0.05


def time_to_give_up(error: BaseException, each_attempt: float, config: ModelConfig) -> tuple[float, int]:
    """(seconds, attempts) until the retry policy gives up on attempts that each fail after `each_attempt`."""
    elapsed, attempt = 0.0, 0
    while True:
        attempt += 1
        elapsed += each_attempt
        plan = retry_plan(error, attempt, config, elapsed)
        if plan is None:
            return elapsed, attempt
        elapsed += plan.delay


async def real_endpoint_agent(tmp_path: Path, url: str, events: list):
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    agent = build_agent(AgentSettings(cwd=work, api_key="sk-test", base_url=url), emit=events.append, tools=sample_tools())
    fast_limits(agent.model.config)
    await agent.model.client()  # the SDK's import (seconds under load) is not the endpoint's time
    return agent


class TestSilentEndpoints:
    async def test_a_listener_that_accepts_and_never_answers_fails_fast_with_its_cause(self, tmp_path, data_home):
        events: list = []
        with SilentListener() as listener:
            agent = await real_endpoint_agent(tmp_path, listener.url, events)
            t0 = time.monotonic()
            ended = await asyncio.wait_for(agent.run("go"), 60)
            elapsed = time.monotonic() - t0
            await agent.close()
        assert ended.reason == "model_error"
        assert "sent no response within 0.3s" in ended.detail
        assert [e for e in events if isinstance(e, Retrying)], "retried within the window"
        assert elapsed < 10, "gives up at the network window, not after minutes"
        assert_history_valid(agent.history)

    async def test_an_endpoint_that_cannot_be_reached_fails_on_the_connect_limit(self, tmp_path, data_home):
        events: list = []
        with SilentListener(full=True) as listener:
            agent = await real_endpoint_agent(tmp_path, listener.url, events)
            agent.model.config.response_timeout = 5.0  # the connect limit must be what stops it
            ended = await asyncio.wait_for(agent.run("go"), 60)
            await agent.close()
        assert ended.reason == "model_error"
        assert "connecting to the API endpoint timed out" in ended.detail, ended.detail
        assert ended.duration_ms < 10_000

    def test_the_default_limits_give_up_on_a_silent_endpoint_within_about_30_seconds(self):
        config = ModelConfig()
        assert (config.connect_timeout, config.response_timeout, config.idle_timeout) == (10.0, 25.0, 90.0)
        silent = StreamSilentError("the API endpoint sent no response within 25s", answered=False)
        elapsed, attempt = time_to_give_up(silent, config.response_timeout, config)
        assert elapsed == 25 and attempt == 1

    def test_the_default_limits_give_up_on_an_unreachable_endpoint_within_about_30_seconds(self):
        import anthropic
        import httpx2

        config = ModelConfig()
        request = httpx2.Request("POST", "http://127.0.0.1:9/v1/messages")
        try:
            raise anthropic.APITimeoutError(request=request) from httpx2.ConnectTimeout("timed out")
        except anthropic.APITimeoutError as exc:
            unreachable = exc
        elapsed, attempt = time_to_give_up(unreachable, config.connect_timeout, config)
        assert 20 <= elapsed <= 32 and attempt == 2

    def test_the_idle_limit_is_configurable_as_claude_code_names_it(self, monkeypatch):
        monkeypatch.setenv("CLAUDE_STREAM_IDLE_TIMEOUT_MS", "2500")
        assert AgentSettings().stream_idle_timeout == 2.5
        monkeypatch.delenv("CLAUDE_STREAM_IDLE_TIMEOUT_MS")
        assert AgentSettings().stream_idle_timeout == 90.0


class TestSilentStreams:
    async def test_a_stream_that_goes_silent_is_a_dropped_connection_and_retried(self, make_harness):
        h = make_harness([Reply([Text("half " * 20)], chunk=5, hang_after=6), Reply([Text("whole")])], tools=sample_tools())
        h.agent.model.config.idle_timeout = 0.3
        h.agent.model.config.response_timeout = 600  # the idle limit, not the first-byte one, ends the silence
        ended = await asyncio.wait_for(h.agent.run("go"), 120)
        assert ended.result == "whole" and len(h.requests) == 2
        assert "Stream idle timeout" in h.of(Retrying)[0].why

    async def test_pings_are_life_a_slow_stream_is_not_cut(self, make_harness):
        h = make_harness([Reply([Text("slow but alive")], chunk=4, hang_after=4, hang_for=1.0, ping_every=0.05)], tools=sample_tools())
        h.agent.model.config.idle_timeout = 0.4
        ended = await asyncio.wait_for(h.agent.run("go"), 60)
        assert ended.result == "slow but alive" and len(h.requests) == 1 and not h.of(Retrying)


class TestBadKey:
    @pytest.mark.parametrize("status", [401, 403])
    async def test_a_rejected_key_is_one_clear_line_and_never_retried(self, make_harness, status):
        h = make_harness([fault(status, "invalid x-api-key")] * 3, tools=sample_tools())
        ended = await h.agent.run("go")
        assert ended.reason == "model_error" and ended.is_error
        assert len(h.requests) == 1 and not h.of(Retrying)
        assert "ANTHROPIC_API_KEY" in ended.detail and "\n" not in ended.detail
        assert str(status) in ended.detail
