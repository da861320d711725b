"""Edit: exact, unique replacements on files read and unchanged, keeping line endings and encoding."""

from __future__ import annotations

from pathlib import Path

from tests.tools.support import run_tool, text
from tui_agent.tools.base import ToolContext
from tui_agent.tools.edit import EditTool
from tui_agent.tools.read import ReadTool


async def edit(ctx: ToolContext, path: Path, old: str, new: str, **kw: object):
    return await run_tool(EditTool(), ctx, file_path=str(path), old_string=old, new_string=new, **kw)


async def read_file(ctx: ToolContext, path: Path) -> None:
    out = await run_tool(ReadTool(), ctx, file_path=str(path))
    assert not out.is_error, out.content


async def test_unique_string_is_replaced_and_a_snippet_shown(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "m.py"
    f.write_text("".join(f"line{i}\n" for i in range(1, 21)))
    await read_file(ctx, f)
    out = await edit(ctx, f, "line10\n", "changed\n")
    assert not out.is_error
    assert "line10" not in f.read_text() and "changed\n" in f.read_text()
    snippet = text(out).split("\n", 1)[1]
    assert snippet.splitlines() == [f"{n:>6}\t{t}" for n, t in [(6, "line6"), (7, "line7"), (8, "line8"), (9, "line9"), (10, "changed"), (11, "line11"), (12, "line12"), (13, "line13"), (14, "line14")]]
    assert out.data == {"type": "diff", "path": str(f), "diff": out.data["diff"]}
    assert "-line10" in out.data["diff"] and "+changed" in out.data["diff"]


async def test_identical_strings_are_an_error(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "m.py"
    f.write_text("a\n")
    await read_file(ctx, f)
    out = await edit(ctx, f, "a", "a")
    assert out.is_error and "exactly the same" in text(out)


async def test_no_match_is_an_error_naming_the_string(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "m.py"
    f.write_text("alpha\n")
    await read_file(ctx, f)
    out = await edit(ctx, f, "beta", "gamma")
    assert out.is_error and "not found" in text(out) and "beta" in text(out)


async def test_several_matches_without_replace_all_list_their_lines(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "m.py"
    f.write_text("x = 1\ny = 2\nx = 1\nz = 3\nx = 1\n")
    await read_file(ctx, f)
    out = await edit(ctx, f, "x = 1", "x = 9")
    assert out.is_error
    assert "Found 3 matches" in text(out) and "replace_all" in text(out)
    assert "line 1:" in text(out) and "line 3:" in text(out) and "line 5:" in text(out)
    assert f.read_text().count("x = 1") == 3


async def test_replace_all_replaces_every_occurrence(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "m.py"
    f.write_text("foo(); foo();\nfoo()\n")
    await read_file(ctx, f)
    out = await edit(ctx, f, "foo", "bar", replace_all=True)
    assert not out.is_error and "All occurrences" in text(out)
    assert f.read_text() == "bar(); bar();\nbar()\n"


async def test_file_not_read_is_refused(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "m.py"
    f.write_text("a\n")
    out = await edit(ctx, f, "a", "b")
    assert out.is_error and "has not been read yet" in text(out)


async def test_file_changed_since_read_is_refused(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "m.py"
    f.write_text("a\n")
    await read_file(ctx, f)
    f.write_text("a\nmore\n")  # size changes
    out = await edit(ctx, f, "a", "b")
    assert out.is_error and "modified since it was read" in text(out)


async def test_file_deleted_since_read_is_refused(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "m.py"
    f.write_text("a\n")
    await read_file(ctx, f)
    f.unlink()
    out = await edit(ctx, f, "a", "b")
    assert out.is_error and "does not exist" in text(out)


async def test_consecutive_edits_need_no_new_read(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "m.py"
    f.write_text("a b c\n")
    await read_file(ctx, f)
    assert not (await edit(ctx, f, "a", "A")).is_error
    assert not (await edit(ctx, f, "b", "B")).is_error
    assert f.read_text() == "A B c\n"


async def test_empty_old_string_creates_a_missing_file(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "new" / "file.txt"
    out = await edit(ctx, f, "", "fresh\n")
    assert not out.is_error and "created" in text(out)
    assert f.read_text() == "fresh\n"


async def test_empty_old_string_on_a_non_empty_file_is_an_error(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "m.py"
    f.write_text("content\n")
    await read_file(ctx, f)
    out = await edit(ctx, f, "", "x")
    assert out.is_error and "already exists" in text(out)


async def test_missing_file_with_old_string_is_an_error(ctx: ToolContext, workspace: Path) -> None:
    out = await edit(ctx, workspace / "nope.py", "a", "b")
    assert out.is_error and "does not exist" in text(out)


async def test_crlf_file_is_matched_in_lf_form_and_stays_crlf(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "win.txt"
    f.write_bytes(b"one\r\ntwo\r\nthree\r\n")
    await read_file(ctx, f)
    out = await edit(ctx, f, "one\ntwo\n", "uno\ndos\nextra\n")
    assert not out.is_error, out.content
    assert f.read_bytes() == b"uno\r\ndos\r\nextra\r\nthree\r\n"


async def test_utf8_bom_is_kept(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "bom.txt"
    f.write_bytes(b"\xef\xbb\xbfhello world\n")
    await read_file(ctx, f)
    await edit(ctx, f, "world", "wörld")
    assert f.read_bytes() == b"\xef\xbb\xbf" + "hello wörld\n".encode()


async def test_utf16_be_with_bom_is_kept(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "be.txt"
    f.write_bytes(b"\xfe\xff" + "alpha\r\nbeta\r\n".encode("utf-16-be"))
    await read_file(ctx, f)
    out = await edit(ctx, f, "beta", "gamma")
    assert not out.is_error
    assert f.read_bytes() == b"\xfe\xff" + "alpha\r\ngamma\r\n".encode("utf-16-be")


async def test_latin1_file_is_written_back_as_latin1(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "l1.txt"
    f.write_bytes("café crème\n".encode("latin-1"))
    await read_file(ctx, f)
    assert not (await edit(ctx, f, "crème", "brûlée")).is_error
    assert f.read_bytes() == "café brûlée\n".encode("latin-1")


async def test_latin1_file_refuses_characters_it_cannot_store(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "l1.txt"
    f.write_bytes("café\n".encode("latin-1"))
    await read_file(ctx, f)
    out = await edit(ctx, f, "café", "咖啡")
    assert out.is_error and "latin-1" in text(out)
    assert f.read_bytes() == "café\n".encode("latin-1")


async def test_straight_quotes_match_typographic_ones(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "q.md"
    f.write_text("He said \u201chello\u201d.\n")
    await read_file(ctx, f)
    assert not (await edit(ctx, f, 'said "hello"', "said goodbye")).is_error
    assert f.read_text() == "He said goodbye.\n"


async def test_describe_change_gives_the_diff_without_writing(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "m.py"
    f.write_text("value = 1\n")
    await read_file(ctx, f)
    tool = EditTool()
    parsed = tool.Input.model_validate({"file_path": str(f), "old_string": "1", "new_string": "2"})
    diff = await tool.describe_change(parsed, ctx)
    assert diff is not None and "-value = 1" in diff and "+value = 2" in diff
    assert f.read_text() == "value = 1\n"


async def test_diff_marks_a_missing_final_newline(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "m.py"
    f.write_text("a\nb")
    await read_file(ctx, f)
    out = await edit(ctx, f, "b", "c")
    assert "\\ No newline at end of file" in out.data["diff"]
    assert f.read_text() == "a\nc"


async def test_a_path_outside_the_workspace_is_left_to_permissions(ctx: ToolContext, tmp_path: Path) -> None:
    """The tool names the path it touches; whether it may is the permission engine's question."""
    tool = EditTool()
    parsed = tool.Input.model_validate({"file_path": str(tmp_path / "x.txt"), "old_string": "", "new_string": "x"})
    assert tool.input_path(parsed) == str(tmp_path / "x.txt") and not tool.is_read_only(parsed)
    assert await tool.validate_input(parsed, ctx) is None
