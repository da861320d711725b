"""Names that are not UTF-8 (issue 26 B): a working folder named with byte 0xff and a file named with byte 0xe9
work through every tool. The model sees each such byte as `\\xNN` (valid Unicode the API accepts), the same in
Glob, Grep, Bash and @-mentions; the path it sends back with `\\xNN` opens the same file (Read, Edit, Write,
Glob, Grep); a real name that holds the four characters `\\xNN` still wins when it exists."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.tools.support import run_tool, text
from tui_agent.core.mentions import prompt_with_mentions
from tui_agent.core.session.paths import MAX_SLUG, project_slug
from tui_agent.tools.base import ToolContext, Workspace
from tui_agent.tools.bash import BashTool
from tui_agent.tools.edit import EditTool
from tui_agent.tools.file_watch import watcher_for
from tui_agent.tools.glob import GlobTool
from tui_agent.tools.grep import GrepTool
from tui_agent.tools.os_names import for_model, for_model_deep, from_model, on_disk
from tui_agent.tools.read import ReadTool
from tui_agent.tools.write import WriteTool


def named(folder: Path, raw: bytes) -> Path:
    """`folder/raw` with `raw` as the OS has it (os.fsdecode: undecodable bytes as surrogates)."""
    return Path(os.fsdecode(os.fsencode(folder) + b"/" + raw))


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """The working folder of every tool here: `w<0xff>rk`, not valid UTF-8."""
    root = named(tmp_path, b"w\xffrk")
    root.mkdir()
    named(root, b"caf\xe9.txt").write_text("inside the odd file\n")
    return root


def shown(path: Path | str) -> str:
    """How the model sees (and writes back) `path`: each undecodable byte as `\\xNN`."""
    return for_model(str(path))


def for_api(output_text: str) -> str:
    """What the results pipeline sends for a tool's text (core/results.py), checked as the API's JSON takes it."""
    sent = for_model_deep(output_text)
    json.dumps(sent, ensure_ascii=False).encode("utf-8")  # raises on a lone surrogate
    return sent


def test_the_shown_form_is_visible_valid_and_turns_back():
    raw = os.fsdecode(b"/w\xffrk/caf\xe9.txt")
    assert for_model(raw) == "/w\\xffrk/caf\\xe9.txt" and for_model("caf\u00e9 ok") == "caf\u00e9 ok"
    assert os.fsencode(from_model(for_model(raw))) == b"/w\xffrk/caf\xe9.txt"
    assert for_model("\ud800") == "\\ud800", "a surrogate no OS name made is still made visible"


async def test_glob_shows_the_bytes_and_read_opens_the_path_the_model_sends_back(ctx: ToolContext, workspace: Path):
    listing = for_api(text(await run_tool(GlobTool(), ctx, pattern="*.txt")))
    sent_back = f"{shown(workspace)}/caf\\xe9.txt"
    assert listing == sent_back
    assert "inside the odd file" in text(await run_tool(ReadTool(), ctx, file_path=sent_back))
    # The name as a pattern and as the folder to search, written the way the model saw them.
    assert for_api(text(await run_tool(GlobTool(), ctx, pattern="caf\\xe9*", path=shown(workspace)))) == sent_back


async def test_grep_lists_sorts_and_filters_by_such_names(ctx: ToolContext, workspace: Path):
    plain = workspace / "plain.txt"
    plain.write_text("odd too\n")
    os.utime(plain, (1, 1))  # older: the odd file must come first, so its mtime was read from its real name
    found = for_api(text(await run_tool(GrepTool(), ctx, pattern="odd")))
    assert found.splitlines() == ["Found 2 files", f"{shown(workspace)}/caf\\xe9.txt", f"{shown(workspace)}/plain.txt"]
    lines = for_api(text(await run_tool(GrepTool(), ctx, pattern="odd", output_mode="content", glob="caf\\xe9*")))
    assert lines == f"{shown(workspace)}/caf\\xe9.txt:1:inside the odd file"


async def test_write_creates_the_byte_and_edit_changes_the_file_read_through_the_shown_name(ctx: ToolContext, workspace: Path):
    created = text(await run_tool(WriteTool(), ctx, file_path=f"{shown(workspace)}/new\\xff.txt", content="fresh\n"))
    assert b"new\xff.txt" in os.listdir(os.fsencode(workspace)), created
    assert shown(workspace) + "/new\\xff.txt" in for_api(created)
    path = f"{shown(workspace)}/caf\\xe9.txt"
    await run_tool(ReadTool(), ctx, file_path=path)
    edited = await run_tool(EditTool(), ctx, file_path=path, old_string="odd", new_string="even")
    assert not edited.is_error, text(edited)
    assert named(workspace, b"caf\xe9.txt").read_text() == "inside the even file\n"


async def test_bash_runs_in_the_folder_and_prints_names_as_the_other_tools_show_them(ctx: ToolContext, workspace: Path):
    out = text(await run_tool(BashTool(), ctx, command="pwd; ls"))
    assert out == f"{shown(workspace)}\ncaf\\xe9.txt"
    assert ctx.services["progress_log"][-1] == "caf\\xe9.txt", "the live lines are shown the same way"
    # `\xNN` is also bash's own $'...' escape: the model can quote the name it was shown.
    assert text(await run_tool(BashTool(), ctx, command="cat $'caf\\xe9.txt'")) == "inside the odd file"


async def test_a_real_name_holding_backslash_x_wins_when_it_exists(ctx: ToolContext, workspace: Path):
    (workspace / "lit\\xe9.txt").write_text("the literal one\n")
    assert "the literal one" in text(await run_tool(ReadTool(), ctx, file_path=f"{shown(workspace)}/lit\\xe9.txt"))
    ws = Workspace.at(workspace)
    assert ws.resolve("caf\\xe9.txt") == named(workspace, b"caf\xe9.txt")
    assert ws.resolve("lit\\xe9.txt") == workspace / "lit\\xe9.txt"
    assert os.fsencode(on_disk(Path("/nowhere/a\\xe9"))) == b"/nowhere/a\xe9", "neither exists: the byte, as the model was shown"


async def test_a_mention_attaches_the_file_and_shows_its_name_as_the_tools_do(ctx: ToolContext, workspace: Path):
    prompt, attachments = await prompt_with_mentions("look at @caf\\xe9.txt", ctx)
    assert attachments.paths == [named(workspace, b"caf\xe9.txt")] and not attachments.problems
    json.dumps(prompt, ensure_ascii=False).encode("utf-8")  # valid for the API as it is
    called, result = prompt[0]["text"], prompt[1]["text"]
    assert json.loads(called.split("input: ", 1)[1].split("\n", 1)[0]) == {"file_path": f"{shown(workspace)}/caf\\xe9.txt"}
    assert "inside the odd file" in result


async def test_the_file_watcher_leaves_such_a_folder_to_the_stamp_check(ctx: ToolContext, workspace: Path):
    await run_tool(ReadTool(), ctx, file_path=f"{shown(workspace)}/caf\\xe9.txt")
    watcher = watcher_for(ctx)
    assert watcher.wait_ready(30)
    assert watcher._thread is not None and watcher._thread.is_alive(), "watchfiles takes UTF-8 paths only: the thread must not die"


def test_the_project_folder_of_such_a_working_folder_is_named_as_claude_code_names_it(workspace: Path):
    assert project_slug(workspace).endswith("-w-rk")
    # Node reads a bad sequence as one U+FFFD: a cut 3-byte character is one "-", not two.
    assert project_slug(Path(os.fsdecode(b"/a\xe2\x80b"))) == "-a-b"
    deep = named(workspace, b"\xff" * (MAX_SLUG + 10))
    assert project_slug(deep).isascii() and len(project_slug(deep)) == MAX_SLUG + 9, "a long name keeps a hash"
