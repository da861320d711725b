"""The command-line flags programs pass when they drive tui-agent as Claude Code (claude-agent-sdk).

Every flag the SDK may pass is accepted, so no program fails on an unknown option. Flags for features
tui-agent lacks are named once on stderr and otherwise ignored. Only the standard library is imported:
this sits on the path to the first frame.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, Callable

# dest -> the flag as the user wrote it, for flags accepted but not (yet) acted on.
UNSUPPORTED: dict[str, str] = {
    "fallback_model": "--fallback-model",
    "include_hook_events": "--include-hook-events",
    "effort": "--effort",
    "betas": "--betas",
    "plugin_dirs": "--plugin-dir",
    "task_budget": "--task-budget",
    "resume_session_at": "--resume-session-at",
    "resume_drops_turn": "--resume-drops-turn",
    "session_mirror": "--session-mirror",
}

# Session flags helper 12's resume/continue/fork work defines; declared here only when the parser lacks them.
SESSION_FLAGS: tuple[tuple[tuple[str, ...], dict[str, object]], ...] = (
    (("-c", "--continue"), {"dest": "continue_session", "action": "store_true", "help": "continue the latest session in this folder"}),
    (("-r", "--resume"), {"dest": "resume", "nargs": "?", "const": "", "help": "resume the session with this id"}),
    (("--fork-session",), {"dest": "fork_session", "action": "store_true", "help": "with --resume/--continue: continue in a new session"}),
)


def add_sdk_flags(p: argparse.ArgumentParser) -> None:
    """The flags of Claude Code's programmatic mode that the base parser does not define."""
    p.add_argument("--input-format", choices=["text", "stream-json"], default="text",
                   help="stream-json: read JSON lines (prompts and control requests) from stdin, as claude-agent-sdk does")
    p.add_argument("--permission-prompt-tool", help="stdio: ask the driving program (can_use_tool control requests)")
    p.add_argument("--include-partial-messages", action="store_true", help="stream-json: also emit stream_event lines")
    p.add_argument("--json-schema", metavar="SCHEMA", help="a JSON Schema the final answer must conform to (the result's structured_output)")
    p.add_argument("--replay-user-messages", action="store_true",
                   help="stream-json: echo each prompt back with its uuid (what rewind_files takes)")
    p.add_argument("--system-prompt-file", type=Path, help="read the system prompt from this file")
    for flags, kwargs in SESSION_FLAGS:
        if not any(f in p._option_string_actions for f in flags):  # defined by the session work: keep theirs
            p.add_argument(*(f for f in flags if f not in p._option_string_actions), **kwargs)  # type: ignore[arg-type]
    p.add_argument("--thinking", choices=["enabled", "adaptive", "disabled"], help="extended thinking (as claude-agent-sdk passes it)")
    p.add_argument("--max-thinking-tokens", type=int, metavar="N", help="think with a budget of N tokens; 0 turns thinking off (also MAX_THINKING_TOKENS)")
    p.add_argument("--setting-sources", metavar="SOURCES",
                   help="which settings files are read: a comma-separated list of user, project, local (\"\" reads none)")
    p.add_argument("--thinking-display", choices=["summarized", "omitted"], help="how the API returns thinking text")
    g = p.add_argument_group("accepted for compatibility (no effect yet)")
    g.add_argument("--fallback-model")
    g.add_argument("--include-hook-events", action="store_true")
    g.add_argument("--effort")
    g.add_argument("--betas")
    g.add_argument("--plugin-dir", dest="plugin_dirs", action="append")
    g.add_argument("--task-budget")
    g.add_argument("--resume-session-at")
    g.add_argument("--resume-drops-turn")
    g.add_argument("--session-mirror", action="store_true")


def unsupported_flags(args: argparse.Namespace) -> list[str]:
    """The compatibility flags that were given, as written."""
    given = [flag for dest, flag in UNSUPPORTED.items() if getattr(args, dest, None) not in (None, False, [])]
    tool = getattr(args, "permission_prompt_tool", None)
    if tool not in (None, "stdio"):
        given.append(f"--permission-prompt-tool {tool} (only stdio is supported)")
    return given


def settings_flag(value: str | None, error: Callable[[str], object]) -> Path | dict[str, Any] | None:
    """`--settings` takes a file or a JSON object (as the SDK passes it). An object is returned parsed and
    stays in memory: nothing goes to a shared temp folder, where another user could plant or read it."""
    if value is None:
        return None
    text = value.strip()
    if not text.startswith("{"):
        path = Path(value)
        if not path.is_file():
            error(f"--settings {value}: no such file")
        return path
    try:
        obj = json.loads(text)
    except ValueError as exc:
        error(f"--settings: not a file, and not valid JSON ({exc})")
        return None
    if not isinstance(obj, dict):
        error("--settings: the JSON must be an object")
        return None
    return obj
