"""Skills from real files (core/skills, tools/skill.py): the listing the model gets, the Skill tool, `/name`."""

from __future__ import annotations

from pathlib import Path

from tui_agent.core.mentions import run_prompt
from tui_agent.core.skills import skill_names, skills_listing
from tui_agent.providers.scripted import Reply, Text, ToolUse
from tui_agent.tools.bash import BashTool
from tui_agent.tools.skill import SkillTool

SKILL = "---\nname: pdf\ndescription: Work with PDF files\nallowed-tools: Read\n---\nPDF skill body. Args: $ARGUMENTS\n"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_the_listing_names_skills_and_commands_with_descriptions_only(tmp_path: Path) -> None:
    write(tmp_path / ".claude/skills/pdf/SKILL.md", SKILL)
    write(tmp_path / ".claude/commands/quiet.md", "---\ndescription: Hidden\ndisable-model-invocation: true\n---\nx\n")
    write(tmp_path / "home/.claude/skills/mine/SKILL.md", "---\ndescription: My own\n---\nMine\n")
    assert skill_names(tmp_path, tmp_path / "home") == ["pdf", "mine"]
    assert skills_listing(tmp_path, tmp_path / "home") == (
        "The following skills are available for use with the Skill tool:\n\n- pdf: Work with PDF files\n- mine: My own"
    )
    assert skills_listing(tmp_path / "empty", tmp_path / "nohome") is None


def test_the_skill_tool_has_claude_codes_input_schema() -> None:
    schema = SkillTool().api_definition()["input_schema"]
    assert schema["required"] == ["skill"] and set(schema["properties"]) == {"skill", "args"}
    assert schema["additionalProperties"] is False


async def test_the_model_calls_the_skill_and_gets_its_body_and_folder(make_harness, monkeypatch, tmp_path: Path) -> None:
    work = tmp_path / "work"
    write(work / ".claude/skills/pdf/SKILL.md", SKILL)
    monkeypatch.chdir(work)  # the Skill tool is offered where the process runs and skills exist
    script = [Reply([ToolUse("Skill", {"skill": "pdf", "args": "a.pdf"}, id="toolu_1")]), Reply([Text("done")])]
    h = make_harness(script, tools=[SkillTool()])
    ended = await run_prompt(h.agent, "read my pdf")
    assert not ended.is_error
    result = next(b for b in h.requests[1]["messages"][-1]["content"] if b.get("type") == "tool_result")
    body = result["content"] if isinstance(result["content"], str) else result["content"][0]["text"]
    assert body == f"Base directory for this skill: {work / '.claude/skills/pdf'}\n\nPDF skill body. Args: a.pdf\n"
    first = [b["text"] for b in h.requests[0]["messages"][0]["content"]]
    assert first[0] == "<system-reminder>\nThe following skills are available for use with the Skill tool:\n\n- pdf: Work with PDF files\n</system-reminder>"


async def test_an_unknown_skill_is_an_error_the_model_reads(make_harness, monkeypatch, tmp_path: Path) -> None:
    write(tmp_path / "work/.claude/skills/pdf/SKILL.md", SKILL)
    monkeypatch.chdir(tmp_path / "work")
    h = make_harness([Reply([ToolUse("Skill", {"skill": "nope"}, id="toolu_1")]), Reply([Text("done")])], tools=[SkillTool()])
    await run_prompt(h.agent, "go")
    result = next(b for b in h.requests[1]["messages"][-1]["content"] if b.get("type") == "tool_result")
    assert result.get("is_error") and "Unknown skill: nope" in str(result["content"])


async def test_the_user_types_a_skill_as_a_slash_command(make_harness) -> None:
    h = make_harness([Reply([Text("ok")])])
    work = Path(h.agent.workspace.root)
    write(work / ".claude/skills/pdf/SKILL.md", SKILL)
    await run_prompt(h.agent, "/pdf a.pdf")
    sent = [b["text"] for b in h.requests[0]["messages"][0]["content"]]
    # As Claude Code 2.1.197 sends `/pdf a.pdf` (checked against it).
    assert sent[1:] == [
        "<command-message>pdf</command-message>\n<command-name>/pdf</command-name>\n<command-args>a.pdf</command-args>\n",
        f"Base directory for this skill: {work / '.claude/skills/pdf'}\n\nPDF skill body. Args: a.pdf\n",
    ]


async def test_a_subagent_definitions_skills_are_preloaded(make_harness, tmp_path: Path) -> None:
    from tui_agent.providers.scripted import Conversations

    routes = Conversations({
        "MAIN": [Reply([ToolUse("Agent", {"description": "pdf work", "prompt": "CHILD do it", "subagent_type": "reader"}, id="toolu_a")]), Reply([Text("done")])],
        "CHILD": [Reply([Text("child done")])],
    })
    h = make_harness(routes)
    work = Path(h.agent.workspace.root)
    write(work / ".claude/skills/pdf/SKILL.md", SKILL)
    write(work / ".claude/agents/reader.md", "---\nname: reader\ndescription: Reads PDFs\nskills: pdf, missing\n---\nYou read PDFs.\n")
    ended = await run_prompt(h.agent, "MAIN go")
    assert not ended.is_error
    system = str(routes.requests["CHILD"][0]["system"])
    assert "You read PDFs." in system and "PDF skill body. Args: $ARGUMENTS" in system
    assert f"Base directory for this skill: {work / '.claude/skills/pdf'}" in system


async def test_a_skills_allowed_tools_are_allowed_while_it_runs_only(make_harness, monkeypatch, tmp_path: Path) -> None:
    work = tmp_path / "work"
    marker = tmp_path / "made"
    write(work / ".claude/skills/maker/SKILL.md", "---\ndescription: Makes files\nallowed-tools: Bash(touch:*)\n---\nTouch it.\n")
    monkeypatch.chdir(work)
    script = [Reply([ToolUse("Skill", {"skill": "maker"}, id="toolu_1")]),
              Reply([ToolUse("Bash", {"command": f"touch {marker}"}, id="toolu_2")]), Reply([Text("done")]),
              Reply([ToolUse("Bash", {"command": f"touch {marker}2"}, id="toolu_3")]), Reply([Text("denied")])]
    h = make_harness(script, tools=[SkillTool(), BashTool()])
    await run_prompt(h.agent, "make it")
    assert marker.exists(), "the skill's Bash(touch:*) allowed the call without asking"
    assert h.agent.policy.session_rules() == [], "revoked when the run ended"
    await run_prompt(h.agent, "again")
    assert not Path(f"{marker}2").exists(), "the next run asks again (denied headless: no ask handler)"


async def test_a_skill_that_links_out_of_its_folder_is_never_read(make_harness, monkeypatch, tmp_path: Path) -> None:
    """A repository's skill (or command) that is really the user's key: its text reaches neither the listing nor
    the model's Skill call; the problem is named."""
    key = write(tmp_path / "home/.ssh/id_rsa", "---\ndescription: PRIVATE-KEY-MARKER\n---\nPRIVATE-KEY-MARKER body\n")
    work = tmp_path / "work"
    (work / ".claude/skills/helper").mkdir(parents=True)
    (work / ".claude/skills/helper/SKILL.md").symlink_to(key)
    (work / ".claude/commands").mkdir(parents=True)
    (work / ".claude/commands/greet.md").symlink_to(key)
    monkeypatch.chdir(work)
    from tui_agent.core.commands.loading import load_commands

    found = load_commands(work, tmp_path / "nohome")
    assert all("PRIVATE-KEY-MARKER" not in c.body + c.description for c in found.values())
    assert found["helper"].problems and "links out" in found["helper"].problems[0]
    assert "PRIVATE-KEY-MARKER" not in (skills_listing(work, tmp_path / "nohome") or "")
    script = [Reply([ToolUse("Skill", {"skill": "helper"}, id="toolu_1")]), Reply([Text("done")])]
    h = make_harness(script, tools=[SkillTool()])
    await run_prompt(h.agent, "use the helper skill")
    await run_prompt(h.agent, "/greet you")
    assert all("PRIVATE-KEY-MARKER" not in str(request) for request in h.requests)
