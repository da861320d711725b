"""The watcher: a change that keeps size and mtime is still seen; the session's own writes are not."""

from __future__ import annotations

import os
import time
from pathlib import Path

from tests.tools.support import run_tool, text
from tui_agent.tools.base import ToolContext
from tui_agent.tools.edit import EditTool
from tui_agent.tools.file_watch import watcher_for
from tui_agent.tools.read import ReadTool


def wait_until(condition, timeout: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


def rewrite_keeping_stamp(path: Path, content: str) -> None:
    st = path.stat()
    path.write_text(content)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


async def test_stamp_preserving_external_change_blocks_the_edit(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "w.txt"
    f.write_text("aaaa\n")
    await run_tool(ReadTool(), ctx, file_path=str(f))
    assert watcher_for(ctx).wait_ready(60)
    rewrite_keeping_stamp(f, "bbbb\n")  # same size, same mtime: only the watcher can tell
    assert ctx.read_state.check_unchanged(f) is None or str(f) in ctx.read_state.changed_externally
    assert wait_until(lambda: str(f) in ctx.read_state.changed_externally)
    out = await run_tool(EditTool(), ctx, file_path=str(f), old_string="bbbb", new_string="cccc")
    assert out.is_error and "modified since it was read" in text(out)
    await run_tool(ReadTool(), ctx, file_path=str(f))  # reading again clears it
    assert not (await run_tool(EditTool(), ctx, file_path=str(f), old_string="bbbb", new_string="cccc")).is_error


async def test_own_edits_are_not_taken_for_external_changes(ctx: ToolContext, workspace: Path) -> None:
    f = workspace / "w.txt"
    f.write_text("one two three\n")
    await run_tool(ReadTool(), ctx, file_path=str(f))
    assert watcher_for(ctx).wait_ready(60)
    for old, new in (("one", "1"), ("two", "2"), ("three", "3")):
        out = await run_tool(EditTool(), ctx, file_path=str(f), old_string=old, new_string=new)
        assert not out.is_error, out.content
        time.sleep(0.3)  # let the watcher see our write
        assert str(f) not in ctx.read_state.changed_externally
    assert f.read_text() == "1 2 3\n"


async def test_watcher_follows_files_in_new_folders(ctx: ToolContext, workspace: Path) -> None:
    first, second = workspace / "a" / "f.txt", workspace / "b" / "g.txt"
    for f in (first, second):
        f.parent.mkdir()
        f.write_text("xxxx\n")
    await run_tool(ReadTool(), ctx, file_path=str(first))
    await run_tool(ReadTool(), ctx, file_path=str(second))
    assert watcher_for(ctx).wait_ready(60)
    rewrite_keeping_stamp(second, "yyyy\n")
    assert wait_until(lambda: str(second) in ctx.read_state.changed_externally)
    assert str(first) not in ctx.read_state.changed_externally
