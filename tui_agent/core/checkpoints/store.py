"""The checkpoint store of one session: what each file was before a tool changed it, per prompt.

Before a tool writes a file (Write, Edit: `tools/text_files.write_file`), the file's content (or "it did
not exist") is kept once per prompt, content-addressed (blobs.py), under `<session folder>/checkpoints/`,
and the session's folder going away takes the store with it. `restore(prompt)` puts back every file
tools changed from that prompt on (the state just before it), removing the files they created. The app's
rewind (Esc Esc, /rewind) and the SDK's `rewind_files` both use it.

`index.jsonl` records, one line each, the order of prompts, the "before" of each (prompt, file) and the
content each tool write or restore left (its hash): that last one is how a file edited by hand since is
recognized. It is appended as things happen, so a resumed session rewinds to its earlier prompts. The
blobs are written before the file changes but not fsync'd: a crash of this process loses nothing (the
kernel has the bytes); only a power cut could (fsync would cost several ms per Write).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ...tools.private_files import open_private
from .blobs import BlobStore, digest, is_blob_name
from .counting import line_changes

Blob = str | None
"""A content's hash, or None: the file did not exist."""


class UnknownPrompt(KeyError):
    """No checkpoint was taken for this prompt (never seen, or checkpointing was off for it)."""


@dataclass(frozen=True, slots=True)
class FileChange:
    """One file tools changed: lines added and removed between its earlier content and its later one."""

    path: Path
    added: int
    removed: int
    created: bool
    """It did not exist before (restoring removes it)."""
    deleted: bool
    """It does not exist after (removed since, by hand or by a restore)."""

    def summary(self) -> str:
        return f"{self.path} +{self.added} -{self.removed}"


@dataclass(frozen=True, slots=True)
class RestoreReport:
    """What `restore` did, for the caller to say."""

    restored: tuple[Path, ...] = ()
    """Rewritten with their content from before the prompt."""
    removed: tuple[Path, ...] = ()
    """Created by tools since, now deleted."""
    hand_edited: tuple[Path, ...] = ()
    """Changed since by something other than a tool (a person, a shell command): overwritten only when asked."""
    kept: tuple[Path, ...] = ()
    """Hand-edited files left as they are (`overwrite_edited=False`)."""
    changes: tuple[FileChange, ...] = ()
    """What the restore undid, per file (before it ran)."""

    @property
    def insertions(self) -> int:
        return sum(c.added for c in self.changes)

    @property
    def deletions(self) -> int:
        return sum(c.removed for c in self.changes)


class CheckpointStore:
    def __init__(self, root: Path, *, enabled: Callable[[], bool] = lambda: True) -> None:
        """`root`: the session's `checkpoints/` folder. `enabled` is asked once per prompt (settings
        `fileCheckpointingEnabled`), never per write."""
        self.root = root
        self.blobs = BlobStore(root / "blobs")
        self.enabled = enabled
        self._prompts: list[str] = []
        self._position: dict[str, int] = {}
        self._before: dict[str, dict[Path, Blob]] = {}
        """prompt -> file -> its content before the prompt's first change to it (dicts keep the order)."""
        self._left: dict[Path, Blob] = {}
        """file -> what the last tool write (or restore) left in it."""
        self._current: str | None = None
        self._unsaved = 0
        """How many of the last prompts are not in the index yet: a prompt is written with its first change,
        so a session that changes no file has no checkpoint folder."""
        self._index = root / "index.jsonl"
        self._load()

    # ----- recording -----------------------------------------------------------------------------
    def begin_prompt(self, prompt_uuid: str) -> None:
        """A prompt's line is in the transcript: the changes that follow belong to it."""
        if not self.enabled():
            self._current = None
            return
        self._current = prompt_uuid
        if prompt_uuid not in self._position:
            self._add_prompt(prompt_uuid)
            self._unsaved += 1

    @property
    def current_prompt(self) -> str | None:
        return self._current

    def before_write(self, path: Path) -> None:
        """Called just before a tool changes `path`: its content now is kept, once per prompt."""
        prompt = self._current
        if prompt is None:
            return
        befores = self._before[prompt]
        if path in befores:
            return  # the content from before the prompt is what a restore needs; later ones are not
        try:
            blob: Blob = self.blobs.put(path.read_bytes())
        except FileNotFoundError:
            blob = None
        befores[path] = blob
        unsaved, self._unsaved = self._prompts[len(self._prompts) - self._unsaved:], 0
        self._append(*({"t": "prompt", "prompt": p} for p in unsaved), {"t": "before", "prompt": prompt, "path": str(path), "blob": blob})

    def after_write(self, path: Path, data: bytes) -> None:
        """What the tool left in `path` (its hash only): a different content later means a hand edit."""
        if self._current is None:
            return
        self._set_left(path, digest(data))

    # ----- reading ---------------------------------------------------------------------------------
    def prompts(self) -> list[str]:
        """The prompts with a checkpoint, oldest first."""
        return list(self._prompts)

    def has(self, prompt_uuid: str) -> bool:
        return prompt_uuid in self._position

    def changes_in(self, prompt_uuid: str) -> list[FileChange]:
        """The files one prompt's tools changed (for the rewind picker): each file's content before the
        prompt against its content before the next prompt that changed it (or now)."""
        start = self._at(prompt_uuid)
        out = []
        for path, before in self._before[prompt_uuid].items():
            later = next((self._before[p][path] for p in self._prompts[start + 1:] if path in self._before[p]), _NOW)
            out.append(self._change(path, before, later))
        return out

    def changes_since(self, prompt_uuid: str) -> list[FileChange]:
        """Every file tools changed from this prompt on, against what it is now: what `restore` would undo."""
        return [self._change(path, before, _NOW) for path, before in self._targets(prompt_uuid).items()]

    def hand_edited(self, prompt_uuid: str) -> list[Path]:
        """The files a restore would overwrite that were changed since by something other than a tool."""
        out = []
        for path, blob in self._targets(prompt_uuid).items():
            now = _blob_of(_read(path))
            if now != blob and self._left.get(path, now) != now:
                out.append(path)
        return out

    # ----- restoring -------------------------------------------------------------------------------
    def restore(self, prompt_uuid: str, *, overwrite_edited: bool = True) -> RestoreReport:
        """Put every file tools changed from this prompt on back as it was just before it; files they
        created are removed. A hand-edited file is overwritten only with `overwrite_edited` (the caller
        asks first); it is named in the report either way. Raises UnknownPrompt."""
        targets = self._targets(prompt_uuid)
        changes = tuple(self._change(path, blob, _NOW) for path, blob in targets.items())
        restored: list[Path] = []
        removed: list[Path] = []
        edited: list[Path] = []
        kept: list[Path] = []
        for path, blob in targets.items():
            now = _blob_of(_read(path))
            if now == blob:  # already as it was: nothing to overwrite, whoever changed it
                self._set_left(path, blob)
                continue
            if self._left.get(path, now) != now:
                edited.append(path)
                if not overwrite_edited:
                    kept.append(path)
                    continue
            if blob is None:
                path.unlink()
                removed.append(path)
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(self.blobs.get(blob))
                restored.append(path)
            self._set_left(path, blob)
        return RestoreReport(tuple(restored), tuple(removed), tuple(edited), tuple(kept), changes)

    # ----- inside --------------------------------------------------------------------------------
    def _at(self, prompt_uuid: str) -> int:
        try:
            return self._position[prompt_uuid]
        except KeyError:
            raise UnknownPrompt(prompt_uuid) from None

    def _targets(self, prompt_uuid: str) -> dict[Path, Blob]:
        """file -> its content just before the first change to it from this prompt on."""
        targets: dict[Path, Blob] = {}
        for prompt in self._prompts[self._at(prompt_uuid):]:
            for path, blob in self._before[prompt].items():
                targets.setdefault(path, blob)
        return targets

    def _change(self, path: Path, before: Blob, after: "Blob | object") -> FileChange:
        old = b"" if before is None else self.blobs.get(before)
        if after is _NOW:
            new_data = _read(path)
        else:
            new_data = None if after is None else self.blobs.get(after)  # type: ignore[arg-type]
        added, removed = line_changes(old, new_data or b"")
        return FileChange(path, added, removed, created=before is None, deleted=new_data is None)

    def _set_left(self, path: Path, blob: Blob) -> None:
        if self._left.get(path, "") != blob:
            self._left[path] = blob
            self._append({"t": "left", "path": str(path), "blob": blob})

    def _add_prompt(self, prompt_uuid: str) -> None:
        self._position[prompt_uuid] = len(self._prompts)
        self._prompts.append(prompt_uuid)
        self._before[prompt_uuid] = {}

    def _append(self, *records: dict[str, object]) -> None:
        with open_private(self._index, "a", encoding="utf-8") as fh:
            fh.write("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records))

    def _load(self) -> None:
        """A resumed session's earlier checkpoints; a torn or foreign line is skipped."""
        try:
            lines = self._index.read_text(encoding="utf-8").splitlines()
        except OSError:
            return
        for text in lines:
            try:
                record = json.loads(text)
                kind = record["t"]
                if kind in ("before", "left") and record["blob"] is not None and not is_blob_name(record["blob"]):
                    continue
                if kind == "prompt" and record["prompt"] not in self._position:
                    self._add_prompt(record["prompt"])
                elif kind == "before" and record["prompt"] in self._before:
                    self._before[record["prompt"]].setdefault(Path(record["path"]), record["blob"])
                elif kind == "left":
                    self._left[Path(record["path"])] = record["blob"]
            except (ValueError, KeyError, TypeError):
                continue


_NOW = object()
"""The file's content on disk now (as the `after` of a change)."""


def _blob_of(data: bytes | None) -> Blob:
    return None if data is None else digest(data)


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None
