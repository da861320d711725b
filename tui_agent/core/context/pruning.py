"""Pruning before summarising: over the lower threshold, the content of old, large tool results (older
than the last few turns) becomes a one-line stub naming the file under the session's `tool-results/`
where the full output is kept, so the model can Read it again.

All eligible results are pruned in one step, and only when it frees a worthwhile amount (a tenth of
the compaction threshold), so the prompt cache breaks once in a while rather than every turn. The step is a transcript line of ours (`context_pruned`,
with each stub) that a resume applies again, and a Notice on screen.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..results import content_text
from .tokens import block_tokens

if TYPE_CHECKING:
    from ..loop import Agent

KEEP_TURNS = 3
"""The results of the last this-many assistant turns are never pruned."""
MIN_RESULT_TOKENS = 500
MIN_SAVING_TOKENS = 5_000
PRUNED_PREFIX = "[Old tool result cleared to save context"
RECORD = "context_pruned"
_PERSISTED = re.compile(r"Full output saved to: (.+)")


def stub(chars: int, path: Path) -> str:
    return f"{PRUNED_PREFIX}: {chars:,} characters. The full output is kept in {path}; Read it if you need it again.]"


@dataclass(slots=True)
class Pruned:
    stubs: dict[str, str] = field(default_factory=dict)
    """tool_use_id -> the stub now sent in its place."""
    tokens_freed: int = 0


def _candidates(history: list[dict[str, Any]]) -> list[tuple[int, int, dict[str, Any]]]:
    turns = [i for i, m in enumerate(history) if m.get("role") == "assistant"]
    if len(turns) <= KEEP_TURNS:
        return []
    old_before = turns[-KEEP_TURNS]
    found = []
    for i in range(old_before):
        message = history[i]
        if message.get("role") != "user" or isinstance(message.get("content"), str):
            continue
        for j, block in enumerate(message["content"]):
            if block.get("type") != "tool_result":
                continue
            content = block.get("content", "")
            if not isinstance(content, str) and any(b.get("type") != "text" for b in content):
                continue  # an image stays (it is capped, and can't be Read back from a text file)
            if content_text(content).startswith(PRUNED_PREFIX) or block_tokens(block) < MIN_RESULT_TOKENS:
                continue
            found.append((i, j, block))
    return found


def prune_old_results(agent: "Agent", min_saving: int = MIN_SAVING_TOKENS) -> Pruned | None:
    """Prune every eligible result at once (None when it would free less than `min_saving` tokens: not
    worth breaking the prompt cache for)."""
    history = agent.history
    candidates = _candidates(history)
    if sum(block_tokens(b) for _, _, b in candidates) < max(MIN_SAVING_TOKENS, min_saving):
        return None
    pruned = Pruned()
    for i, j, block in candidates:
        text = content_text(block.get("content", ""))
        found = _PERSISTED.search(text)
        path = Path(found.group(1).strip()) if found and Path(found.group(1).strip()).exists() else agent.results.save(block["tool_use_id"], text)
        size = path.stat().st_size if found else len(text)
        new_text = stub(size, path)
        content = list(history[i]["content"])
        content[j] = {**block, "content": new_text}
        history[i] = {**history[i], "content": content}
        agent.results.refreeze(block["tool_use_id"], new_text)
        pruned.stubs[block["tool_use_id"]] = new_text
        pruned.tokens_freed += block_tokens(block) - block_tokens(content[j])
    agent.session.append("system", data={"subtype": RECORD, "stubs": pruned.stubs, "tokens_freed": pruned.tokens_freed})
    return pruned


def apply_records(lines: list[dict[str, Any]], results: dict[str, dict[str, Any]]) -> None:
    """On resume: the results a `context_pruned` line replaced are read back as their stubs."""
    for line in lines:
        data = line.get("data") if line.get("type") == "system" else None
        if isinstance(data, dict) and data.get("subtype") == RECORD and isinstance(data.get("stubs"), dict):
            for tool_use_id, text in data["stubs"].items():
                if tool_use_id in results and isinstance(text, str):
                    results[tool_use_id] = {**results[tool_use_id], "content": text}
