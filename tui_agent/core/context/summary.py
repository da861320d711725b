"""The words of a compaction: the instruction that asks for the summary, and the message that replaces
the conversation with it (Claude Code's shape: "This session is being continued from a previous
conversation that ran out of context...", the summary, where the full transcript is kept)."""

from __future__ import annotations

import re
from pathlib import Path

SUMMARY_INSTRUCTION = """CRITICAL: Respond with TEXT ONLY. Do NOT call any tools: you already have everything you need in the conversation above, and a tool call would be rejected and waste this turn.

Your task is to write a detailed summary of the conversation so far, so that the work can go on from it without the conversation itself. Pay close attention to the user's explicit requests and to your previous actions; keep the technical details, code patterns and decisions that continuing the work needs.

First think in an <analysis> block: go through the conversation in order and note, for each part, what the user asked for, how you went about it, the decisions you made, the files, code, commands and errors involved, and any feedback or constraint the user gave (keep constraints verbatim).

Then write the summary in a <summary> block, under these headings:

1. Primary Request and Intent: all of the user's explicit requests and intents, in detail.
2. Key Technical Concepts: the technologies, frameworks and ideas that matter.
3. Files and Code Sections: the files read, changed or created, why each matters, and the important code (full snippets for the most recent work).
4. Errors and fixes: each error met and how it was fixed, with the user's feedback on it.
5. Problem Solving: problems solved and troubleshooting still going on.
6. All user messages: every message the user wrote (not tool results), in order.
7. Pending Tasks: tasks you were asked to do and have not finished.
8. Current Work: precisely what was being worked on just before this summary request, with file names and code.
9. Optional Next Step: the next step, only if it follows directly from the user's most recent request; quote the recent conversation verbatim to show where you left off.

Answer with the <analysis> block followed by the <summary> block, in plain text."""

CUSTOM_HEADER = "Additional Instructions:"
TEXT_ONLY_REMINDER = "REMINDER: Do NOT call any tools. Answer in plain text only: an <analysis> block followed by a <summary> block."

CONTINUED = (
    "This session is being continued from a previous conversation that ran out of context. "
    "The summary below covers the earlier portion of the conversation."
)
RESUME_DIRECTLY = (
    "Continue the conversation from where it left off without asking the user any further questions. "
    "Resume directly — do not acknowledge the summary, do not recap what was happening, do not preface "
    "with \"I'll continue\" or similar. Pick up the last task as if the break never happened."
)


def instruction(custom: str = "") -> str:
    """The text block appended to the last user message of the summary request."""
    text = SUMMARY_INSTRUCTION
    if custom.strip():
        text += f"\n\n{CUSTOM_HEADER}\n{custom.strip()}"
    return text + "\n\n" + TEXT_ONLY_REMINDER


_ANALYSIS = re.compile(r"<analysis>.*?</analysis>", re.S)
_SUMMARY = re.compile(r"<summary>(.*?)(?:</summary>|$)", re.S)


def extract_summary(text: str) -> str:
    """The summary without its <analysis> scratchpad and tags (the whole answer when untagged)."""
    found = _SUMMARY.search(text)
    body = found.group(1) if found else _ANALYSIS.sub("", text)
    return body.strip()


def continuation_text(summary: str, transcript: Path, *, resume_directly: bool) -> str:
    """The first message of the compacted history (Claude Code's words)."""
    text = (
        f"{CONTINUED}\n\nSummary:\n{summary}\n\n"
        "If you need specific details from before compaction (like exact code snippets, error messages, or "
        f"content you generated), read the full transcript at: {transcript}"
    )
    return text + ("\n" + RESUME_DIRECTLY if resume_directly else "")
