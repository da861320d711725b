"""A session's transcript file, written as the conversation happens, in Claude Code's line shape.

`<project dir>/<session id>.jsonl` holds the lines, `<project dir>/<session id>/` the side files
(`tool-results/`). Every history message becomes lines at once and is flushed, so a process killed at
any moment leaves every finished message on disk (a reader repairs the rest, see reader.py):
- a user prompt: one `user` line (with the permission mode of the moment);
- an assistant message: one line per content block, all sharing the response's `message.id`, `usage`;
- tool results: one `user` line per result, its parent the line of its tool_use, then one `user` line
  for any text sent with them (the interrupt note, a subdirectory's memory: `isMeta`).
"""

from __future__ import annotations

import copy
import json
import os
import uuid
from pathlib import Path
from typing import IO, Any, Callable, Literal

from ...tools.private_files import open_private
from .lines import RUN_LINE, VERSION, now_iso
from .paths import git_branch, project_dir

Kind = Literal["user", "assistant", "system", "result"]


class Session:
    """The transcript writer of one session. `last_uuid` is the line the next one hangs from."""

    def __init__(self, cwd: Path, session_id: str | None = None, root: Path | None = None, *, branch: str | None = None) -> None:
        self.id = session_id or str(uuid.uuid4())
        self.cwd = cwd.resolve()
        self.project_dir = root if root is not None else project_dir(self.cwd)
        self.dir = self.project_dir / self.id
        """The session's side files (tool-results/)."""
        self.transcript_path = self.project_dir / f"{self.id}.jsonl"
        self.last_uuid: str | None = None
        self.mode_of: Callable[[], str] = lambda: "default"
        """The permission mode now (the factory points it at the policy); recorded on each prompt line."""
        self._branch = branch
        self._tool_lines: dict[str, str] = {}
        self._fh: IO[str] | None = None
        self._marks: dict[str, Any] = {}
        """Fields every line of a side-chain carries (isSidechain, agentId, ...); empty for the main chain."""
        self._root: Session | None = None
        """The main chain's writer, for a side-chain: it owns the file."""

    def sidechain(self, **marks: Any) -> "Session":
        """A subagent's writer: the same file, a parent chain of its own (its first line hangs from
        nothing, so the main chain is never broken by it), every line carrying `marks`."""
        child = copy.copy(self)
        child.last_uuid = None
        child._tool_lines = {}
        child._marks = {**self._marks, **marks}
        child._root = self._root or self
        return child

    # ----- writing -------------------------------------------------------------------------------
    @property
    def git_branch(self) -> str:
        if self._branch is None:
            self._branch = git_branch(self.cwd)
        return self._branch

    def _write(self, lines: list[dict[str, Any]]) -> None:
        if self._root is not None:
            self._root._write(lines)
            return
        if self._fh is None:
            self._fh = open_private(self.transcript_path, "a", encoding="utf-8")  # 0600: the whole conversation
            if self._fh.tell() > 0 and not _ends_with_newline(self.transcript_path):
                self._fh.write("\n")  # after a torn last line (a crash), start clean
        # One write per message: a kill leaves whole lines (a torn last line is skipped on reading).
        self._fh.write("".join(json.dumps(line, ensure_ascii=False, default=str) + "\n" for line in lines))
        self._fh.flush()

    def _line(self, kind: str, message: dict[str, Any], parent: str | None, **extra: Any) -> dict[str, Any]:
        line: dict[str, Any] = {
            "parentUuid": parent,
            "isSidechain": False,
            "type": kind,
            "message": message,
            "uuid": str(uuid.uuid4()),
            "timestamp": now_iso(),
            **extra,
            **self._marks,
            "userType": "external",
            "entrypoint": "tui-agent",
            "cwd": str(self.cwd),
            "sessionId": self.id,
            "version": VERSION,
            "gitBranch": self.git_branch,
        }
        return line

    def append(self, kind: Kind, *, message: dict[str, Any] | None = None, data: dict[str, Any] | None = None, meta: dict[str, Any] | None = None) -> None:
        """Record one history message (`user`, `assistant`), or a run's end (`result`, with `data`).
        `meta` holds an assistant response's `id`, `model`, `stop_reason` and `usage`."""
        if kind == "result":
            self._write([{"type": RUN_LINE, "sessionId": self.id, "timestamp": now_iso(), "parentUuid": self.last_uuid, **(data or {}), **self._marks}])
        elif kind == "assistant" and message is not None:
            self._write(self._assistant_lines(message, meta or {}))
        elif kind == "user" and message is not None:
            self._write(self._user_lines(message))
        elif kind == "system":
            # A fact of ours (a stop reason's handling): off the conversation chain, so readers skip it.
            self._write([{"type": "system", "subtype": "tui-agent", "uuid": str(uuid.uuid4()), "parentUuid": self.last_uuid,
                          "sessionId": self.id, "timestamp": now_iso(), "isMeta": True, "level": "info", "data": data or {}, **self._marks}])

    def _assistant_lines(self, message: dict[str, Any], meta: dict[str, Any]) -> list[dict[str, Any]]:
        envelope = {
            "id": meta.get("id") or "msg_" + uuid.uuid4().hex[:24],
            "type": "message",
            "role": "assistant",
            "model": meta.get("model", ""),
            "stop_reason": meta.get("stop_reason"),
            "stop_sequence": None,
            "usage": meta.get("usage") or {},
        }
        lines = []
        for block in message["content"]:
            line = self._line("assistant", {**envelope, "content": [block]}, self.last_uuid, requestId=meta.get("request_id"))
            if block.get("type") == "tool_use":
                self._tool_lines[block["id"]] = line["uuid"]
            self.last_uuid = line["uuid"]
            lines.append(line)
        return lines

    def _user_lines(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        content = message["content"]
        if isinstance(content, str):
            line = self._line("user", {"role": "user", "content": content}, self.last_uuid, permissionMode=self.mode_of())
            self.last_uuid = line["uuid"]
            return [line]
        lines: list[dict[str, Any]] = []
        others: list[dict[str, Any]] = []
        last_result: str | None = None
        for block in content:
            if block.get("type") != "tool_result":
                others.append(block)
                continue
            source = self._tool_lines.pop(block["tool_use_id"], None)
            line = self._line(
                "user", {"role": "user", "content": [block]}, source or last_result or self.last_uuid,
                toolUseResult=_result_text(block), sourceToolAssistantUUID=source,
            )
            last_result = line["uuid"]
            lines.append(line)
        if last_result is not None:
            self.last_uuid = last_result
        if others:
            # Text sent with the results (an interrupt note, a reminder) or a prompt made of blocks.
            harness = all(b.get("type") == "text" and _is_harness_text(b["text"]) for b in others) and last_result is not None
            extra: dict[str, Any] = {"isMeta": True} if harness else {"permissionMode": self.mode_of()}
            line = self._line("user", {"role": "user", "content": others}, self.last_uuid, **extra)
            self.last_uuid = line["uuid"]
            lines.append(line)
        return lines

    def compact_boundary(
        self,
        *,
        trigger: str,
        pre_tokens: int,
        post_tokens: int,
        duration_ms: int,
        summary: str,
        carried: list[dict[str, Any]],
        kept: list[dict[str, Any]] = (),  # type: ignore[assignment]
        kept_metas: list[dict[str, Any] | None] = (),  # type: ignore[assignment]
    ) -> None:
        """A compaction, as Claude Code writes it: a `system` / `compact_boundary` line that starts a new
        chain (parentUuid None; `logicalParentUuid` the line before), the summary as a `user` line with
        `isCompactSummary`, then (ours) what the compacted history carries as an `isMeta` line and the
        messages kept verbatim, written again so that a resume finds them after the boundary."""
        boundary = {
            "parentUuid": None, "logicalParentUuid": self.last_uuid, "isSidechain": False, "type": "system",
            "subtype": "compact_boundary", "content": "Conversation compacted", "isMeta": False,
            "timestamp": now_iso(), "uuid": str(uuid.uuid4()), "level": "info",
            "compactMetadata": {"trigger": trigger, "preTokens": pre_tokens, "postTokens": post_tokens, "durationMs": duration_ms},
            **self._marks, "userType": "external", "entrypoint": "tui-agent", "cwd": str(self.cwd), "sessionId": self.id,
            "version": VERSION, "gitBranch": self.git_branch,
        }
        line = self._line("user", {"role": "user", "content": summary}, boundary["uuid"], isVisibleInTranscriptOnly=True, isCompactSummary=True)
        lines = [boundary, line]
        if carried:
            lines.append(self._line("user", {"role": "user", "content": carried}, line["uuid"], isMeta=True))
        self._write(lines)
        self.last_uuid = lines[-1]["uuid"]
        self._tool_lines.clear()
        self.write_history(list(kept), list(kept_metas))

    def write_history(self, history: list[dict[str, Any]], metas: list[dict[str, Any] | None] | None = None) -> None:
        """Copy a conversation into this (new) file: a fork, or a session imported from Claude Code."""
        for i, message in enumerate(history):
            meta = metas[i] if metas and i < len(metas) else None
            self.append(message["role"], message=message, meta=meta or None)

    def start_over(self) -> None:
        """/clear: the next line starts a new chain (parentUuid None), so a resume finds only what follows."""
        self.last_uuid = None
        self._tool_lines.clear()

    def set_name(self, name: str) -> None:
        """Name the session (-n, /rename): Claude Code's `custom-title` line; the last one wins."""
        self._write([{"type": "custom-title", "customTitle": name, "sessionId": self.id}])

    # ----- reading back, closing -----------------------------------------------------------------
    def read(self) -> list[dict[str, Any]]:
        """Every line of the file as written (for tests and tools; resuming uses reader.py)."""
        if not self.transcript_path.exists():
            return []
        with self.transcript_path.open(encoding="utf-8") as fh:
            return [json.loads(line) for line in fh if line.strip()]

    def close(self) -> None:
        if self._root is not None:  # a side-chain: the file belongs to the main chain
            return
        if self._fh is not None and not self._fh.closed:
            self._fh.flush()
            os.fsync(self._fh.fileno())
            self._fh.close()
        self._fh = None  # a later line (a rename after the end) opens the file again


def _ends_with_newline(path: Path) -> bool:
    with path.open("rb") as fh:
        fh.seek(-1, os.SEEK_END)
        return fh.read(1) == b"\n"


HARNESS_PREFIXES = ("<system-reminder>", "[Request interrupted")


def _is_harness_text(text: str) -> bool:
    return text.startswith(HARNESS_PREFIXES)


def _result_text(block: dict[str, Any]) -> Any:
    content = block.get("content")
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if b.get("type") == "text")
    return content
