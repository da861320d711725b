"""Rewind through the real claude-agent-sdk: `enable_file_checkpointing=True`, prompts echoed with their
uuids (`--replay-user-messages`), and `client.rewind_files(uuid)` restoring what the scripted model's
Write calls changed. The answers are Claude Code 2.1.197's, read from its stdout driven the same way."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from claude_agent_sdk import AssistantMessage, ClaudeSDKClient, ResultMessage, SystemMessage, UserMessage

from tests.e2e.sdk_support import Run
from tui_agent.providers.scripted import Reply, Text, ToolUse

REPLAY = {"replay-user-messages": None}


def script(work: Path) -> list[Any]:
    """Prompt 1 reads README.md and rewrites it; prompt 2 creates notes/new.txt."""
    readme, new = str(work / "README.md"), str(work / "notes" / "new.txt")
    return [
        Reply([ToolUse("Read", {"file_path": readme}, id="r1")]),
        Reply([ToolUse("Write", {"file_path": readme, "content": "# Rewritten\n"}, id="w1")]),
        Reply([Text("README rewritten.")]),
        Reply([ToolUse("Write", {"file_path": new, "content": "brand new\n"}, id="w2")]),
        Reply([Text("Notes written.")]),
        Reply([Text("Still here.")]),
    ]


async def prompt(client: ClaudeSDKClient, text: str) -> list[Any]:
    await client.query(text)
    messages = [m async for m in client.receive_response()]
    assert isinstance(messages[-1], ResultMessage) and not messages[-1].is_error, messages[-1]
    return messages


def transcript_prompts(run: Run, session_id: str) -> dict[str, str]:
    """uuid -> text of the prompt lines of the session's transcript."""
    path = next((run.work.parent / "data").rglob(f"{session_id}.jsonl"))
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return {line["uuid"]: line["message"]["content"] for line in lines
            if line.get("type") == "user" and isinstance(line["message"]["content"], str)}


class TestRewindFiles:
    async def test_rewind_to_the_first_prompt_restores_the_file_and_removes_the_created_one(self, make_run, tmp_path):
        run = make_run(script(tmp_path / "work"))  # the folder Run makes
        original = (run.work / "README.md").read_text()
        options = run.options(permission_mode="acceptEdits", enable_file_checkpointing=True, extra_args=REPLAY)
        async with ClaudeSDKClient(options) as client:
            first = await prompt(client, "rewrite the readme")
            second = await prompt(client, "write some notes")
            assert (run.work / "README.md").read_text() == "# Rewritten\n"
            assert (run.work / "notes" / "new.txt").read_text() == "brand new\n"

            # The echo comes right after init, before the answer, with the transcript's uuid of the prompt.
            kinds = [type(m).__name__ for m in first]
            assert kinds[:3] == ["SystemMessage", "UserMessage", "AssistantMessage"], kinds
            echoes = [m for m in first + second if isinstance(m, UserMessage) and isinstance(m.content, str)]
            assert [m.content for m in echoes] == ["rewrite the readme", "write some notes"]
            session_id = first[-1].session_id
            assert transcript_prompts(run, session_id) == {m.uuid: m.content for m in echoes}
            tool_results = [m for m in first + second if isinstance(m, UserMessage) and not isinstance(m.content, str)]
            assert tool_results and all(m.uuid not in transcript_prompts(run, session_id) for m in tool_results)

            with pytest.raises(Exception, match="No file checkpoint found for this message."):
                await client.rewind_files("3f1b4c1e-0000-4000-8000-000000000000")
            assert (run.work / "README.md").read_text() == "# Rewritten\n", "an unknown id changes nothing"
            with pytest.raises(Exception, match="invalid rewind_files request: user_message_id: Field required"):
                await client._query._send_control_request({"subtype": "rewind_files"})  # type: ignore[union-attr]

            await client.rewind_files(echoes[0].uuid)
            assert (run.work / "README.md").read_text() == original
            assert not (run.work / "notes" / "new.txt").exists()

            # The session goes on after a rewind.
            third = await prompt(client, "are you there?")
            assert third[-1].result == "Still here."
        assert not [line for line in run.stderr if "Traceback" in line], run.stderr

    async def test_without_file_checkpointing_rewind_is_not_enabled_and_nothing_is_echoed(self, make_run, tmp_path):
        run = make_run(script(tmp_path / "work")[:3])
        async with ClaudeSDKClient(run.options(permission_mode="acceptEdits")) as client:
            first = await prompt(client, "rewrite the readme")
            assert not [m for m in first if isinstance(m, UserMessage) and isinstance(m.content, str)]
            with pytest.raises(Exception, match="File rewinding is not enabled."):
                await client.rewind_files("3f1b4c1e-0000-4000-8000-000000000000")
        assert (run.work / "README.md").read_text() == "# Rewritten\n"
        assert not any("--replay-user-messages" in line for line in run.stderr)
        assert isinstance(first[0], SystemMessage) and isinstance(first[1], AssistantMessage)
