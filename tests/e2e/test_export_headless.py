"""`tui-agent -c -p "/export [file]"`: the conversation as Markdown from a script, without a model request."""

from __future__ import annotations

import json

from tests.e2e.test_headless import env, run_cli, serve, work  # noqa: F401 (fixtures)
from tui_agent.providers.scripted import Reply, Text


def test_export_of_a_continued_session_prints_its_markdown_without_asking_the_model(env, work):  # noqa: F811
    with serve([Reply([Text("The answer is 42.")])], env):
        first = run_cli(["-p", "what is the answer?"], env, work)
    assert first.returncode == 0, first.stderr
    with serve([], env) as server:
        proc = run_cli(["-c", "-p", "/export"], env, work)
        written = run_cli(["-c", "-p", "/export notes", "--output-format", "json"], env, work)
    assert proc.returncode == 0, proc.stderr
    assert server.model.requests == []
    assert "## User\n\nwhat is the answer?" in proc.stdout and "The answer is 42." in proc.stdout
    result = json.loads(written.stdout.splitlines()[-1])
    assert written.returncode == 0 and result["is_error"] is False and result["num_turns"] == 0
    assert result["result"] == f"Conversation exported to: {work / 'notes.md'}"
    assert "The answer is 42." in (work / "notes.md").read_text()


def test_export_with_nothing_to_export_is_a_clear_error(env, work):  # noqa: F811
    with serve([], env) as server:
        text = run_cli(["-p", "/export"], env, work)
        as_json = run_cli(["-p", "/export", "--output-format", "json"], env, work)
    assert server.model.requests == []
    assert text.returncode == 1 and "Error: No conversation to export: resume one with --resume or --continue." in text.stderr
    result = json.loads(as_json.stdout.splitlines()[-1])
    assert as_json.returncode == 1 and result["is_error"] is True and result["subtype"] == "error_during_execution"


def test_a_prompt_that_only_starts_with_export_goes_to_the_model(env, work):  # noqa: F811
    with serve([Reply([Text("sure")])], env) as server:
        proc = run_cli(["-p", "/exporting is a word"], env, work)
    assert proc.returncode == 0 and len(server.model.requests) == 1
