"""Read of a .ipynb: its cells and outputs as Claude Code shows them (`<cell id>` markers, text outputs,
images as image blocks, big outputs replaced by a jq command), real notebooks made with nbformat."""

from __future__ import annotations

import base64
import io
from pathlib import Path
from typing import Any

import nbformat
from nbformat import v4
from PIL import Image

from tests.tools.support import run_tool, text
from tui_agent.tools.base import ToolContext, ToolOutput
from tui_agent.tools.notebook_read import EMPTY_NOTEBOOK_WARNING
from tui_agent.tools.read import ReadTool


def write_notebook(path: Path, cells: list[Any], minor: int = 5, **metadata: Any) -> Path:
    nb = v4.new_notebook(nbformat_minor=minor, metadata=metadata)
    nb.cells = cells
    nbformat.validate(nb)
    nbformat.write(nb, str(path))
    return path


def png_base64() -> str:
    buf = io.BytesIO()
    Image.new("RGB", (4, 3), (200, 30, 30)).save(buf, format="PNG")
    return base64.b64encode(buf.getvalue()).decode()


async def read(ctx: ToolContext, path: Path, **kw: Any) -> ToolOutput:
    return await run_tool(ReadTool(), ctx, file_path=str(path), **kw)


async def test_cells_and_text_outputs_read_as_claude_code_shows_them(ctx: ToolContext, workspace: Path) -> None:
    path = write_notebook(workspace / "a.ipynb", [
        v4.new_markdown_cell("# Title\nSome words", id="intro"),
        v4.new_code_cell("print(1)\n6 * 7", id="c1", execution_count=1, outputs=[
            v4.new_output("stream", name="stdout", text=["1\n"]),
            v4.new_output("execute_result", data={"text/plain": "42"}, execution_count=1),
        ]),
        v4.new_code_cell("1/0", id="c2", execution_count=2, outputs=[
            v4.new_output("error", ename="ZeroDivisionError", evalue="division by zero",
                          traceback=["Traceback (most recent call last)", "ZeroDivisionError: division by zero"]),
        ]),
        v4.new_raw_cell("raw text", id="r"),
    ])
    out = await read(ctx, path)
    assert text(out) == (
        '<cell id="intro"><cell_type>markdown</cell_type># Title\nSome words</cell id="intro">\n'
        '<cell id="c1">print(1)\n6 * 7</cell id="c1">\n\n1\n\n\n42\n'
        '<cell id="c2">1/0</cell id="c2">\n\nZeroDivisionError: division by zero\n'
        "Traceback (most recent call last)\nZeroDivisionError: division by zero\n"
        '<cell id="r"><cell_type>raw</cell_type>raw text</cell id="r">'
    )
    assert out.data == {"type": "notebook", "cells": 4, "images": 0}
    assert ctx.read_state.was_read(path), "NotebookEdit may now change it"


async def test_cells_without_ids_are_cell_n_and_another_language_is_named(ctx: ToolContext, workspace: Path) -> None:
    cells = [v4.new_code_cell("x <- 1"), v4.new_markdown_cell("note")]
    for cell in cells:
        del cell["id"]  # nbformat 4.4: cells have no ids
    path = write_notebook(workspace / "r.ipynb", cells, minor=4, language_info={"name": "R"})
    assert text(await read(ctx, path)) == (
        '<cell id="cell-0"><language>R</language>x <- 1</cell id="cell-0">\n'
        '<cell id="cell-1"><cell_type>markdown</cell_type>note</cell id="cell-1">'
    )


async def test_an_image_output_is_an_image_block_between_the_texts(ctx: ToolContext, workspace: Path) -> None:
    png = png_base64()
    path = write_notebook(workspace / "plot.ipynb", [
        v4.new_code_cell("plot()", id="p", outputs=[
            v4.new_output("display_data", data={"image/png": png, "text/plain": "<Figure>"}),
        ]),
        v4.new_markdown_cell("after", id="m"),
    ])
    out = await read(ctx, path)
    assert out.content == [
        {"type": "text", "text": '<cell id="p">plot()</cell id="p">\n\n<Figure>'},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png}},
        {"type": "text", "text": '<cell id="m"><cell_type>markdown</cell_type>after</cell id="m">'},
    ]
    assert out.data["images"] == 1


async def test_data_that_is_not_really_a_png_is_not_sent_as_an_image(ctx: ToolContext, workspace: Path) -> None:
    fake = base64.b64encode(b"not a png at all, just bytes").decode()
    path = write_notebook(workspace / "x.ipynb", [
        v4.new_code_cell("f()", id="p", outputs=[v4.new_output("display_data", data={"image/png": fake, "text/plain": "x"})]),
    ])
    assert text(await read(ctx, path)) == '<cell id="p">f()</cell id="p">\n\nx'


async def test_a_cells_big_outputs_are_replaced_by_a_jq_command(ctx: ToolContext, workspace: Path) -> None:
    path = write_notebook(workspace / "big.ipynb", [
        v4.new_code_cell("small()", id="s", outputs=[v4.new_output("stream", text="ok\n")]),
        v4.new_code_cell("big()", id="b", outputs=[v4.new_output("stream", text="row\n" * 3000)]),
    ])
    shown = text(await read(ctx, path))
    assert "row\nrow" not in shown and "\n\nok\n" in shown
    assert shown.endswith(
        '<cell id="b">big()</cell id="b">\n\n'
        "Outputs are too large to include. Use Bash with: cat <notebook_path> | jq '.cells[1].outputs'"
    )


async def test_a_notebook_too_big_to_send_says_how_to_read_parts(ctx: ToolContext, workspace: Path) -> None:
    cells = [v4.new_code_cell(f"x{i} = '{'y' * 400}'", id=f"c{i}") for i in range(800)]
    path = write_notebook(workspace / "huge.ipynb", cells)
    out = await read(ctx, path)
    assert out.is_error and "exceeds maximum allowed size" in text(out) and "jq '.cells[:20]'" in text(out)
    assert not ctx.read_state.was_read(path)


async def test_broken_and_non_notebook_json_are_clear_errors(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "cut.ipynb").write_text('{"cells": [')
    out = await read(ctx, workspace / "cut.ipynb")
    assert out.is_error and text(out).startswith("Notebook file is not valid JSON (it may be truncated, corrupted")
    (workspace / "odd.ipynb").write_text('{"cells": 3}')
    out = await read(ctx, workspace / "odd.ipynb")
    assert out.is_error and text(out) == (
        'Notebook file is not a valid Jupyter notebook (top-level "cells" must be an array of cell objects).'
    )


async def test_an_empty_notebook_says_so_and_offset_limit_do_not_apply(ctx: ToolContext, workspace: Path) -> None:
    path = write_notebook(workspace / "empty.ipynb", [])
    assert text(await read(ctx, path)) == EMPTY_NOTEBOOK_WARNING
    two = write_notebook(workspace / "two.ipynb", [v4.new_markdown_cell("a", id="a"), v4.new_markdown_cell("b", id="b")])
    assert text(await read(ctx, two, offset=2, limit=1)).count("<cell id=") == 2
