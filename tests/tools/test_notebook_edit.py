"""NotebookEdit: replace, insert and delete cells of real .ipynb files (made and checked with nbformat),
Claude Code's ids, result texts and errors; then through the real agent: checkpoints a rewind restores, and
the permission decisions of each mode and of `Edit(...)` rules."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import nbformat
import pytest
from nbformat import v4

from tests.core.support import Harness
from tests.tools.support import run_tool, text
from tui_agent.config import AgentSettings
from tui_agent.core.checkpoints import SERVICE_KEY
from tui_agent.core.events import Event
from tui_agent.core.permission_types import PermissionAnswer, PermissionRequest
from tui_agent.factory import build_agent
from tui_agent.providers.scripted import Reply, ScriptedModel, Text, ToolUse
from tui_agent.tools.base import ToolContext, ToolOutput
from tui_agent.tools.builtin import all_tools
from tui_agent.tools.notebook_edit import NotebookEditTool
from tui_agent.tools.read import ReadTool


def make_notebook(path: Path, minor: int = 5, ids: bool = True, **metadata: Any) -> Path:
    """intro (markdown), c1 (code with a stream and a result), c2 (code)."""
    nb = v4.new_notebook(nbformat_minor=minor, metadata=metadata)
    nb.cells = [
        v4.new_markdown_cell("# Title", id="intro"),
        v4.new_code_cell("print(1)", id="c1", execution_count=3, metadata={"tags": ["keep"]}, outputs=[
            v4.new_output("stream", text="1\n"),
            v4.new_output("execute_result", data={"text/plain": "42"}, execution_count=3),
        ]),
        v4.new_code_cell("y = 2", id="c2"),
    ]
    if not ids:
        for cell in nb.cells:
            del cell["id"]
    nbformat.validate(nb)
    nbformat.write(nb, str(path))
    return path


def load(path: Path) -> Any:
    """The notebook as written, checked against its schema (what Jupyter would accept)."""
    nb = nbformat.read(str(path), as_version=nbformat.NO_CONVERT)
    nbformat.validate(nb)
    return nb


async def read(ctx: ToolContext, path: Path) -> None:
    out = await run_tool(ReadTool(), ctx, file_path=str(path))
    assert not out.is_error, out.content


async def edit(ctx: ToolContext, path: Path, new_source: str = "", **kw: Any) -> ToolOutput:
    return await run_tool(NotebookEditTool(), ctx, notebook_path=str(path), new_source=new_source, **kw)


@pytest.fixture
async def nb(ctx: ToolContext, workspace: Path) -> Path:
    path = make_notebook(workspace / "analysis.ipynb")
    await read(ctx, path)
    return path


class TestReplace:
    async def test_replacing_a_code_cell_clears_its_outputs_and_execution_count(self, ctx, nb):
        out = await edit(ctx, nb, "print(2)", cell_id="c1")
        assert text(out) == "Updated cell c1 with print(2)"
        cell = load(nb).cells[1]
        assert (cell.id, cell.cell_type, cell.source) == ("c1", "code", "print(2)")
        assert cell.outputs == [] and cell.execution_count is None
        assert cell.metadata == {"tags": ["keep"]}, "the cell's metadata stays"
        assert [c.source for c in load(nb).cells] == ["# Title", "print(2)", "y = 2"]

    async def test_replacing_a_markdown_cell_keeps_it_markdown(self, ctx, nb):
        await edit(ctx, nb, "## Better title", cell_id="intro")
        cell = load(nb).cells[0]
        assert (cell.cell_type, cell.source, cell.id) == ("markdown", "## Better title", "intro")

    async def test_a_new_cell_type_rebuilds_the_cell_with_only_the_fields_its_type_allows(self, ctx, nb):
        await edit(ctx, nb, "Now prose", cell_id="c1", cell_type="markdown")
        cell = load(nb).cells[1]
        assert (cell.cell_type, cell.id, cell.source) == ("markdown", "c1", "Now prose")
        assert "outputs" not in cell and "execution_count" not in cell
        await edit(ctx, nb, "z = 3", cell_id="intro", cell_type="code")
        cell = load(nb).cells[0]
        assert (cell.cell_type, cell.id, cell.outputs, cell.execution_count) == ("code", "intro", [], None)

    async def test_the_diff_is_the_cells_own_source_change(self, ctx, nb):
        tool = NotebookEditTool()
        diff = await tool.describe_change(tool.Input.model_validate(
            {"notebook_path": str(nb), "cell_id": "c1", "new_source": "print(2)"}), ctx)
        assert diff is not None and "-print(1)" in diff and "+print(2)" in diff and '"cells"' not in diff
        assert "No newline" not in diff, "a cell's source has no final newline as a rule: not worth a note"
        out = await edit(ctx, nb, "print(2)", cell_id="c1")
        assert out.data["type"] == "diff" and out.data["path"] == str(nb) and out.data["diff"] == diff

    async def test_edits_follow_one_another_without_reading_again(self, ctx, nb):
        assert not (await edit(ctx, nb, "a = 1", cell_id="c2")).is_error
        assert not (await edit(ctx, nb, "a = 2", cell_id="c2")).is_error
        assert load(nb).cells[2].source == "a = 2"


class TestInsertAndDelete:
    async def test_insert_goes_after_the_named_cell_with_a_fresh_valid_id(self, ctx, nb):
        out = await edit(ctx, nb, "import os", cell_id="c1", edit_mode="insert", cell_type="code")
        cells = load(nb).cells
        assert [c.source for c in cells] == ["# Title", "print(1)", "import os", "y = 2"]
        new = cells[2]
        assert len(new.id) == 8 and new.id not in ("intro", "c1", "c2")
        assert (new.outputs, new.execution_count) == ([], None)
        assert text(out) == f"Inserted cell {new.id} with import os"
        assert cells[1].outputs, "the neighbour keeps its outputs"

    async def test_insert_without_a_cell_id_goes_at_the_beginning(self, ctx, nb):
        await edit(ctx, nb, "Intro text", edit_mode="insert", cell_type="markdown")
        cells = load(nb).cells
        assert (cells[0].cell_type, cells[0].source) == ("markdown", "Intro text") and len(cells) == 4

    async def test_delete_removes_the_cell_and_says_so(self, ctx, nb):
        out = await edit(ctx, nb, cell_id="c1", edit_mode="delete")
        assert text(out) == "Deleted cell c1"
        assert [c.id for c in load(nb).cells] == ["intro", "c2"]
        assert "-print(1)" in out.data["diff"]


class TestVersionsAndBytes:
    async def test_a_notebook_before_4_5_stays_4_4_and_gets_no_ids(self, ctx, workspace):
        path = make_notebook(workspace / "old.ipynb", minor=4, ids=False)
        await read(ctx, path)
        out = await edit(ctx, path, "import sys", cell_id="cell-1", edit_mode="insert", cell_type="code")
        assert text(out) == "Inserted cell cell-2 with import sys", "the id Read will show for it"
        nb = load(path)
        assert (nb.nbformat, nb.nbformat_minor) == (4, 4)
        assert all("id" not in c for c in nb.cells)
        assert [c.source for c in nb.cells] == ["# Title", "print(1)", "import sys", "y = 2"]

    async def test_cell_n_names_a_cell_by_its_index_and_a_missing_index_is_an_error(self, ctx, workspace):
        path = make_notebook(workspace / "old.ipynb", minor=4, ids=False)
        await read(ctx, path)
        assert text(await edit(ctx, path, "b = 1", cell_id="cell-2")) == "Updated cell cell-2 with b = 1"
        assert load(path).cells[2].source == "b = 1"
        out = await edit(ctx, path, "x", cell_id="cell-9")
        assert out.is_error and text(out) == "Cell with index 9 does not exist in notebook."

    async def test_a_4_5_notebook_missing_its_ids_is_edited_as_is_not_renumbered(self, ctx, workspace):
        path = make_notebook(workspace / "noids.ipynb")
        raw = json.loads(path.read_text())
        for cell in raw["cells"]:
            del cell["id"]  # invalid for 4.5 (Jupyter would add ids), but common in the wild
        path.write_text(json.dumps(raw))
        await read(ctx, path)
        assert text(await edit(ctx, path, "y = 5", cell_id="cell-2")) == "Updated cell cell-2 with y = 5"
        cells = json.loads(path.read_text())["cells"]
        assert [c.get("id") for c in cells] == [None, None, None], "no ids invented behind the model's back"
        assert "".join(cells[2]["source"]) == "y = 5"

    async def test_crlf_line_endings_and_the_missing_final_newline_are_kept(self, ctx, workspace):
        path = make_notebook(workspace / "win.ipynb")
        body = path.read_text().rstrip("\n").replace("\n", "\r\n")
        path.write_bytes(body.encode())
        await read(ctx, path)
        await edit(ctx, path, "print(3)", cell_id="c1")
        raw = path.read_bytes()
        assert b"\r\n" in raw and b"\n" not in raw.replace(b"\r\n", b"") and not raw.endswith(b"\n")
        assert load(path).cells[1].source == "print(3)"

    async def test_the_language_and_the_notebook_metadata_survive(self, ctx, workspace):
        path = make_notebook(workspace / "r.ipynb", kernelspec={"name": "ir", "display_name": "R", "language": "R"},
                             language_info={"name": "R"})
        await read(ctx, path)
        await edit(ctx, path, "x <- 1", cell_id="c2")
        assert load(path).metadata.language_info.name == "R"


class TestErrors:
    @pytest.mark.parametrize(("kw", "message"), [
        ({"cell_id": "nope"}, 'Cell with ID "nope" not found in notebook.'),
        ({}, "Cell ID must be specified when not inserting a new cell."),
        ({"edit_mode": "insert"}, "Cell type is required when using edit_mode=insert."),
    ])
    async def test_a_bad_cell_request_is_refused_and_changes_nothing(self, ctx, nb, kw, message):
        before = nb.read_bytes()
        out = await edit(ctx, nb, "x", **kw)
        assert out.is_error and text(out) == message
        assert nb.read_bytes() == before

    async def test_a_notebook_not_read_first_is_refused(self, ctx, workspace):
        path = make_notebook(workspace / "unread.ipynb")
        out = await edit(ctx, path, "x", cell_id="c1")
        assert out.is_error and text(out).startswith("File has not been read yet. Read it first before writing to it")

    async def test_a_notebook_changed_since_it_was_read_is_refused(self, ctx, nb):
        nb.write_text(nb.read_text().replace("y = 2", "y = 20") + "\n\n")
        out = await edit(ctx, nb, "x", cell_id="c1")
        assert out.is_error and "modified since it was read" in text(out)

    async def test_missing_file_wrong_extension_relative_path(self, ctx, workspace):
        out = await edit(ctx, workspace / "none.ipynb", "x", cell_id="c1")
        assert out.is_error and text(out) == "Notebook file does not exist."
        (workspace / "a.py").write_text("x = 1\n")
        out = await edit(ctx, workspace / "a.py", "x", cell_id="c1")
        assert out.is_error and text(out).startswith("File must be a Jupyter notebook (.ipynb file).")
        out = await run_tool(NotebookEditTool(), ctx, notebook_path="rel.ipynb", new_source="x", cell_id="c1")
        assert out.is_error and "must be an absolute path" in text(out)

    async def test_a_notebook_that_is_not_json_is_refused_untouched(self, ctx, workspace):
        path = workspace / "broken.ipynb"
        path.write_text('{"cells": [')
        ctx.read_state.record(path)  # as if read (Read itself refuses to show it)
        out = await edit(ctx, path, "x", cell_id="c1")
        assert out.is_error and text(out) == "Notebook is not valid JSON."
        assert path.read_text() == '{"cells": ['

    async def test_an_nbformat_3_notebook_is_refused_with_a_way_out(self, ctx, workspace):
        path = workspace / "v3.ipynb"
        path.write_text(json.dumps({"worksheets": [{"cells": []}], "metadata": {}, "nbformat": 3, "nbformat_minor": 0}))
        ctx.read_state.record(path)
        out = await edit(ctx, path, "x", edit_mode="insert", cell_type="code")
        assert out.is_error and "nbformat 4" in text(out) and "nbformat 3" in text(out)

    async def test_bad_input_names_the_allowed_values(self, ctx, nb):
        out = await edit(ctx, nb, "x", cell_id="c1", edit_mode="move")
        assert out.is_error and "replace" in text(out) and "insert" in text(out) and "delete" in text(out)


class TestDeclaration:
    def test_schema_is_claude_codes(self):
        schema = NotebookEditTool().input_schema()
        assert set(schema["properties"]) == {"notebook_path", "cell_id", "new_source", "cell_type", "edit_mode"}
        assert sorted(schema["required"]) == ["new_source", "notebook_path"]
        assert schema["additionalProperties"] is False
        enums = {k: [e for a in v.get("anyOf", [v]) for e in a.get("enum", [])] for k, v in schema["properties"].items()}
        assert enums["cell_type"] == ["code", "markdown"] and enums["edit_mode"] == ["replace", "insert", "delete"]

    def test_it_is_offered_right_after_write_as_in_claude_code(self):
        names = [t.name for t in all_tools()]
        assert names[names.index("Write") + 1] == "NotebookEdit"

    def test_it_is_a_write_of_the_notebook_path(self):
        tool = NotebookEditTool()
        inp = tool.Input.model_validate({"notebook_path": "/w/a.ipynb", "cell_id": "c1", "new_source": "x"})
        assert tool.input_path(inp) == "/w/a.ipynb" and not tool.is_read_only(inp)
        assert tool.summarize(inp) == "/w/a.ipynb @c1"


# --- Through the real agent: the scripted model over the real SDK, the real engine and checkpoint store ---

@pytest.fixture
def make_harness(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Harness]:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "home" / ".config"))

    def make(script: Any, *, ask: Any = None, **settings: Any) -> Harness:
        events: list[Event] = []
        scripted = ScriptedModel(script)
        agent = build_agent(AgentSettings(cwd=tmp_path / "work", **settings), emit=events.append, ask=ask,
                            scripted=scripted)
        return Harness(agent, scripted, events)

    return make


@pytest.fixture
def work(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    make_notebook(folder / "nb.ipynb")
    return folder


def edit_script(path: Path, **edit_input: Any) -> list[Reply]:
    return [
        Reply([ToolUse("Read", {"file_path": str(path)}, id="r1")]),
        Reply([ToolUse("NotebookEdit", {"notebook_path": str(path), **edit_input}, id="e1")]),
        Reply([Text("done")]),
    ]


def tool_results(h: Harness) -> dict[str, Any]:
    """tool_use_id -> the tool_result block the model got, from the transcript."""
    found: dict[str, Any] = {}
    for line in h.agent.session.read():
        content = (line.get("message") or {}).get("content")
        for block in content if isinstance(content, list) else ():
            if isinstance(block, dict) and block.get("type") == "tool_result":
                found[block["tool_use_id"]] = block
    return found


def result_text(block: dict[str, Any]) -> str:
    content = block["content"]
    return content if isinstance(content, str) else "".join(b.get("text", "") for b in content)


class TestThroughTheAgent:
    async def test_a_rewind_puts_the_notebook_back_byte_for_byte(self, make_harness, work):
        path = work / "nb.ipynb"
        original = path.read_bytes()
        h = make_harness(edit_script(path, cell_id="c1", new_source="print('changed')"), permission_mode="acceptEdits")
        assert (await h.agent.run("change the cell")).reason == "completed"
        assert load(path).cells[1].source == "print('changed')"
        store = h.agent.context.services[SERVICE_KEY]
        [prompt] = store.prompts()
        assert [c.path for c in store.changes_in(prompt)] == [path]
        report = store.restore(prompt)
        assert report.restored == (path,) and path.read_bytes() == original

    async def test_accept_edits_runs_it_without_asking(self, make_harness, work):
        asked: list[PermissionRequest] = []

        async def ask(request: PermissionRequest) -> PermissionAnswer:
            asked.append(request)
            return PermissionAnswer("deny")

        path = work / "nb.ipynb"
        h = make_harness(edit_script(path, cell_id="c2", new_source="y = 3"), ask=ask, permission_mode="acceptEdits")
        await h.agent.run("go")
        assert asked == [] and result_text(tool_results(h)["e1"]) == "Updated cell c2 with y = 3"

    async def test_default_mode_asks_with_the_cells_diff_and_a_denial_changes_nothing(self, make_harness, work):
        asked: list[PermissionRequest] = []

        async def ask(request: PermissionRequest) -> PermissionAnswer:
            asked.append(request)
            return PermissionAnswer("deny")

        path = work / "nb.ipynb"
        before = path.read_bytes()
        h = make_harness(edit_script(path, cell_id="c2", new_source="y = 3"), ask=ask)
        await h.agent.run("go")
        assert [r.tool_name for r in asked] == ["NotebookEdit"]
        assert asked[0].diff is not None and "-y = 2" in asked[0].diff and "+y = 3" in asked[0].diff
        assert tool_results(h)["e1"].get("is_error") and path.read_bytes() == before

    async def test_plan_mode_denies_it(self, make_harness, work):
        path = work / "nb.ipynb"
        before = path.read_bytes()
        h = make_harness(edit_script(path, cell_id="c2", new_source="y = 3"), permission_mode="plan")
        await h.agent.run("go")
        block = tool_results(h)["e1"]
        assert block.get("is_error") and "Plan mode" in result_text(block) and path.read_bytes() == before

    async def test_edit_rules_govern_it_like_any_file_write(self, make_harness, work, tmp_path):
        settings = tmp_path / "home" / ".claude" / "settings.json"
        settings.parent.mkdir(parents=True)
        settings.write_text(json.dumps({"permissions": {"allow": ["Edit(**/nb.ipynb)"], "deny": ["Edit(**/locked.ipynb)"]}}))
        locked = make_notebook(work / "locked.ipynb")
        before = locked.read_bytes()
        h = make_harness(edit_script(work / "nb.ipynb", cell_id="c2", new_source="y = 3"))  # default mode, no ask
        await h.agent.run("allowed by the rule")
        assert load(work / "nb.ipynb").cells[2].source == "y = 3"
        h = make_harness(edit_script(locked, cell_id="c2", new_source="y = 3"), permission_mode="acceptEdits")
        await h.agent.run("denied by the rule")
        assert tool_results(h)["e1"].get("is_error") and locked.read_bytes() == before
