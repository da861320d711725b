"""The API's `web_search` runs on the API's side and can't be asked about once sent: it is offered only while
the flags and rules let WebSearch run unasked. Real `tui-agent -p` processes, the scripted model on a port."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.test_headless import env, run_cli, serve, work  # noqa: F401  (fixtures)
from tui_agent.providers.scripted import Reply, Text


def offered(env: dict[str, str], work: Path, *flags: str) -> list[str]:
    env["TUI_AGENT_WEB_SEARCH"] = "1"  # the scripted endpoint is a custom base URL: say it supports the tool
    with serve([Reply([Text("ok")])], env) as server:
        proc = run_cli(["-p", "hi", *flags], env, work)
    assert proc.returncode == 0, proc.stderr
    return [t["name"] for t in server.model.requests[0].get("tools", [])]


def test_offered_when_nothing_forbids_it(env, work):
    assert "web_search" in offered(env, work)


def test_disallowed_tools_websearch_keeps_it_out(env, work):
    assert "web_search" not in offered(env, work, "--disallowedTools", "WebSearch")


@pytest.mark.parametrize("kind", ["deny", "ask"])
def test_a_deny_or_ask_rule_in_settings_keeps_it_out(env, work, kind):
    settings = work / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"permissions": {kind: ["WebSearch"]}}))
    assert "web_search" not in offered(env, work)


def test_tools_without_websearch_keeps_it_out(env, work):
    assert offered(env, work, "--tools", "Read") == ["Read"]
