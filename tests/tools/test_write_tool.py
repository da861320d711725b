"""Write: creates files freely, replaces only what was read and is unchanged, keeps the encoding."""

from __future__ import annotations

import os
from pathlib import Path

from tests.tools.support import run_tool, text
from tui_agent.tools.base import ToolContext
from tui_agent.tools.read import ReadTool
from tui_agent.tools.write import WriteTool


async def write(ctx: ToolContext, path: Path | str, content: str):
    return await run_tool(WriteTool(), ctx, file_path=str(path), content=content)


async def test_new_file_is_created_with_its_parent_folders(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "a" / "b" / "new.txt"
    out = await write(ctx, f, "hello\n")
    assert not out.is_error and "created" in text(out)
    assert f.read_text() == "hello\n"
    assert out.data["type"] == "diff" and out.data["created"] is True and out.data["path"] == str(f)
    assert "+hello" in out.data["diff"]


async def test_existing_file_not_read_is_refused(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "old.txt"
    f.write_text("old\n")
    out = await write(ctx, f, "new\n")
    assert out.is_error and "has not been read yet" in text(out)
    assert f.read_text() == "old\n"


async def test_existing_file_read_then_updated(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "old.txt"
    f.write_text("old\n")
    await run_tool(ReadTool(), ctx, file_path=str(f))
    out = await write(ctx, f, "new\n")
    assert not out.is_error and "updated" in text(out)
    assert f.read_text() == "new\n"
    assert out.data["created"] is False and "-old" in out.data["diff"] and "+new" in out.data["diff"]


async def test_file_changed_since_read_is_refused(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "old.txt"
    f.write_text("old\n")
    await run_tool(ReadTool(), ctx, file_path=str(f))
    f.write_text("changed by someone else\n")
    out = await write(ctx, f, "new\n")
    assert out.is_error and "modified since it was read" in text(out)


async def test_second_write_after_own_write_needs_no_new_read(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "n.txt"
    await write(ctx, f, "one\n")
    out = await write(ctx, f, "two\n")
    assert not out.is_error and f.read_text() == "two\n"


async def test_existing_encoding_and_bom_are_kept(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "u16.txt"
    f.write_bytes(b"\xff\xfe" + "old\n".encode("utf-16-le"))
    await run_tool(ReadTool(), ctx, file_path=str(f))
    await write(ctx, f, "nouveau é\n")
    assert f.read_bytes() == b"\xff\xfe" + "nouveau é\n".encode("utf-16-le")


async def test_directory_path_is_refused(ctx: ToolContext, workspace: Path) -> None:
    out = await write(ctx, workspace, "x")
    assert out.is_error and "directory" in text(out)


async def test_relative_paths_are_refused_and_outside_ones_left_to_permissions(ctx: ToolContext, tmp_path: Path) -> None:
    assert "absolute" in text(await write(ctx, "x.txt", "x"))
    assert not (tmp_path / "x.txt").exists()
    tool = WriteTool()
    parsed = tool.Input.model_validate({"file_path": str(tmp_path / "x.txt"), "content": "x"})
    assert tool.input_path(parsed) == str(tmp_path / "x.txt") and not tool.is_read_only(parsed)


async def test_describe_change_is_the_diff_without_writing(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "d.txt"
    tool = WriteTool()
    diff = await tool.describe_change(tool.Input.model_validate({"file_path": str(f), "content": "hi\n"}), ctx)
    assert diff is not None and "+hi" in diff
    assert not f.exists()


async def test_write_records_the_new_stamp(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "s.txt"
    await write(ctx, f, "x\n")
    assert ctx.read_state.check_unchanged(f) is None
    os.utime(f, ns=(1, 1))
    assert ctx.read_state.check_unchanged(f) is not None


async def test_write_is_neither_read_only_nor_concurrency_safe() -> None:
    tool = WriteTool()
    parsed = tool.Input.model_validate({"file_path": "/x", "content": ""})
    assert not tool.is_read_only(parsed) and not tool.is_concurrency_safe(parsed)
    assert tool.input_path(parsed) == "/x"
