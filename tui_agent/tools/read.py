"""Read: a file's lines, numbered like `cat -n`, or an image as an image block."""

from __future__ import annotations

import asyncio
import stat
from pathlib import Path
from typing import ClassVar

from pydantic import Field

from . import file_watch
from .images import MAX_LONG_SIDE_PX, ImageError, prepare_image
from .notebook_read import read_notebook
from .base import Tool, ToolContext, ToolError, ToolInput, ToolOutput
from .text_files import (
    BINARY_SNIFF_BYTES,
    decode,
    detect_encoding,
    missing_file_message,
    numbered,
    path_problem,
    split_lines,
)

DEFAULT_LIMIT = 2000
# Files up to this size are read whole, at once, on the event loop; bigger ones need offset/limit.
MAX_WHOLE_FILE_BYTES = 256 * 1024
# ~25,000 tokens: Read is never persisted, so it limits itself.
MAX_OUTPUT_CHARS = 100_000

_IMAGE_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp"}
_BINARY_EXTENSIONS = frozenset(
    ".pdf .zip .gz .tgz .bz2 .xz .7z .rar .tar .jar .war .class .pyc .pyo .o .a .so .dylib .dll .exe "
    ".bin .dat .db .sqlite .sqlite3 .wasm .ico .bmp .tiff .psd .mp3 .mp4 .mov .avi .mkv .wav .flac .ogg "
    ".woff .woff2 .ttf .otf .eot .docx .xlsx .pptx .doc .xls .ppt .npy .npz .pkl .parquet".split()
)

EMPTY_FILE_WARNING = "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>"


class ReadInput(ToolInput):
    file_path: str = Field(description="The absolute path to the file to read")
    offset: int | None = Field(
        None,
        ge=0,
        description="The line number to start reading from (1-based). Only provide if the file is too large to read at once",
    )
    limit: int | None = Field(
        None, ge=1, description="The number of lines to read. Only provide if the file is too large to read at once."
    )


class ReadTool(Tool[ReadInput]):
    name = "Read"
    Input = ReadInput
    max_result_size_chars = 10**12  # never persisted: the tool bounds its own output
    description: ClassVar[str] = f"""Reads a file from the local filesystem. You can access any file in the working directories directly by using this tool.
Assume this tool is able to read all files in the working directories. If the User provides a path to a file assume that path is valid. It is okay to read a file that does not exist; an error will be returned.

Usage:
- The file_path parameter must be an absolute path, not a relative path
- By default, it reads up to {DEFAULT_LIMIT} lines starting from the beginning of the file
- You can optionally specify a line offset and limit (especially handy for long files), but it's recommended to read the whole file by not providing these parameters
- Files larger than {MAX_WHOLE_FILE_BYTES // 1024} KB must be read in parts with offset and limit
- Any lines longer than 2000 characters will be truncated
- Results are returned using cat -n format, with line numbers starting at 1
- This tool allows you to read images (PNG, JPG, GIF, WEBP). When reading an image file the contents are presented visually as you are a multimodal LLM. Images larger than {MAX_LONG_SIDE_PX} px on their longest side are scaled down.
- This tool can read Jupyter notebooks (.ipynb files) and returns all cells with their outputs, combining code, text, and visualizations.
- This tool can only read files, not directories. To read a directory, use an ls command via the Bash tool.
- You have the capability to call multiple tools in a single response. It is always better to speculatively read multiple files as a batch that are potentially useful.
- If you read a file that exists but has empty contents you will receive a system reminder warning in place of file contents."""

    def is_read_only(self, input: ReadInput) -> bool:
        return True

    def input_path(self, input: ReadInput) -> str | None:
        return input.file_path

    async def validate_input(self, input: ReadInput, ctx: ToolContext) -> str | None:
        return path_problem(ctx, input.file_path)

    async def call(self, input: ReadInput, ctx: ToolContext) -> ToolOutput:
        path = ctx.workspace.resolve(input.file_path)
        try:
            st = path.stat()
        except FileNotFoundError:
            raise ToolError(missing_file_message(path)) from None
        except OSError as e:
            raise ToolError(f"Cannot read {path}: {e.strerror}") from None
        if stat.S_ISDIR(st.st_mode):
            raise ToolError(
                f"{path} is a directory, not a file. Use `ls` via the Bash tool or the Glob tool to list its contents."
            )
        suffix = path.suffix.lower()
        if suffix in _IMAGE_TYPES:
            return await self._read_image(path, st.st_size, ctx)
        if suffix == ".ipynb":  # its cells and outputs, as Claude Code shows them (offset/limit do not apply)
            return await read_notebook(path, ctx, max_bytes=MAX_WHOLE_FILE_BYTES, max_chars=MAX_OUTPUT_CHARS)
        if suffix in _BINARY_EXTENSIONS:
            raise ToolError(f"This tool cannot read binary files. The file appears to be a binary {suffix} file: {path}")

        start = max((input.offset or 1) - 1, 0)
        limit = input.limit or DEFAULT_LIMIT
        data: bytes | None = None  # the whole file, when it was read whole (for the watcher's hash)
        if st.st_size <= MAX_WHOLE_FILE_BYTES:
            data = path.read_bytes()
            decoded = decode(data)
            if decoded is None:
                raise ToolError(f"This tool cannot read binary files. The file appears to be binary: {path}")
            lines = split_lines(decoded[0])
            window, total = lines[start : start + limit], len(lines)
        elif input.offset is None and input.limit is None:
            raise ToolError(
                f"File content ({st.st_size // 1024} KB) exceeds maximum allowed size ({MAX_WHOLE_FILE_BYTES // 1024} KB). "
                "Please use offset and limit parameters to read specific portions of the file, "
                "or use the Grep tool to search for specific content."
            )
        else:
            window, total = await asyncio.to_thread(_read_window, path, start, limit)

        if total and not window:
            return ToolOutput(
                f"<system-reminder>Warning: the file exists but is shorter than the provided offset ({input.offset}). "
                f"The file has {total} lines.</system-reminder>"
            )
        text = numbered(window, start + 1) if total else EMPTY_FILE_WARNING
        if len(text) > MAX_OUTPUT_CHARS:
            raise ToolError(
                f"File content ({len(text):,} characters) exceeds maximum allowed size ({MAX_OUTPUT_CHARS:,} characters). "
                "Please use offset and limit parameters to read specific portions of the file, "
                "or use the Grep tool to search for specific content."
            )
        # Only a read that showed the model the file counts for the edit guard.
        ctx.read_state.record(path)
        file_watch.watcher_for(ctx).track(path, data)
        return ToolOutput(text)

    async def _read_image(self, path: Path, size: int, ctx: ToolContext) -> ToolOutput:
        if size == 0:
            return ToolOutput(EMPTY_FILE_WARNING)
        try:
            image = await asyncio.to_thread(prepare_image, path)  # decoding and scaling take a while
        except ImageError as exc:
            raise ToolError(str(exc)) from None
        ctx.read_state.record(path)
        data = {"type": "image", "width": image.width, "height": image.height, "original_size": image.original_size}
        return ToolOutput([image.block()], data=data)


_STREAM_CODECS = {"utf-8": "utf-8-sig", "utf-16-le": "utf-16", "utf-16-be": "utf-16"}


def _read_window(path: Path, start: int, limit: int) -> tuple[list[str], int]:
    """Lines [start, start+limit) of a big file, streamed, and the number of lines read through."""
    with open(path, "rb") as f:
        enc = detect_encoding(f.read(BINARY_SNIFF_BYTES))
    if enc is None:
        raise ToolError(f"This tool cannot read binary files. The file appears to be binary: {path}")
    codec = _STREAM_CODECS.get(enc.codec, enc.codec) if enc.bom else enc.codec
    window: list[str] = []
    count = 0
    with open(path, encoding=codec, errors="replace", newline="\n") as f:
        for count, line in enumerate(f, 1):
            if count > start:
                window.append(line.rstrip("\r\n"))
                if len(window) == limit:
                    break
    return window, count
