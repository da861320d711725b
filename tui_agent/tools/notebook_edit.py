"""NotebookEdit: replace, insert or delete one cell of a Jupyter notebook the session has read.

The notebook is parsed, changed and serialized with `nbformat` (never JSON by hand), keeping its nbformat
version, encoding, line endings and final newline. Claude Code's rules: `cell_id` is a cell's `id`, or
`cell-N` (its index, as Read shows cells without ids); insert goes after that cell (at the top without
one); replacing a code cell clears its outputs and execution count. The write goes through
`text_files.write_file`, so the checkpoint store keeps what the notebook was (rewind restores it).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import Field

from .base import Tool, ToolContext, ToolError, ToolInput, ToolOutput
from .text_files import decode, encode, unified_diff, uses_crlf, write_file

CellType = Literal["code", "markdown"]
EditMode = Literal["replace", "insert", "delete"]

_INDEX_ID = re.compile(r"^cell-(\d+)$")


class NotebookEditInput(ToolInput):
    notebook_path: str = Field(
        description="The absolute path to the Jupyter notebook file to edit (must be absolute, not relative)"
    )
    cell_id: str | None = Field(
        None,
        description="The ID of the cell to edit. When inserting a new cell, the new cell will be inserted after "
        "the cell with this ID, or at the beginning if not specified.",
    )
    new_source: str = Field(description="The new source for the cell")
    cell_type: CellType | None = Field(
        None,
        description="The type of the cell (code or markdown). If not specified, it defaults to the current cell "
        "type. If using edit_mode=insert, this is required.",
    )
    edit_mode: EditMode | None = Field(
        None, description="The type of edit to make (replace, insert, delete). Defaults to replace."
    )


@dataclass(frozen=True, slots=True)
class _NotebookPlan:
    path: Path
    text: str  # the notebook as it will be written (LF form)
    encoding: Any
    crlf: bool
    mode: EditMode
    cell_id: str  # the cell changed (for insert: the new cell's id, or its `cell-N` without ids)
    old_source: str
    new_source: str

    def diff(self) -> str:
        """The cell's own change (its source before and after), not the notebook's JSON. A cell's last line
        has no newline as a rule, so one is added to both sides rather than a "No newline" note on each."""
        return unified_diff(self.path, _ended(self.old_source), _ended(self.new_source))

    def data(self) -> bytes:
        return encode(self.text.replace("\n", "\r\n") if self.crlf else self.text, self.encoding)

    def message(self) -> str:
        if self.mode == "delete":
            return f"Deleted cell {self.cell_id}"
        verb = "Inserted" if self.mode == "insert" else "Updated"
        return f"{verb} cell {self.cell_id} with {self.new_source}"


class NotebookEditTool(Tool[NotebookEditInput]):
    name = "NotebookEdit"
    Input = NotebookEditInput
    description: ClassVar[str] = """Replaces, inserts, or deletes a single cell in a Jupyter notebook (.ipynb file).
- You must use the Read tool on the notebook in this conversation before editing \u2014 this tool will fail otherwise.
- `notebook_path` must be an absolute path.
- `cell_id` is the `id` attribute shown in the Read tool's `<cell id="...">` output. It is required for `replace` and `delete`.
- `edit_mode` defaults to `replace`. Use `insert` to add a new cell after the cell with the given `cell_id` (or at the beginning of the notebook if `cell_id` is omitted) \u2014 `cell_type` is required when inserting. Use `delete` to remove the cell."""

    def input_path(self, input: NotebookEditInput) -> str | None:
        return input.notebook_path

    def summarize(self, input: NotebookEditInput) -> str:
        where = f" @{input.cell_id}" if input.cell_id else ""
        return f"{input.notebook_path}{where}"[:200]

    async def validate_input(self, input: NotebookEditInput, ctx: ToolContext) -> str | None:
        try:
            _plan(input, ctx)
        except ToolError as e:
            return str(e)
        return None

    async def describe_change(self, input: NotebookEditInput, ctx: ToolContext) -> str | None:
        try:
            return _plan(input, ctx).diff()
        except ToolError:
            return None

    async def call(self, input: NotebookEditInput, ctx: ToolContext) -> ToolOutput:
        plan = _plan(input, ctx, check_schema=True)  # again: the file may have changed while the user was asked
        try:
            data = plan.data()
        except ValueError as e:
            raise ToolError(str(e)) from None
        write_file(ctx, plan.path, data)
        return ToolOutput(
            plan.message(),
            data={"type": "diff", "path": str(plan.path), "diff": plan.diff(), "cell_id": plan.cell_id,
                  "edit_mode": plan.mode},
        )


def _plan(input: NotebookEditInput, ctx: ToolContext, *, check_schema: bool = False) -> _NotebookPlan:
    # nbformat (and jsonschema under it) takes ~0.2 s to import: only a session that edits a notebook pays it.
    try:
        import nbformat.v4
        from nbformat.validator import iter_validate
    except ImportError:
        raise ToolError("NotebookEdit needs the nbformat package, which is not installed (pip install nbformat).") from None

    mode: EditMode = input.edit_mode or "replace"
    if not Path(input.notebook_path).is_absolute():
        raise ToolError(f"notebook_path must be an absolute path, not a relative path: {input.notebook_path}")
    path = ctx.workspace.resolve(input.notebook_path)
    if path.suffix.lower() != ".ipynb":
        raise ToolError(
            "File must be a Jupyter notebook (.ipynb file). For editing other file types, use the Edit tool."
        )
    if mode == "insert" and input.cell_type is None:
        raise ToolError("Cell type is required when using edit_mode=insert.")
    if not path.exists():
        raise ToolError("Notebook file does not exist.")
    if path.is_dir():
        raise ToolError(f"{path} is a directory; NotebookEdit needs a .ipynb file.")
    reason = ctx.read_state.check_unchanged(path)
    if reason:
        raise ToolError(reason)
    decoded = decode(path.read_bytes())
    if decoded is None:
        raise ToolError("Notebook is not valid JSON.")
    raw, encoding = decoded
    crlf = uses_crlf(raw)
    before = raw.replace("\r\n", "\n") if crlf else raw
    nb = _parse(before)
    was_valid = check_schema and next(iter_validate(nb), None) is None
    cells: list[Any] = nb.cells

    if input.cell_id is None:
        if mode != "insert":
            raise ToolError("Cell ID must be specified when not inserting a new cell.")
        index = 0
    else:
        index = _cell_index(cells, input.cell_id)
        if mode == "insert":
            index += 1

    with_ids = (nb.nbformat, nb.nbformat_minor) >= (4, 5)  # cell ids arrived in nbformat 4.5
    old_source = ""
    if mode == "insert":
        cell = _new_cell(nbformat.v4, input.cell_type or "code", input.new_source, None, with_ids)
        cells.insert(index, cell)
        cell_id = str(cell["id"]) if with_ids else f"cell-{index}"
    else:
        old = cells[index]
        old_source = _source(old)
        cell_id = input.cell_id or ""
        if mode == "delete":
            del cells[index]
        else:
            cells[index] = _replaced(nbformat.v4, old, input.cell_type, input.new_source)

    if check_schema and was_valid:
        problem = next(iter_validate(nb), None)
        if problem is not None:  # our change broke a valid notebook: refuse rather than write it
            raise ToolError(f"The edit would make the notebook invalid, so it was not written: {problem.message}")
    text = nbformat.v4.writes(nb)
    if before.endswith("\n") and not text.endswith("\n"):
        text += "\n"
    new_source = "" if mode == "delete" else input.new_source
    return _NotebookPlan(path, text, encoding, crlf, mode, cell_id, old_source, new_source)


def _parse(text: str) -> Any:
    """The notebook as an nbformat NotebookNode (nbformat 4 only: what Read shows and Claude Code edits). Its
    shape is checked first, so a broken file gets Claude Code's words rather than an nbformat traceback."""
    from nbformat import reader  # deferred like the rest of nbformat (_plan)

    try:
        raw = json.loads(text)
    except ValueError:
        raise ToolError("Notebook is not valid JSON.") from None
    version = raw.get("nbformat") if isinstance(raw, dict) else None
    if version is not None and version != 4:  # nbformat 3 keeps its cells in worksheets
        raise ToolError(f"NotebookEdit edits nbformat 4 notebooks; this one is nbformat {version}. "
                        "Open and save it in Jupyter to upgrade it.")
    cells = raw.get("cells") if isinstance(raw, dict) else None
    if not isinstance(cells, list) or any(not isinstance(c, dict) for c in cells):
        raise ToolError('Notebook file is not a valid Jupyter notebook (top-level "cells" must be an array of cell objects).')
    if version is None or not isinstance(raw.get("nbformat_minor"), int):
        missing = "nbformat" if version is None else "nbformat_minor"
        raise ToolError(f'Notebook file is not a valid Jupyter notebook (it has no "{missing}" version number).')
    try:
        return reader.reads(text)
    except Exception as e:  # nbformat's own refusal of a structure the checks above let through
        raise ToolError(f"Notebook file is not a valid Jupyter notebook: {e}") from None


def _cell_index(cells: list[Any], cell_id: str) -> int:
    """The index of the cell with this id, else of `cell-N`; the model's error otherwise."""
    for i, cell in enumerate(cells):
        if cell.get("id") == cell_id:
            return i
    match = _INDEX_ID.match(cell_id)
    if match:
        index = int(match.group(1))
        if index < len(cells):
            return index
        raise ToolError(f"Cell with index {index} does not exist in notebook.")
    raise ToolError(f'Cell with ID "{cell_id}" not found in notebook.')


def _ended(source: str) -> str:
    return source + "\n" if source and not source.endswith("\n") else source


def _source(cell: Any) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def _new_cell(v4: Any, cell_type: str, source: str, metadata: Any, with_ids: bool) -> Any:
    """A cell made by nbformat's own helpers (a fresh valid id); without one below nbformat 4.5."""
    make = v4.new_markdown_cell if cell_type == "markdown" else v4.new_code_cell
    cell = make(source) if metadata is None else make(source, metadata=metadata)
    if not with_ids:
        del cell["id"]
    return cell


def _replaced(v4: Any, old: Any, cell_type: CellType | None, source: str) -> Any:
    """`old` with its new source. A code cell's outputs and execution count go (they belong to the old code);
    a change of type rebuilds the cell so it keeps only the fields its new type allows, and its id."""
    kind = cell_type or old.get("cell_type")
    if kind == old.get("cell_type"):
        old["source"] = source
        if kind == "code":
            old["outputs"] = []
            old["execution_count"] = None
        return old
    cell = _new_cell(v4, kind or "code", source, old.get("metadata", {}), "id" in old)
    if "id" in old:
        cell["id"] = old["id"]
    if kind == "markdown" and "attachments" in old:
        cell["attachments"] = old["attachments"]  # raw -> markdown: both may carry attachments
    return cell
