"""Custom commands and skills through the real claude-agent-sdk driving the installed tui-agent: `init` and the
initialize answer list them as Claude Code 2.1.197 does, and a `/greet world` prompt is expanded."""

from __future__ import annotations

from claude_agent_sdk import ClaudeSDKClient, SystemMessage, query

from tui_agent.providers.scripted import Reply, Text


def _project(run) -> None:
    commands = run.work / ".claude" / "commands"
    (commands / "frontend").mkdir(parents=True)
    (commands / "greet.md").write_text("---\ndescription: Greet someone\nargument-hint: <name>\n---\nSay hello to $ARGUMENTS.\n")
    (commands / "frontend" / "component.md").write_text("Make a component $ARGUMENTS\n")
    skill = run.work / ".claude" / "skills" / "pdf"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: pdf\ndescription: Work with PDF files\n---\nPDF body\n")


async def test_init_lists_them_and_a_slash_prompt_expands(make_run):
    run = make_run([Reply([Text("Hello, world!")])])
    _project(run)

    messages = [m async for m in query(prompt="/greet world", options=run.options())]

    init = messages[0]
    assert isinstance(init, SystemMessage) and init.subtype == "init"
    assert init.data["slash_commands"][:3] == ["pdf", "frontend:component", "greet"]
    assert init.data["skills"] == ["pdf"]
    sent = [b["text"] for b in run.requests[0]["messages"][0]["content"]]
    assert sent[-2:] == [
        "<command-message>greet</command-message>\n<command-name>/greet</command-name>\n<command-args>world</command-args>\n",
        "Say hello to world.\n",
    ]
    assert "- pdf: Work with PDF files" in sent[0]


async def test_the_initialize_answer_has_their_descriptions_and_hints(make_run):
    run = make_run([])
    _project(run)
    async with ClaudeSDKClient(run.options()) as client:
        info = await client.get_server_info()
    assert info["commands"] == [
        {"name": "pdf", "description": "Work with PDF files (project)", "argumentHint": ""},
        {"name": "frontend:component", "description": "Make a component $ARGUMENTS (project)", "argumentHint": ""},
        {"name": "greet", "description": "Greet someone (project)", "argumentHint": "<name>"},
    ]
