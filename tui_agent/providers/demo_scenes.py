"""The demo's short scenes for the interactive parts, chosen by a word in the prompt: "ask" (a question
with options), "plan" (a todo list and a plan to approve), "write" (a file change that /rewind or Esc Esc
can undo). Each is a handler step: `step` is how many replies this prompt has had so far."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from .scripted import Reply, Step, Text, ToolUse

if TYPE_CHECKING:
    from .demo import DemoScript

NOTE_FILE = "demo-note"
PLAN_FILE = "DEMO-PLAN"


def fresh_file(folder: Path, stem: str) -> Path:
    """A new file each time (`demo-note-2.md`): writing over an existing one would need a Read first."""
    n = 1
    while (folder / f"{stem}-{n}.md").exists():
        n += 1
    return folder / f"{stem}-{n}.md"
_OUTRO = "\n\n---\nThat was the **demo model**; the tools were real. Esc Esc (or /rewind) undoes a prompt's file changes."


def _last_result(messages: list[dict[str, Any]]) -> tuple[str, bool]:
    """The text of the newest tool_result of this prompt, and whether it was an error."""
    for message in reversed(messages):
        content = message.get("content")
        if isinstance(content, list):
            for block in content:
                if block.get("type") == "tool_result":
                    raw = block.get("content")
                    text = raw if isinstance(raw, str) else " ".join(b.get("text", "") for b in raw or [])
                    return text, bool(block.get("is_error"))
    return "", False


def ask(script: "DemoScript", step: int, prompt: str, messages: list[dict[str, Any]]) -> Step:
    if step == 0:
        question = {
            "question": "Which part of this folder should the demo look at first?",
            "header": "Focus",
            "multiSelect": False,
            "options": [
                {"label": "The README", "description": "What the project says about itself",
                 "preview": "# README\n\nThe first lines of the project's own description."},
                {"label": "The tests", "description": "How the project checks itself",
                 "preview": "tests/\n  test_*.py\n  conftest.py"},
                {"label": "Recent changes", "description": "What moved lately (git log)"},
            ],
        }
        return Reply([Text("Let me ask you first — *AskUserQuestion* opens a dialog:\n\n"),
                      ToolUse("AskUserQuestion", {"questions": [question]})], chunk=12, delay=script.pace)
    text, is_error = _last_result(messages)
    said = "You declined to answer, so I would ask again or pick a default." if is_error else f"Your answer reached me as:\n\n> {text}"
    return Reply([Text(said + _OUTRO)], chunk=16, delay=script.pace)


def plan(script: "DemoScript", step: int, prompt: str, messages: list[dict[str, Any]]) -> Step:
    steps = ["Read the project's README", "List the files the plan touches", "Write the plan down"]
    if step == 0:
        return Reply([Text("Planning first: *EnterPlanMode* asks whether to switch to plan mode (only read-only tools run there).\n\n"),
                      ToolUse("EnterPlanMode", {})], chunk=12, delay=script.pace)
    if step == 1:
        todos = [{"content": s, "status": "in_progress" if i == 0 else "pending",
                  "activeForm": s.replace("Read", "Reading").replace("List", "Listing").replace("Write", "Writing")}
                 for i, s in enumerate(steps)]
        body = "# Demo plan\n\n" + "\n".join(f"{i}. {s}" for i, s in enumerate(steps, 1)) + (
            "\n\nNothing is changed until you approve it.")
        return Reply([Text("A todo list, then *ExitPlanMode* asks you to approve the plan:\n\n"),
                      ToolUse("TodoWrite", {"todos": todos}),
                      ToolUse("ExitPlanMode", {"plan": body})], chunk=12, delay=script.pace)
    text, is_error = _last_result(messages)
    if step == 2 and not is_error:
        done = [{"content": s, "status": "completed", "activeForm": s} for s in steps]
        path = fresh_file(script.cwd, PLAN_FILE)
        return Reply([Text("Approved — writing it down:\n\n"),
                      ToolUse("Write", {"file_path": str(path), "content": "# Demo plan\n\n" + "\n".join(f"- {s}" for s in steps) + "\n"}),
                      ToolUse("TodoWrite", {"todos": done})], chunk=12, delay=script.pace)
    if step == 2:
        return Reply([Text(f"Not approved; I would keep planning. What came back:\n\n> {text}" + _OUTRO)], chunk=16, delay=script.pace)
    return Reply([Text("Done: the plan is written." + _OUTRO)], chunk=16, delay=script.pace)


def write(script: "DemoScript", step: int, prompt: str, messages: list[dict[str, Any]]) -> Step:
    if step == 0:
        path = fresh_file(script.cwd, NOTE_FILE)
        return Reply([Text(f"Writing {path.name} (a file change: it asks first, and a checkpoint lets you undo it):\n\n"),
                      ToolUse("Write", {"file_path": str(path), "content": f"# Demo note\n\n- {prompt.strip()[:80]}\n"})],
                     chunk=12, delay=script.pace)
    text, is_error = _last_result(messages)
    said = f"Not written: {text}" if is_error else "Written."
    return Reply([Text(said + _OUTRO)], chunk=16, delay=script.pace)


SCENES: dict[str, Callable[["DemoScript", int, str, list[dict[str, Any]]], Step]] = {"ask": ask, "plan": plan, "write": write}
