"""The path a tool's output takes back to the model (DESIGN §1.10), in one place for every tool.

1. empty output → "(NAME completed with no output)";
2. an error over 10,000 characters keeps its first and last 5,000 around "... [N characters truncated] ...";
3. output over the tool's `max_result_size_chars` is saved to `<session>/tool-results/<id>.txt` and
   replaced by a <persisted-output> preview;
4. then the per-message budget over all results of one turn replaces the largest ones the same way.
Every keep/replace decision is frozen per tool_use_id for the session, so a later request sends the
very same bytes (prompt-cache stability).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..tools.os_names import for_model_deep
from ..tools.private_files import write_private

ERROR_LIMIT = 10_000
ERROR_KEEP = 5_000
PREVIEW_CHARS = 2_000
DEFAULT_MESSAGE_BUDGET = 200_000


def empty_output_text(tool_name: str) -> str:
    return f"({tool_name} completed with no output)"


def truncate_error(text: str) -> str:
    if len(text) <= ERROR_LIMIT:
        return text
    cut = len(text) - 2 * ERROR_KEEP
    return f"{text[:ERROR_KEEP]}\n\n... [{cut} characters truncated] ...\n\n{text[-ERROR_KEEP:]}"


def content_size(content: str | list[dict[str, Any]]) -> int:
    """Characters a result weighs in the budget: its text, and each image by its encoded (base64) size."""
    if isinstance(content, str):
        return len(content)
    return sum(_block_size(b) for b in content)


def _has_image(content: str | list[dict[str, Any]]) -> bool:
    return not isinstance(content, str) and any(b.get("type") == "image" for b in content)


def _block_size(block: dict[str, Any]) -> int:
    if block.get("type") == "text":
        return len(block.get("text", ""))
    if block.get("type") == "image":
        return len(block.get("source", {}).get("data", ""))
    return 0


def content_text(content: str | list[dict[str, Any]]) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content if b.get("type") == "text")


def _human_size(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f}KB"
    return f"{n / (1024 * 1024):.1f}MB"


def persisted_message(path: Path, size: int, preview: str) -> str:
    more = "\n..." if size > len(preview) else ""
    return (
        "<persisted-output>\n"
        f"Output too large ({_human_size(size)}). Full output saved to: {path}\n\n"
        f"Preview (first {_human_size(len(preview.encode('utf-8')))}):\n"
        f"{preview}{more}\n"
        "</persisted-output>"
    )


@dataclass(slots=True)
class ToolResultBlock:
    """A tool_result on its way back, with what the budget needs to know."""

    tool_use_id: str
    content: str | list[dict[str, Any]]
    is_error: bool
    # The file that already holds the whole output (a Bash spill), reused instead of writing again.
    full_output_path: Path | None = None

    def to_api(self) -> dict[str, Any]:
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": self.tool_use_id, "content": self.content}
        if self.is_error:
            block["is_error"] = True
        return block


class ResultStore:
    """Applies §1.10 and remembers each decision by tool_use_id for the session."""

    def __init__(self, session_dir: Path, message_budget: int = DEFAULT_MESSAGE_BUDGET) -> None:
        self.dir = session_dir / "tool-results"
        self._session_dir = session_dir
        self.message_budget = message_budget
        # tool_use_id -> the content the model sees (replacement or kept original), frozen once decided.
        self._frozen: dict[str, str | list[dict[str, Any]]] = {}

    def frozen(self, tool_use_id: str) -> str | list[dict[str, Any]] | None:
        return self._frozen.get(tool_use_id)

    def shape(
        self,
        tool_name: str,
        tool_use_id: str,
        content: str | list[dict[str, Any]],
        is_error: bool,
        max_result_size_chars: int,
        full_output_path: Path | None = None,
    ) -> ToolResultBlock:
        """Steps 1-3 for one result."""
        if tool_use_id in self._frozen:
            return ToolResultBlock(tool_use_id, self._frozen[tool_use_id], is_error)
        content = for_model_deep(content)  # a name that is not UTF-8 as `\xNN`: history, screen and API agree
        if isinstance(content, str):
            if not content.strip():
                content = empty_output_text(tool_name)
            elif is_error:
                content = truncate_error(content)
        size = content_size(content)
        # An image can't become a text file: it counts in the budget but is never persisted.
        if not is_error and size > max_result_size_chars and not _has_image(content):
            content = self._persist(tool_use_id, content_text(content), full_output_path)
            self._frozen[tool_use_id] = content
        return ToolResultBlock(tool_use_id, content, is_error, full_output_path)

    def apply_budget(self, blocks: list[ToolResultBlock]) -> list[ToolResultBlock]:
        """Step 4: over the turn's budget, persist the largest undecided results first; then freeze all."""
        total = sum(content_size(b.content) for b in blocks)
        if total > self.message_budget:
            undecided = sorted(
                (b for b in blocks if b.tool_use_id not in self._frozen and isinstance(b.content, str)),
                key=lambda b: content_size(b.content),
                reverse=True,
            )
            for block in undecided:
                if total <= self.message_budget:
                    break
                before = content_size(block.content)
                block.content = self._persist(block.tool_use_id, block.content, block.full_output_path)
                total += content_size(block.content) - before
        for block in blocks:
            self._frozen.setdefault(block.tool_use_id, block.content)
        return blocks

    def save(self, tool_use_id: str, text: str) -> Path:
        """The file under `tool-results/` holding `text` in full (written unless it is there already)."""
        path = self.dir / f"{_safe_name(tool_use_id)}.txt"
        if not path.exists():
            self._write(path, text)
        return path

    def keep_only(self, tool_use_ids: set[str]) -> None:
        """Forget the decisions about results no longer in the history (after a compaction)."""
        self._frozen = {k: v for k, v in self._frozen.items() if k in tool_use_ids}

    def refreeze(self, tool_use_id: str, content: str) -> None:
        """The model sees `content` for this result from now on (a pruning: one decided change)."""
        self._frozen[tool_use_id] = content

    def _persist(self, tool_use_id: str, text: str, existing: Path | None) -> str:
        if existing is not None and existing.exists():
            path, size = existing, existing.stat().st_size
            with existing.open("r", encoding="utf-8", errors="replace") as fh:
                preview = fh.read(PREVIEW_CHARS)
        else:
            path = self.dir / f"{_safe_name(tool_use_id)}.txt"
            self._write(path, text)
            size, preview = len(text), text[:PREVIEW_CHARS]
        return persisted_message(path, size, preview)

    def _write(self, path: Path, text: str) -> None:
        write_private(path, text, owned_from=self._session_dir)  # a tool's output: the owner's eyes only


def _safe_name(tool_use_id: str) -> str:
    keep = "".join(c if c.isalnum() or c in "-_" else "_" for c in tool_use_id)
    return keep or "result"
