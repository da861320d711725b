"""Content-addressed file contents: one file per distinct content, named by its SHA-256.

The same content stored twice costs one existence check, so a file edited back and forth, or the
same file checkpointed by many prompts, does not grow the store."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from ...tools.private_files import FILE_MODE, private_dirs


_BLOB_NAME = re.compile(r"[0-9a-f]{64}")


def is_blob_name(name: object) -> bool:
    """A content's name as `digest` makes it (None, "did not exist", is checked by the caller)."""
    return isinstance(name, str) and _BLOB_NAME.fullmatch(name) is not None


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class BlobStore:
    def __init__(self, root: Path) -> None:
        self.root = root
        self._known: set[str] = set()
        """Blobs known to be on disk (no stat for content stored once already in this process)."""

    def path(self, blob: str) -> Path:
        if not is_blob_name(blob):  # an index line names a blob: never a path out of the folder
            raise ValueError(f"not a checkpoint blob name: {blob!r}")
        return self.root / blob

    def put(self, data: bytes) -> str:
        blob = digest(data)
        if blob in self._known:
            return blob
        target = self.path(blob)
        if not target.exists():
            if not self.root.is_dir():
                private_dirs(self.root)
            # Written aside and renamed: a process killed mid-write never leaves a torn blob under the name.
            tmp = self.root / f".{blob}.{os.getpid()}.tmp"
            with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE), "wb") as fh:
                fh.write(data)
            os.replace(tmp, target)
        self._known.add(blob)
        return blob

    def get(self, blob: str) -> bytes:
        return self.path(blob).read_bytes()

    def size(self) -> int:
        """Bytes on disk (for the benchmark and for people)."""
        if not self.root.is_dir():
            return 0
        return sum(p.stat().st_size for p in self.root.iterdir() if p.is_file())
