"""Session options of the real claude-agent-sdk (`resume`, `continue_conversation`, `fork_session`)
reach tui-agent's sessions: the next query carries the earlier conversation to the model."""

from __future__ import annotations

from typing import Any

import pytest
from claude_agent_sdk import ProcessError, ResultMessage, query

from tui_agent.providers.scripted import Reply, Text


async def result_of(prompt: str, options: Any) -> ResultMessage:
    messages = [m async for m in query(prompt=prompt, options=options)]
    result = messages[-1]
    assert isinstance(result, ResultMessage), messages
    return result


def prompts_sent(request: dict[str, Any]) -> list[str]:
    """The user's own words in one request (memory reminders left out)."""
    out = []
    for message in request["messages"]:
        if message["role"] != "user":
            continue
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        out += [b["text"] for b in blocks if b.get("type") == "text" and not b["text"].startswith("<system-reminder>")]
    return out


class TestSessionOptions:
    async def test_resume_continue_and_fork_carry_the_conversation(self, make_run):
        run = make_run([Reply([Text("first answer")]), Reply([Text("second answer")]), Reply([Text("third answer")]), Reply([Text("fourth")])])
        first = await result_of("remember the word kiwi", run.options())
        assert first.subtype == "success"

        resumed = await result_of("what was the word?", run.options(resume=first.session_id))
        assert resumed.session_id == first.session_id  # the same session, continued
        assert prompts_sent(run.requests[1]) == ["remember the word kiwi", "what was the word?"]

        continued = await result_of("and again?", run.options(continue_conversation=True))
        assert continued.session_id == first.session_id
        assert prompts_sent(run.requests[2]) == ["remember the word kiwi", "what was the word?", "and again?"]

        forked = await result_of("a branch", run.options(resume=first.session_id, fork_session=True))
        assert forked.session_id != first.session_id  # a new session holding a copy of the history
        assert prompts_sent(run.requests[3])[:3] == ["remember the word kiwi", "what was the word?", "and again?"]
        assert not any("not act on" in line or "ignored" in line for line in run.stderr if "resume" in line or "fork" in line)

    async def test_an_unknown_session_id_is_an_error_the_program_sees(self, make_run):
        run = make_run([Reply([Text("never")])])
        with pytest.raises(ProcessError) as failed:
            await result_of("hi", run.options(resume="6f1e1a52-0000-4000-8000-000000000000"))
        assert failed.value.exit_code == 1
        assert any("No conversation found with session ID" in line for line in run.stderr)
        assert run.requests == []
