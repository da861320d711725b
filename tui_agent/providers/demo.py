"""The demo model: what a user with no API key talks to, clearly labelled as a demo.

For any prompt it runs real tools on the current folder — read-only ones in parallel (a listing, a
search, a file read and a short shell command, each in its own lane), then one shell command that is
not read-only and so asks permission — and answers with what the tools actually found. A prompt with
"ask", "plan" or "write" in it tries a question, a plan to approve, or a file change to rewind instead
(demo_scenes.py).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from .scripted import Reply, ScriptedModel, Step, Text, ToolUse

DEMO_MODEL_NAME = "demo"
DEMO_LABEL = "demo model (no ANTHROPIC_API_KEY: scripted, running real tools)"
HOW_TO_USE_CLAUDE = "Set ANTHROPIC_API_KEY (and optionally ANTHROPIC_BASE_URL / ANTHROPIC_MODEL) to talk to Claude."
INTERRUPT_NOTE = "[Request interrupted by user]"

_COUNT_COMMAND = "find . -type f -not -path './.git/*' | head -500 | xargs -r wc -l 2>/dev/null | tail -1"


def _is_prompt(message: dict[str, Any]) -> bool:
    if message.get("role") != "user":
        return False
    content = message.get("content")
    if isinstance(content, str):
        return True
    return any(b.get("type") == "text" and b.get("text") != INTERRUPT_NOTE for b in content)


def _prompt_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    # Attachments (@-mentions) and recorded `!` commands come before the prompt in their tags: the prompt is the rest.
    return " ".join(
        b.get("text", "") for b in content
        if b.get("type") == "text" and b.get("text") != INTERRUPT_NOTE and not b.get("text", "").startswith(("<system-reminder>", "<local-command-caveat>", "<bash-"))
    )


def _results(messages: list[dict[str, Any]]) -> dict[str, tuple[str, bool]]:
    """tool name -> (result text, is_error) for this prompt's tool calls."""
    names: dict[str, str] = {}
    out: dict[str, tuple[str, bool]] = {}
    for msg in messages:
        content = msg.get("content")
        if isinstance(content, str):
            continue
        for block in content:
            if block.get("type") == "tool_use":
                names[block["id"]] = block["input"].get("description") or block["name"]
            elif block.get("type") == "tool_result":
                raw = block.get("content")
                text = raw if isinstance(raw, str) else " ".join(b.get("text", "") for b in raw or [])
                out[names.get(block["tool_use_id"], "?")] = (text, bool(block.get("is_error")))
    return out


class DemoScript:
    """A handler for `ScriptedModel`: the step is how many replies this prompt has had so far."""

    def __init__(self, cwd: Path, pace: float = 0.012) -> None:
        self.cwd = cwd
        self.pace = pace

    def __call__(self, body: dict[str, Any], index: int) -> Step:
        messages: list[dict[str, Any]] = body.get("messages", [])
        start = max((i for i, m in enumerate(messages) if _is_prompt(m)), default=0)
        step = sum(1 for m in messages[start:] if m.get("role") == "assistant")
        prompt = _prompt_text(messages[start]) if messages else ""
        words = set(re.findall(r"[a-z]+", prompt.lower()))
        for keyword, scene in SCENES.items():  # "ask me", "plan", "write": the interactive tools, tried for real
            if keyword in words:
                return scene(self, step, prompt, messages[start:])
        if step == 0:
            return self._look_around(prompt)
        if step == 1:
            return self._ask_to_count()
        return self._answer(prompt, _results(messages[start:]))

    def _look_around(self, prompt: str) -> Reply:
        readme = next((p for p in ("README.md", "README.rst", "README.txt", "README", "pyproject.toml", "package.json") if (self.cwd / p).is_file()), None)
        blocks: list[Any] = [
            Text(f"*Demo model* — I can't really read your request (\"{prompt[:80]}\"), but I can show you how "
                 "this agent works: four read-only tools, in parallel, each in its own lane.\n\n"),
            # The slow one first, so the others visibly run beside it.
            ToolUse("Bash", {"command": "sleep 2; ls -la | head -15", "description": "List this folder (slowly)"}),
            ToolUse("Glob", {"pattern": "**/*"}),
            ToolUse("Grep", {"pattern": "TODO|FIXME|XXX", "output_mode": "count"}),
        ]
        if readme:
            blocks.append(ToolUse("Read", {"file_path": str(self.cwd / readme), "limit": 40}))
        return Reply(blocks, chunk=12, delay=self.pace, block_delays={i: 0.3 for i in range(2, len(blocks))})

    def _ask_to_count(self) -> Reply:
        return Reply(
            [
                Text("Next, a shell command that is not on the read-only list, so it **asks your permission** first:\n\n"),
                ToolUse("Bash", {"command": _COUNT_COMMAND, "description": "Count lines in up to 500 files"}),
            ],
            chunk=12,
            delay=self.pace,
        )

    def _answer(self, prompt: str, results: dict[str, tuple[str, bool]]) -> Reply:
        parts = ["## What the demo found\n"]
        for name, (text, is_error) in results.items():
            parts.append(self._describe(name, text, is_error))
        parts.append(
            "\n---\nThat was the **demo model**: every tool above really ran on this folder, but the words are "
            f"scripted. {HOW_TO_USE_CLAUDE}\n"
        )
        return Reply([Text("\n".join(parts))], chunk=16, delay=self.pace)

    @staticmethod
    def _describe(name: str, text: str, is_error: bool) -> str:
        lines = [l for l in text.splitlines() if l.strip()]
        if name == "Glob":
            more = re.search(r"(\d+) more files", text)
            shown = sum(1 for l in lines if l.startswith("/"))
            total = shown + (int(more.group(1)) if more else 0)
            return f"- **Files**: {total} (Glob, newest first; first: `{lines[0] if lines else '-'}`)"
        if name == "Grep":
            counts = [int(m.group(1)) for l in lines if (m := re.search(r":(\d+)$", l))]
            if not counts:
                return "- **TODO/FIXME markers**: none"
            return f"- **TODO/FIXME markers**: {sum(counts)} in {len(counts)} file{'s' if len(counts) != 1 else ''}"
        if name == "Read":
            first = next((l.split('\t', 1)[-1] for l in lines if '\t' in l), "")
            return f"- **First line of the project file**: `{first.strip()[:100]}`"
        if name.startswith("List"):
            body = "\n".join(lines[:8])
            return f"- **Listing** (Bash):\n\n```text\n{body}\n```"
        if name.startswith("Count"):
            if is_error:
                return f"- **Line count**: not run — {lines[-1] if lines else 'denied'}"
            return f"- **Line count** (first 500 files): `{text.strip()}`"
        return f"- **{name}**: {lines[0] if lines else '(nothing)'}"


from .demo_scenes import SCENES  # noqa: E402 (they build on the helpers above)


def demo_model(cwd: Path, pace: float = 0.012) -> ScriptedModel:
    return ScriptedModel(DemoScript(cwd, pace), model=DEMO_MODEL_NAME)
