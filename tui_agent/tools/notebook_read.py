"""Read of a `.ipynb`: its cells as Claude Code shows them, not the raw JSON.

Each cell is `<cell id="…">source</cell id="…">` (a cell without an id is `cell-N`, its index, which
NotebookEdit accepts), with `<cell_type>` for non-code cells and `<language>` for code in a language other
than Python; each output follows as text (streams, `text/plain` results, errors with their traceback) or as
an image block (PNG/JPEG). A cell whose outputs pass 10,000 characters shows a `jq` command to read them
instead. The JSON is parsed as-is (no schema check), so a
notebook Jupyter would warn about still reads.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
from pathlib import Path
from typing import Any

from . import file_watch
from .base import ToolContext, ToolError, ToolOutput

MAX_CELL_OUTPUTS_CHARS = 10_000  # all of one cell's outputs, images' base64 included
EMPTY_NOTEBOOK_WARNING = "<system-reminder>Warning: the notebook exists but has no cells.</system-reminder>"

_IMAGE_MAGIC = {"image/png": (b"\x89PNG\r\n\x1a\n",), "image/jpeg": (b"\xff\xd8\xff",)}


async def read_notebook(path: Path, ctx: ToolContext, *, max_bytes: int, max_chars: int) -> ToolOutput:
    """The notebook at `path` as text and image blocks (a str when it has no images). `max_bytes` bounds the
    cells as parsed (images included), `max_chars` the text sent, as for any Read."""
    output, data = await asyncio.to_thread(_load, path, max_bytes, max_chars)  # a notebook can be megabytes
    ctx.read_state.record(path)  # NotebookEdit's guard: the notebook was shown
    file_watch.watcher_for(ctx).track(path, data)
    return output


def _load(path: Path, max_bytes: int, max_chars: int) -> tuple[ToolOutput, bytes]:
    data = path.read_bytes()
    cells = notebook_cells(data)
    size = len(json.dumps(cells, ensure_ascii=False).encode())
    if size > max_bytes:
        raise ToolError(
            f"Notebook content ({size // 1024} KB) exceeds maximum allowed size ({max_bytes // 1024} KB). "
            "Use Bash with jq to read specific portions:\n"
            f"  cat \"{path}\" | jq '.cells[:20]' # First 20 cells\n"
            f"  cat \"{path}\" | jq '.cells[100:120]' # Cells 100-120\n"
            f"  cat \"{path}\" | jq '.cells | length' # Count total cells\n"
            f"  cat \"{path}\" | jq '.cells[] | select(.cell_type==\"code\") | .source' # All code sources"
        )
    blocks = render_cells(cells)
    text_chars = sum(len(b["text"]) for b in blocks if b["type"] == "text")
    if text_chars > max_chars:
        raise ToolError(
            f"Notebook content ({text_chars:,} characters) exceeds maximum allowed size ({max_chars:,} characters). "
            f"Use Bash with jq to read specific portions, e.g. cat \"{path}\" | jq '.cells[:20]'"
        )
    if not blocks:
        return ToolOutput(EMPTY_NOTEBOOK_WARNING), data
    images = sum(1 for b in blocks if b["type"] == "image")
    info = {"type": "notebook", "cells": len(cells), "images": images}
    if images == 0:
        return ToolOutput("".join(b["text"] for b in blocks), data=info), data
    return ToolOutput(blocks, data=info), data


def notebook_cells(data: bytes) -> list[dict[str, Any]]:
    """The cells of a notebook file, each as {cell_id, cell_type, source, language?, outputs?}."""
    try:
        nb = json.loads(data.decode("utf-8-sig", errors="replace"))
    except json.JSONDecodeError as e:
        raise ToolError(
            f"Notebook file is not valid JSON (it may be truncated, corrupted, or still being written): {e}"
        ) from None
    cells = nb.get("cells") if isinstance(nb, dict) else None
    if not isinstance(cells, list) or any(not isinstance(c, dict) for c in cells):
        raise ToolError(
            'Notebook file is not a valid Jupyter notebook (top-level "cells" must be an array of cell objects).'
        )
    meta = nb.get("metadata")
    info = meta.get("language_info") if isinstance(meta, dict) else None
    language = info.get("name") if isinstance(info, dict) and isinstance(info.get("name"), str) else "python"
    return [_cell(cell, i, language) for i, cell in enumerate(cells)]


def render_cells(cells: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Content blocks: each cell's text, then its outputs; neighbouring texts joined by a newline."""
    blocks: list[dict[str, Any]] = []
    for cell in cells:
        tags = "" if cell["cell_type"] == "code" else f"<cell_type>{cell['cell_type']}</cell_type>"
        if cell["cell_type"] == "code" and cell.get("language", "python") != "python":
            tags += f"<language>{cell['language']}</language>"
        _add_text(blocks, f'<cell id="{cell["cell_id"]}">{tags}{cell["source"]}</cell id="{cell["cell_id"]}">')
        for output in cell.get("outputs", ()):
            if output.get("text"):
                _add_text(blocks, "\n" + output["text"])
            if output.get("image"):
                media_type, b64 = output["image"]
                blocks.append({"type": "image", "source": {"type": "base64", "media_type": media_type, "data": b64}})
    return blocks


def _add_text(blocks: list[dict[str, Any]], text: str) -> None:
    if blocks and blocks[-1]["type"] == "text":
        blocks[-1]["text"] += "\n" + text
    else:
        blocks.append({"type": "text", "text": text})


def _cell(cell: dict[str, Any], index: int, language: str) -> dict[str, Any]:
    cell_id = cell.get("id") if isinstance(cell.get("id"), str) and cell.get("id") else f"cell-{index}"
    kind = str(cell.get("cell_type", "code"))
    shown: dict[str, Any] = {"cell_id": cell_id, "cell_type": kind, "source": _joined(cell.get("source"))}
    if kind != "code":
        return shown
    shown["language"] = language
    raw_outputs = cell.get("outputs")
    if isinstance(raw_outputs, list) and raw_outputs:
        outputs = [_output(o) for o in raw_outputs if isinstance(o, dict)]
        if _outputs_size(outputs) > MAX_CELL_OUTPUTS_CHARS:
            jq = f"Bash with: cat <notebook_path> | jq '.cells[{index}].outputs'"
            outputs = [{"text": f"Outputs are too large to include. Use {jq}"}]
        shown["outputs"] = outputs
    return shown


def _output(output: dict[str, Any]) -> dict[str, Any]:
    kind = output.get("output_type")
    if kind == "stream":
        return {"text": _joined(output.get("text"))}
    if kind in ("execute_result", "display_data"):
        data = output.get("data") if isinstance(output.get("data"), dict) else {}
        return {"text": _joined(data.get("text/plain")), "image": _image(data)}
    if kind == "error":
        traceback = output.get("traceback")
        lines = "\n".join(str(t) for t in traceback) if isinstance(traceback, list) else ""
        return {"text": f"{output.get('ename', '')}: {output.get('evalue', '')}\n{lines}"}
    return {}


def _image(data: dict[str, Any]) -> tuple[str, str] | None:
    """The first PNG or JPEG of an output, when its bytes really are one."""
    for media_type in ("image/png", "image/jpeg"):
        value = data.get(media_type)
        if not isinstance(value, str):
            continue
        b64 = "".join(value.split())
        try:
            head = base64.b64decode(b64[:64], validate=True)
        except (binascii.Error, ValueError):
            return None
        return (media_type, b64) if head.startswith(_IMAGE_MAGIC[media_type]) else None
    return None


def _outputs_size(outputs: list[dict[str, Any]]) -> int:
    return sum(len(o.get("text") or "") + len(o["image"][1] if o.get("image") else "") for o in outputs)


def _joined(value: Any) -> str:
    if isinstance(value, list):
        return "".join(str(v) for v in value)
    return value if isinstance(value, str) else ""

