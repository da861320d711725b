"""Text files as the file tools see them: checked against the workspace, decoded faithfully, written
back the same way, shown `cat -n`.

A file is decoded as UTF-8 (with or without BOM), UTF-16 with a BOM, or Latin-1 as the fallback that
round-trips any bytes. Edits and rewrites encode with the same codec and BOM, so touching one line
never re-encodes the rest of the file.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from . import file_watch
from .base import ToolContext

_BOMS = (
    (b"\xef\xbb\xbf", "utf-8"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)
BINARY_SNIFF_BYTES = 8192
MAX_LINE_CHARS = 2000


@dataclass(frozen=True, slots=True)
class TextEncoding:
    codec: str
    bom: bytes = b""


UTF8 = TextEncoding("utf-8")


def path_problem(ctx: ToolContext, file_path: str) -> str | None:
    """Why a file tool may not use `file_path` (not absolute), or None. A path outside the working folders
    is a permission question (the engine asks, and rules or --add-dir allow it), not an error here."""
    if not Path(file_path).is_absolute():
        return f"file_path must be an absolute path, not a relative path: {file_path}"
    return None


def detect_encoding(head: bytes) -> TextEncoding | None:
    """The encoding suggested by the first bytes of a file; None when it looks binary."""
    for bom, codec in _BOMS:
        if head.startswith(bom):
            return TextEncoding(codec, bom)
    if b"\0" in head[:BINARY_SNIFF_BYTES]:
        return None
    return UTF8


def decode(data: bytes) -> tuple[str, TextEncoding] | None:
    """The text of a file's bytes and the encoding to write it back with; None for binary data."""
    enc = detect_encoding(data)
    if enc is None:
        return None
    body = data[len(enc.bom) :]
    try:
        return body.decode(enc.codec), enc
    except UnicodeDecodeError:
        if enc.bom:
            return body.decode(enc.codec, errors="replace"), enc
        return body.decode("latin-1"), TextEncoding("latin-1")


def encode(text: str, enc: TextEncoding) -> bytes:
    try:
        return enc.bom + text.encode(enc.codec)
    except UnicodeEncodeError as e:
        raise ValueError(
            f"The new content has characters the file's encoding ({enc.codec}) cannot store: "
            f"{text[e.start:e.end]!r}"
        ) from None


def uses_crlf(text: str) -> bool:
    """True when most line breaks are CRLF (such files are edited in LF form and restored)."""
    crlf = text.count("\r\n")
    return crlf > 0 and crlf >= text.count("\n") - crlf


def numbered(lines: list[str], first_line: int) -> str:
    """`cat -n` style: right-aligned line number, a tab, the line (cut past MAX_LINE_CHARS)."""
    out = []
    for n, line in enumerate(lines, first_line):
        if len(line) > MAX_LINE_CHARS:
            line = f"{line[:MAX_LINE_CHARS]}... [line truncated, {len(line) - MAX_LINE_CHARS} more characters]"
        out.append(f"{n:>6}\t{line}")
    return "\n".join(out)


def split_lines(text: str) -> list[str]:
    """The lines of a text without their terminators (a final newline ends a line, not starts one)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def unified_diff(path: Path, before: str, after: str) -> str:
    lines = difflib.unified_diff(
        before.splitlines(keepends=True), after.splitlines(keepends=True), fromfile=str(path), tofile=str(path)
    )
    # A last line without a newline would run into the next diff line; mark it as `diff -u` does.
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


def similar_path(path: Path) -> Path | None:
    """A sibling whose name is close to `path`'s (a typo, another extension), to suggest."""
    parent = path.parent
    try:
        names = [p.name for p in parent.iterdir()]
    except OSError:
        return None
    same_stem = [n for n in names if Path(n).stem == path.stem and n != path.name]
    if same_stem:
        return parent / sorted(same_stem)[0]
    close = difflib.get_close_matches(path.name, names, n=1, cutoff=0.75)
    return parent / close[0] if close else None


def missing_file_message(path: Path) -> str:
    hint = similar_path(path)
    message = f"File does not exist: {path}"
    return f"{message}. Did you mean {hint}?" if hint else message


def write_file(ctx: ToolContext, path: Path, data: bytes) -> None:
    """Write `data` as the session's own change: announced to the watcher first, re-stamped after."""
    from ..core.checkpoints import after_write, before_write  # the session's rewind: what the file was

    before_write(ctx.services, path)
    file_watch.watcher_for(ctx).expect(path, data)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    ctx.read_state.record(path)
    after_write(ctx.services, path, data)
