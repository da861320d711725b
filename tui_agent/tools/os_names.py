"""Names the OS gives as bytes, in text the model can read and send back.

On Linux a file or folder name is bytes, not necessarily UTF-8. Python holds an undecodable byte as a
lone surrogate (`os.fsdecode`: byte 0xff becomes U+DCFF), which opens the right file but cannot be sent:
the API's JSON must be valid Unicode (the SDK raises `UnicodeEncodeError: surrogates not allowed`).
Node, in Claude Code, decodes such names with U+FFFD, which loses the byte: the model can never name the
file again. Here each such byte is shown as the four characters `\\xNN` (what `bytes` repr and bash's
`$'...'` write for it): in tool results (`core/results.py`), @-mentions, a shell's output and, as the last
guard, every request (`ModelClient.stream`). A path the model sends back with `\\xNN` in it is turned back
into the byte (`on_disk`, in `Workspace.resolve`), so the model can name the file again.

`\\xNN` could also be a real name's four characters (a backslash is a legal name character): each part of
a path is the name as written where that exists, else the name with the byte.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, TypeVar

_SURROGATE = re.compile("[\ud800-\udfff]")
_SHOWN_BYTE = re.compile(r"\\x([89a-fA-F][0-9a-fA-F])")

T = TypeVar("T")


def _show(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8, as surrogateescape holds it
        return f"\\x{code - 0xDC00:02x}"
    return f"\\u{code:04x}"


def for_model(text: str) -> str:
    """`text` as valid Unicode: each undecodable byte as `\\xNN`, any other lone surrogate as `\\uNNNN`."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub(_show, text)
    return text


def for_model_deep(value: T) -> T:
    """Every string in `value` (dicts, lists, tuples) through `for_model`; the same objects back when
    nothing needed it (a request's history is walked on every send)."""
    if isinstance(value, str):
        return for_model(value)  # type: ignore[return-value]
    if isinstance(value, dict):
        changed = {k: for_model_deep(v) for k, v in value.items()}
        return value if all(changed[k] is value[k] for k in value) else changed  # type: ignore[return-value]
    if isinstance(value, (list, tuple)):
        items = [for_model_deep(v) for v in value]
        if all(a is b for a, b in zip(items, value)):
            return value
        return type(value)(items)  # type: ignore[return-value]
    return value


def decode_output(data: bytes) -> str:
    """A program's output (a shell's, ripgrep's) as text: UTF-8, other bytes as `\\xNN` (names it prints
    then match what Glob shows, and the model can send them back)."""
    return for_model(data.decode("utf-8", "surrogateescape"))


def from_model(text: str) -> str:
    """`text` with each `\\xNN` (NN 80-ff) turned back into the byte it shows (held as a surrogate)."""
    if "\\x" not in text:
        return text
    return _SHOWN_BYTE.sub(lambda m: chr(0xDC00 + int(m.group(1), 16)), text)


def rg_glob(pattern: str) -> str:
    """A glob for ripgrep, which takes UTF-8 globs only: a byte shown as `\\xNN` (or held as a surrogate)
    matches any one character there (`?` matches a single byte that is not UTF-8)."""
    return _SURROGATE.sub("?", _SHOWN_BYTE.sub("?", pattern))


def on_disk(path: Path) -> Path:
    """The file the model means by `path`: part by part, a name holding `\\xNN` is that name where it
    exists, else the name with the bytes it shows (a new file too: the model names files the way it
    was shown them)."""
    if "\\x" not in str(path):
        return path
    parts = path.parts
    out = Path(parts[0])
    for part in parts[1:]:
        decoded = from_model(part)
        if decoded != part:
            try:
                if not (out / part).exists():
                    part = decoded
            except (OSError, ValueError):
                part = decoded
        out = out / part
    return out


def json_line(obj: Any) -> str:
    """One JSON line for another program (`-p --output-format stream-json`, the SDK protocol): an
    undecodable name stays `\\udcXX`-escaped, which JSON readers turn back into the same string, rather
    than crashing a UTF-8 stream."""
    text = json.dumps(obj, ensure_ascii=False, default=str)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return text
