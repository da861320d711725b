"""Read: numbered lines, windows, and a clear answer for every kind of file that is not plain text."""

from __future__ import annotations

import base64
from pathlib import Path

from tests.tools.support import run_tool, text
from tui_agent.tools.base import ToolContext
from tui_agent.tools.file_watch import watcher_for
from tui_agent.tools.images import MAX_FILE_BYTES
from tui_agent.tools.read import EMPTY_FILE_WARNING, ReadTool

PNG_1PX = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


async def read(ctx: ToolContext, path: Path | str, **kw: object):
    return await run_tool(ReadTool(), ctx, file_path=str(path), **kw)


async def test_lines_are_numbered_like_cat_n(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "a.py"
    f.write_text("first\n\tsecond\nthird\n")
    out = await read(ctx, f)
    assert not out.is_error
    assert text(out) == "     1\tfirst\n     2\t\tsecond\n     3\tthird"


async def test_offset_is_the_first_line_shown_and_limit_counts_lines(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "n.txt"
    f.write_text("".join(f"line {i}\n" for i in range(1, 11)))
    out = text(await read(ctx, f, offset=4, limit=2))
    assert out == "     4\tline 4\n     5\tline 5"


async def test_default_limit_is_2000_lines(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "long.txt"
    f.write_text("x\n" * 2500)
    out = text(await read(ctx, f))
    assert out.count("\n") == 1999
    assert out.splitlines()[-1] == "  2000\tx"


async def test_long_lines_are_cut_at_2000_characters(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "wide.txt"
    f.write_text("a" * 2500 + "\n")
    out = text(await read(ctx, f))
    assert out.startswith("     1\t" + "a" * 2000 + "...")
    assert "a" * 2001 not in out
    assert "500 more characters" in out


async def test_relative_path_is_refused(ctx: ToolContext) -> None:
    out = await read(ctx, "a.py")
    assert out.is_error and "must be an absolute path" in text(out)


async def test_a_path_outside_the_workspace_is_left_to_permissions(ctx: ToolContext, tmp_path: Path) -> None:
    """Not refused by the tool: the permission engine asks (or a Read rule / --add-dir allows it)."""
    outside = tmp_path / "outside.txt"
    parsed = ReadTool.Input.model_validate({"file_path": str(outside)})
    assert ReadTool().input_path(parsed) == str(outside)
    assert await ReadTool().validate_input(parsed, ctx) is None


async def test_added_directories_are_inside_the_workspace(tmp_path: Path, workspace: Path) -> None:
    from tui_agent.tools.base import FileReadState, Workspace

    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / "e.txt").write_text("hello\n")
    ctx = ToolContext(Workspace.at(workspace, (extra,)), tmp_path / "s", FileReadState())
    assert text(await read(ctx, extra / "e.txt")) == "     1\thello"
    watcher_for(ctx).close()


async def test_missing_file_suggests_a_similar_name(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "config.yaml").write_text("a: 1\n")
    out = await read(ctx, workspace / "config.yml")
    assert out.is_error
    assert "does not exist" in text(out) and "Did you mean" in text(out) and "config.yaml" in text(out)


async def test_missing_file_without_a_similar_name_says_so_plainly(ctx: ToolContext, workspace: Path) -> None:
    out = await read(ctx, workspace / "nothing_like_it.rs")
    assert out.is_error and "does not exist" in text(out) and "Did you mean" not in text(out)


async def test_directory_is_an_error_pointing_to_ls(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "sub").mkdir()
    out = await read(ctx, workspace / "sub")
    assert out.is_error and "is a directory" in text(out)


async def test_binary_file_is_refused(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "blob.data"
    f.write_bytes(b"\x00\x01\x02binary\x00")
    out = await read(ctx, f)
    assert out.is_error and "binary" in text(out)


async def test_binary_extension_is_refused_without_reading(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "archive.zip"
    f.write_bytes(b"PK\x03\x04")
    out = await read(ctx, f)
    assert out.is_error and "binary .zip" in text(out)


async def test_empty_file_gets_the_system_reminder(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "empty.txt"
    f.write_text("")
    out = await read(ctx, f)
    assert not out.is_error and text(out) == EMPTY_FILE_WARNING


async def test_offset_past_the_end_says_how_long_the_file_is(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "short.txt"
    f.write_text("a\nb\nc\n")
    out = text(await read(ctx, f, offset=10))
    assert "shorter than the provided offset (10)" in out and "3 lines" in out


async def test_small_image_comes_back_as_an_image_block(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "dot.png"
    f.write_bytes(PNG_1PX)
    out = await read(ctx, f)
    assert out.content == [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": base64.b64encode(PNG_1PX).decode()}}
    ]


async def test_image_media_type_comes_from_its_bytes_not_its_extension(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "actually_png.jpg"
    f.write_bytes(PNG_1PX)
    out = await read(ctx, f)
    assert isinstance(out.content, list) and out.content[0]["source"]["media_type"] == "image/png"


async def test_an_image_file_too_big_to_open_gets_a_clear_message(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "huge.png"
    with f.open("wb") as fh:
        fh.write(PNG_1PX)
        fh.truncate(MAX_FILE_BYTES + 1)  # sparse: no need to write 30 MB
    out = await read(ctx, f)
    assert out.is_error and "too large" in text(out) and "30 MB" in text(out)


async def test_a_file_that_is_not_a_decodable_image_is_an_error(ctx: ToolContext, workspace: Path) -> None:
    for name, data in (("fake.png", b"not an image at all" * 50), ("cut.png", PNG_1PX[:40]), ("cut.jpg", b"\xff\xd8\xff\xe0" + b"\0" * 30)):
        f = workspace / name
        f.write_bytes(data)
        out = await read(ctx, f)
        assert out.is_error and "not a valid image" in text(out), (name, out.content)
        assert isinstance(out.content, str)  # never an image block


async def test_utf16_with_bom_is_decoded(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "u16.txt"
    f.write_bytes(b"\xff\xfe" + "héllo\nwörld\n".encode("utf-16-le"))
    assert text(await read(ctx, f)) == "     1\théllo\n     2\twörld"


async def test_latin1_is_the_fallback_for_invalid_utf8(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "l1.txt"
    f.write_bytes("café\n".encode("latin-1"))
    assert text(await read(ctx, f)) == "     1\tcafé"


async def test_crlf_line_endings_are_not_shown(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "win.txt"
    f.write_bytes(b"one\r\ntwo\r\n")
    assert text(await read(ctx, f)) == "     1\tone\n     2\ttwo"


async def test_read_is_recorded_for_the_edit_guard(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "a.txt"
    f.write_text("x\n")
    await read(ctx, f)
    assert ctx.read_state.was_read(f)
    assert ctx.read_state.check_unchanged(f) is None


async def test_big_file_needs_offset_and_limit(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "big.log"
    f.write_text("".join(f"entry {i}\n" for i in range(100_000)))
    out = await read(ctx, f)
    assert out.is_error and "offset and limit" in text(out)
    window = text(await read(ctx, f, offset=50_001, limit=2))
    assert window == " 50001\tentry 50000\n 50002\tentry 50001"
    assert ctx.read_state.was_read(f)


async def test_big_file_offset_past_the_end_counts_its_lines(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "big.log"
    f.write_text("".join(f"entry {i}\n" for i in range(100_000)))
    out = text(await read(ctx, f, offset=200_000, limit=5))
    assert "The file has 100000 lines" in out


async def test_output_too_large_asks_for_a_window(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "dense.txt"
    f.write_text(("z" * 120 + "\n") * 1500)  # 180 KB: under the size limit, over the output limit
    out = await read(ctx, f)
    assert out.is_error and "offset and limit" in text(out)
    assert not (await read(ctx, f, limit=100)).is_error


async def test_read_is_read_only_and_concurrency_safe() -> None:
    tool = ReadTool()
    parsed = tool.Input.model_validate({"file_path": "/x"})
    assert tool.is_read_only(parsed) and tool.is_concurrency_safe(parsed)
    assert tool.input_path(parsed) == "/x"
    assert tool.max_result_size_chars >= 10**12


async def test_string_offset_is_a_validation_error(ctx: ToolContext, workspace: Path) -> None:
    out = await read(ctx, workspace / "a.txt", offset="3")
    assert out.is_error and "The parameter `offset` type is expected as `number` but provided as `string`" in text(out)


async def test_a_refused_read_does_not_count_for_the_edit_guard(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "dense.txt"
    f.write_text(("z" * 120 + "\n") * 1500)
    assert (await read(ctx, f)).is_error
    assert not ctx.read_state.was_read(f)
