"""Custom slash commands from real files in a scratch project (core/commands), run through run_prompt."""

from __future__ import annotations

from pathlib import Path

from tui_agent.core.commands import commands_info, load_commands
from tui_agent.core.commands.expansion import substitute
from tui_agent.core.events import Notice
from tui_agent.core.mentions import run_prompt
from tui_agent.providers.scripted import Reply, Text


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def texts(request: dict) -> list[str]:
    return [b["text"] for b in request["messages"][0]["content"] if b.get("type") == "text"]


def test_folders_namespace_the_name_and_the_project_wins(tmp_path: Path) -> None:
    work, home = tmp_path / "work", tmp_path / "home"
    write(work / ".claude/commands/greet.md", "---\ndescription: Greet someone\nargument-hint: <name>\n---\nHello $ARGUMENTS\n")
    write(work / ".claude/commands/frontend/component.md", "Make a component $ARGUMENTS\n")
    write(home / ".claude/commands/greet.md", "---\ndescription: the user's greet\n---\nHi\n")
    write(home / ".claude/commands/mine.md", "---\ndescription: Mine\nmodel: haiku\nallowed-tools: Bash(git status:*), Read\n---\nMine\n")
    found = load_commands(work, home)
    assert list(found) == ["frontend:component", "greet", "mine"]  # Claude Code's order: by path
    assert found["greet"].description == "Greet someone" and found["greet"].scope == "project"
    assert found["mine"].allowed_tools == ("Bash(git status:*)", "Read") and found["mine"].model == "haiku"
    assert found["mine"].problems == ("/mine: `model: haiku` is not applied yet; the session's model answers.",)
    # As Claude Code 2.1.197's initialize answer lists them: "(project)" after the description.
    assert commands_info(work, home)[:2] == [
        {"name": "frontend:component", "description": "Make a component $ARGUMENTS (project)", "argumentHint": ""},
        {"name": "greet", "description": "Greet someone (project)", "argumentHint": "<name>"},
    ]


def test_a_broken_front_matter_is_reported_and_the_rest_loads(tmp_path: Path) -> None:
    write(tmp_path / ".claude/commands/bad.md", "---\ndescription: [unclosed\n---\nBody\n")
    write(tmp_path / ".claude/commands/good.md", "Good\n")
    found = load_commands(tmp_path, tmp_path / "nohome")
    assert "invalid YAML front matter" in found["bad"].problems[0]
    assert found["good"].description == "Good"


def test_arguments_count_from_zero_as_claude_code_does() -> None:
    assert substitute("a=$ARGUMENTS 0=$0 1=$1 2=$2 i=$ARGUMENTS[1]", "world wide") == "a=world wide 0=world 1=wide 2= i=wide"
    assert substitute("no placeholder\n", "x y") == "no placeholder\n\nARGUMENTS: x y"
    assert substitute('$0|$1', '"two words" b') == "two words|b"


async def test_a_typed_command_expands_with_its_file_mention_and_allowed_bang(make_harness, tmp_path: Path) -> None:
    h = make_harness([Reply([Text("ok")])])
    work = Path(h.agent.workspace.root)
    write(work / "notes.txt", "the notes\n")
    write(work / ".claude/commands/greet.md",
          "---\ndescription: Greet\nallowed-tools: Bash(echo:*)\n---\nHello $ARGUMENTS, $0. See @notes.txt. Now: !`echo BANG`\n")
    ended = await run_prompt(h.agent, "/greet world wide")
    assert not ended.is_error
    sent = texts(h.requests[0])
    assert "<command-message>greet</command-message>\n<command-name>/greet</command-name>\n<command-args>world wide</command-args>\n" in sent
    assert sent[-1] == "Hello world wide, world. See @notes.txt. Now: BANG\n"
    assert any("the notes" in t for t in sent), "the @-mention in the body is attached as a typed one"
    assert any("The following skills are available for use with the Skill tool:\n\n- greet: Greet" in t for t in sent)


async def test_a_bang_line_nothing_allows_is_not_run(make_harness, tmp_path: Path) -> None:
    h = make_harness([Reply([Text("ok")])])
    work = Path(h.agent.workspace.root)
    marker = tmp_path / "ran"
    write(work / ".claude/commands/evil.md", f"Do it !`touch {marker}`\n")
    await run_prompt(h.agent, "/evil")
    assert not marker.exists()
    assert texts(h.requests[0])[-1] == f"Do it [not run: touch {marker}]\n"
    assert any("was not run" in n.text for n in h.of(Notice))


async def test_an_unknown_slash_word_is_sent_as_typed(make_harness) -> None:
    h = make_harness([Reply([Text("ok")])])
    await run_prompt(h.agent, "/nothing here")
    assert texts(h.requests[0]) == ["/nothing here"]
