"""A session's transcript file, written as the conversation happens, in Claude Code's line shape.

`<project dir>/<session id>.jsonl` holds the lines, `<project dir>/<session id>/` the side files
(`tool-results/`). Write-ahead: a line is on disk before anything acts on what it records, so a process
killed at any moment leaves a record of everything that happened (a reader repairs the rest, see
reader.py):
- a user prompt: one `user` line (with the permission mode of the moment), written before the request;
- an assistant message: one line per content block, all sharing the response's `message.id`; each
  block is written the moment it is complete (`assistant_block`, fsync'd for a tool_use before its
  tool starts), and the message's end adds only what was not written yet (`stop_reason`, final usage);
- tool results: one `user` line per result, its parent the line of its tool_use, written (fsync'd) the
  moment the tool ends (`tool_result`); then one `user` line for any text sent with them (the
  interrupt note, a subdirectory's memory: `isMeta`).
A response that is dropped (a failed attempt retried, a cut response re-asked) leaves its lines as a
dead branch: the next line hangs from where the response began.
"""

from __future__ import annotations

import copy
import json
import os
import uuid
from pathlib import Path
from typing import IO, Any, Callable, Literal

from ...tools.os_names import json_line
from ...tools.private_files import open_private
from .chain import REWIND
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
        self.lock: Any = None
        """This process's hold on the session (lock.py's SessionLock), taken by open_session; close() frees it."""
        self.mode_of: Callable[[], str] = lambda: "default"
        """The permission mode now (the factory points it at the policy); recorded on each prompt line."""
        self._branch = branch
        self._tool_lines: dict[str, str] = {}
        self._fh: IO[str] | None = None
        self._marks: dict[str, Any] = {}
        """Fields every line of a side-chain carries (isSidechain, agentId, ...); empty for the main chain."""
        self._root: Session | None = None
        """The main chain's writer, for a side-chain: it owns the file."""
        self._ahead = _Ahead()
        """What the response being streamed has written ahead (blocks, results)."""
        self._copied_meta: dict[str, dict[str, Any]] = {}
        self.prompt_listeners: list[Callable[[str, dict[str, Any]], None]] = []
        """Told (uuid, message) once a new prompt's line is written (the checkpoint store, the SDK's replay);
        not for a side-chain's prompts, nor for lines copied by a fork or a compaction."""
        self._prompt_line: dict[str, Any] | None = None
        self._copying = False
        self._answering = False
        """An answer was written and its run has not ended: a user message now (a Stop hook's words to go
        on with) continues the run's prompt rather than starting one."""

    def sidechain(self, **marks: Any) -> "Session":
        """A subagent's writer: the same file, a parent chain of its own (its first line hangs from
        nothing, so the main chain is never broken by it), every line carrying `marks`."""
        child = copy.copy(self)
        child.last_uuid = None
        child._tool_lines = {}
        child._ahead = _Ahead()
        child._marks = {**self._marks, **marks}
        child._root = self._root or self
        return child

    # ----- writing -------------------------------------------------------------------------------
    @property
    def git_branch(self) -> str:
        if self._branch is None:
            self._branch = git_branch(self.cwd)
        return self._branch

    def _write(self, lines: list[dict[str, Any]], *, sync: bool = False) -> None:
        """Append `lines` in one write (a kill leaves whole lines; a torn last line is skipped on reading).
        `sync`: on the disk itself before returning (what a tool is about to act on, or did)."""
        if self._root is not None:
            self._root._write(lines, sync=sync)
            return
        if self._fh is None:
            self._fh = open_private(self.transcript_path, "a", encoding="utf-8")  # 0600: the whole conversation
            if self._fh.tell() > 0 and not _ends_with_newline(self.transcript_path):
                self._fh.write("\n")  # after a torn last line (a crash), start clean
        self._fh.write("".join(json_line(line) + "\n" for line in lines))  # a non-UTF-8 name as \\udcXX escapes (os_names)
        self._fh.flush()
        if sync:
            os.fdatasync(self._fh.fileno())

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
            self._answering = False
            self._write([{"type": RUN_LINE, "sessionId": self.id, "timestamp": now_iso(), "parentUuid": self.last_uuid, **(data or {}), **self._marks}])
        elif kind == "assistant" and message is not None:
            self._write(self._finish_assistant(message, meta or {}))
        elif kind == "user" and message is not None:
            self._write(self._user_lines(message))
            prompt, self._prompt_line = self._prompt_line, None
            if prompt is not None and self._root is None and not self._copying and not self._answering:
                for listener in list(self.prompt_listeners):
                    listener(prompt["uuid"], prompt["message"])
        elif kind == "system":
            # A fact of ours (a stop reason's handling): off the conversation chain, so readers skip it.
            self._write([{"type": "system", "subtype": "tui-agent", "uuid": str(uuid.uuid4()), "parentUuid": self.last_uuid,
                          "sessionId": self.id, "timestamp": now_iso(), "isMeta": True, "level": "info", "data": data or {}, **self._marks}])

    # ----- write-ahead -------------------------------------------------------------------------
    def assistant_block(self, block: dict[str, Any], meta: dict[str, Any]) -> None:
        """One complete content block of the response being streamed, written now (a tool_use is on the
        disk before its tool may start). The message's `append` later adds only what is missing."""
        ahead = self._ahead
        msg_id = meta.get("id") or ""
        if ahead.msg_id != msg_id or not ahead.active:
            ahead.begin(msg_id, self.last_uuid)
        lines = self._assistant_lines({"content": [block]}, {**meta, "stop_reason": None})
        ahead.blocks.append(copy.deepcopy(block))
        self._write(lines, sync=block.get("type") == "tool_use")

    def tool_result(self, block: dict[str, Any], info: dict[str, Any] | None = None) -> None:
        """A tool's result, written (fsync'd) the moment the tool ends, hanging from its tool_use's line.
        `info`: what the screen showed of the call (status, duration, summary, data), kept as our own
        `tuiAgentTool` field so a resume draws it the same."""
        tool_id = block.get("tool_use_id")
        source = self._tool_lines.get(tool_id) if isinstance(tool_id, str) else None
        if source is None:
            return  # not a tool_use of this chain (a dropped response's): the results message decides
        line = self._line("user", {"role": "user", "content": [block]}, source,
                          toolUseResult=_result_text(block), sourceToolAssistantUUID=source,
                          **({"tuiAgentTool": info} if info else {}))
        self._ahead.results[tool_id] = (block, line["uuid"])
        self._write([line], sync=True)

    def drop_response(self) -> None:
        """The response being streamed is not kept (retried, or nothing of it stands): what it wrote
        becomes a dead branch; the next line hangs from where it began."""
        ahead = self._ahead
        if ahead.active:
            self.last_uuid = ahead.mark
            for block in ahead.blocks:
                if block.get("type") == "tool_use":
                    self._tool_lines.pop(block.get("id"), None)
        self._ahead = _Ahead()

    def result_written(self, tool_use_id: str) -> dict[str, Any] | None:
        """The result already on disk for a tool_use of the current response (None: none yet)."""
        found = self._ahead.results.get(tool_use_id)
        return found[0] if found else None

    def _finish_assistant(self, message: dict[str, Any], meta: dict[str, Any]) -> list[dict[str, Any]]:
        """The whole message: the blocks not written ahead. If what was written ahead is not how the
        message begins (the stream was cut and its end differs), the whole message is written again as
        a new branch, and its results with it."""
        ahead = self._ahead
        content = message["content"]
        msg_id = meta.get("id") or ""
        if ahead.active and ahead.msg_id == msg_id and content[: len(ahead.blocks)] == ahead.blocks:
            rest = content[len(ahead.blocks):]
            ahead.active = False  # the message is whole; its written-ahead results stay usable
            # Every block written ahead: nothing to add (the lines keep stop_reason null, as Claude Code's
            # streamed lines did; the run line after says how the turn ended).
            return self._assistant_lines({"content": rest}, meta) if rest else []
        if ahead.active:
            self.drop_response()
        return self._assistant_lines(message, meta)

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
        self._answering = True
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
            self.last_uuid = self._prompt_line_is(line)["uuid"]
            return [line]
        lines: list[dict[str, Any]] = []
        others: list[dict[str, Any]] = []
        last_result: str | None = None
        for block in content:
            if block.get("type") != "tool_result":
                others.append(block)
                continue
            written = self._ahead.results.pop(block["tool_use_id"], None)
            if written is not None and written[0] == block:
                self._tool_lines.pop(block["tool_use_id"], None)
                last_result = written[1]  # on disk already, as the tool ended
                continue
            source = self._tool_lines.pop(block["tool_use_id"], None)
            line = self._line(
                "user", {"role": "user", "content": [block]}, source or last_result or self.last_uuid,
                toolUseResult=_result_text(block), sourceToolAssistantUUID=source,
                **({"tuiAgentTool": self._copied_meta[block["tool_use_id"]]} if block["tool_use_id"] in self._copied_meta else {}),
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
            if last_result is None and not all(b.get("type") == "text" and _is_harness_text(b["text"]) for b in others):
                self._prompt_line_is(line)  # a prompt made of blocks (not an interrupt note; never with results)
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
        self._ahead = _Ahead()
        self.write_history(list(kept), list(kept_metas))

    def write_history(self, history: list[dict[str, Any]], metas: list[dict[str, Any] | None] | None = None,
                      tool_meta: dict[str, dict[str, Any]] | None = None) -> None:
        """Copy a conversation into this (new) file: a fork, or a session imported from Claude Code.
        `tool_meta`: what the screen showed of each call (status, duration...), carried into the copy."""
        self._copied_meta = tool_meta or {}
        self._copying = True
        try:
            for i, message in enumerate(history):
                meta = metas[i] if metas and i < len(metas) else None
                self.append(message["role"], message=message, meta=meta or None)
        finally:
            self._copied_meta = {}
            self._copying = self._answering = False

    def _prompt_line_is(self, line: dict[str, Any]) -> dict[str, Any]:
        self._prompt_line = line
        return line

    def start_over(self) -> None:
        """/clear: the next line starts a new chain (parentUuid None), so a resume finds only what follows."""
        self.last_uuid = None
        self._answering = False
        self._tool_lines.clear()
        self._ahead = _Ahead()

    def rewind_to(self, parent: str | None, prompt_uuid: str) -> None:
        """Esc Esc / /rewind: the next line hangs from `parent` (the line before the prompt rewound), as Claude
        Code forks; the rewound lines stay in the file as a dead branch. The fact written says so to a resume
        that comes before any new message (chain.py)."""
        self.start_over()
        self.last_uuid = parent
        self.append("system", data={"subtype": REWIND, "prompt": prompt_uuid})

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
        if self.lock is not None:  # another process may carry the session on now
            self.lock.release()


class _Ahead:
    """The write-ahead state of one response: its id, where it began, its blocks and results on disk."""

    __slots__ = ("msg_id", "mark", "blocks", "results", "active")

    def __init__(self) -> None:
        self.msg_id = ""
        self.mark: str | None = None
        self.blocks: list[dict[str, Any]] = []
        self.results: dict[str, tuple[dict[str, Any], str]] = {}
        self.active = False

    def begin(self, msg_id: str, mark: str | None) -> None:
        self.msg_id, self.mark, self.blocks, self.results, self.active = msg_id, mark, [], {}, True


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
