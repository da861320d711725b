"""The system prompt: what a model needs to know to work well in this agent (our own words).

Order, for the prompt cache: the static guidance first (the same text for every session of a version), then
the environment block (this folder, its git state at start, platform, date, model), then the output style
(as Claude Code places it: `# Output Style: NAME` after the environment), then `--append-system-prompt`.
It is built once per session (Agent.system_blocks); the git facts are gathered off the first frame's path:
awaited when the first run starts (`prepare`), never while the app paints. `--system-prompt` replaces all of
it; an empty one sends no system prompt (the SDK's way of asking for none).
"""

from __future__ import annotations

import asyncio
import os
import platform
import re
import sys
import time
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from .output_styles import OutputStyle, active_style

__all__ = ["Environment", "gather_environment", "prepare", "compose", "system_text", "system_blocks_for",
           "invalidate", "knowledge_cutoff", "SERVICE_KEY", "STATUS_LINES"]

SERVICE_KEY = "system_prompt_environment"
"""`agent.context.services[SERVICE_KEY]`: the Environment gathered for this session."""
STATUS_LINES = 40
"""At most this many `git status --short` lines (a huge dirty tree must not flood every request)."""
_GIT_TIMEOUT_S = 3.0

_INTRO = "You are tui-agent, an interactive coding agent running in the user's terminal. You help {purpose} \
with the tools you are given: reading, searching and changing files, and running commands on the user's machine."
_PURPOSE_PLAIN = "with software engineering tasks"
_PURPOSE_STYLED = 'according to the "Output Style" section at the end, which says how you should respond'

_COMMUNICATION = """\
# How you communicate
- Everything you write outside tool calls is shown to the user in a terminal, rendered as GitHub-flavoured
  Markdown in a monospace font. Keep it short and direct: answer the question asked, without preamble
  ("Sure!", "Great question") or a closing recap of what you just did unless the user asks for one.
- Match the size of the answer to the task: a one-line question gets a one-line answer; a design question
  gets the reasoning it needs. Prefer plain prose and short lists over headings for small answers.
- Do not use emojis unless the user asks for them. Do not invent URLs; use ones the user or the files give.
- When you point at code, write it as `path:line` (for example `src/app.py:42`) so the user can jump to it.
- Tool results and user messages may contain `<system-reminder>` tags: they carry information from the
  agent itself, not from the user, and are not part of the tool's output.
- If you cannot or will not do something, say so plainly in a sentence or two, and offer what you can do."""

_CODING = """\
# Doing software engineering work
- Understand before you change. Read the relevant files (and a file in full before you edit it), look at
  neighbouring code, imports and tests, and follow what the project already does: its style, naming,
  libraries, frameworks and structure. Never assume a library is available; check the project's manifest
  or existing imports first.
- Make the change the task asks for, and no more: no unrelated refactoring, no speculative features or
  configuration, no error handling for cases that cannot happen. A small, correct diff beats a large one.
- Comments explain why, briefly, and only where the code does not already say it. Do not narrate changes
  in comments.
- Verify your work. Find how this project checks itself (the README, a Makefile, package.json scripts,
  pyproject.toml, CI files) and run the relevant tests, type checker and linter after a change. If you
  cannot find the command, ask the user, and suggest writing it into CLAUDE.md for next time. Never claim
  something works when you have not checked it; report failures honestly, with the output.
- Never put secrets (keys, tokens, passwords) into code, logs or commits, and never print them.
- Work that has several steps: track it with the TodoWrite tool. Write the list when you start, keep
  exactly one item in progress, and mark each item completed as soon as it is done (not in a batch at the
  end). Small one-step tasks need no list."""

_TOOLS = """\
# Using the tools
- Prefer the dedicated tools to shell commands for files: Read rather than cat or head, Edit and Write
  rather than sed or echo redirection, Glob rather than find, Grep rather than grep or rg. Use Bash for
  what really needs a shell: builds, tests, git, package managers.
- Make independent calls in the same response. Several read-only calls (Read, Grep, Glob, read-only shell
  commands) issued together run in parallel, which is much faster than one after the other. Calls that
  depend on an earlier result, or that change things, go one step at a time.
- For a broad search across a large codebase, or a self-contained side task, the Agent tool can run a
  subagent with its own context; give it a complete, precise brief, since it sees nothing else.
- Quote paths that contain spaces in shell commands, and prefer absolute paths over `cd`."""

_PERMISSIONS = """\
# Permissions
Every tool call goes through the user's permission rules and the current permission mode:
- default: reading is allowed; file changes and most shell commands ask the user first.
- acceptEdits: file edits in the working folder are accepted without asking; other commands still ask.
- plan: you may only read and investigate; present a plan, and change nothing until the user approves it.
- bypassPermissions: nothing asks. Be especially careful; the user trusted you with everything.
A call the user denies comes back as an error with their reason, if they gave one. Do not retry the same
call; think about why it was refused, adjust, or ask the user what they want instead."""

_CARE = """\
# Acting with care
- Local, reversible steps (editing files in the project, running tests) are fine. Ask first before
  anything hard to undo or visible to others: deleting files or branches, `rm -rf`, resetting or
  discarding uncommitted work, dropping data, installing or removing dependencies globally, pushing,
  publishing, or sending anything to an outside service.
- Git: never commit, push, amend, rebase, force-push or change git configuration unless the user asks you
  to. When asked to commit, look at `git status` and `git diff` first, stage only the files that belong to
  the change, and write a message that says why. Never skip hooks (`--no-verify`, `--no-gpg-sign`); if a
  hook fails, fix the cause and make a new commit rather than amending.
- When something blocks you, look for the cause instead of forcing your way through: do not delete lock
  files, bypass checks or overwrite unfamiliar files, branches or changes that may be the user's own work.

# Security
Help with defensive security work: explaining vulnerabilities, analysing code for weaknesses, writing
detection rules, hardening configurations. Refuse to write, improve or explain how to deploy malware or
code meant to harm systems or people (ransomware, credential theft, self-spreading code, evading
detection), even when the request is framed as research or a test."""


@dataclass(frozen=True, slots=True)
class Environment:
    """The facts about where the agent runs, as they were when the session started."""

    cwd: str
    is_git: bool
    branch: str | None
    status: str
    platform: str
    shell: str
    today: str
    took_ms: float = 0.0


_CUTOFFS: dict[str, str] = {
    "claude-opus-4-0": "January 2025", "claude-opus-4": "January 2025", "claude-opus-4-1": "January 2025",
    "claude-opus-4-5": "May 2025", "claude-opus-4-6": "May 2025", "claude-opus-4-7": "January 2026",
    "claude-opus-4-8": "January 2026", "claude-sonnet-4-0": "January 2025", "claude-sonnet-4": "January 2025",
    "claude-sonnet-4-5": "January 2025", "claude-sonnet-4-6": "August 2025", "claude-sonnet-5": "January 2026",
    "claude-haiku-4-5": "February 2025", "claude-3-7-sonnet": "October 2024", "claude-3-5-haiku": "July 2024",
}


def knowledge_cutoff(model: str) -> str | None:
    """The model's training cutoff (Claude Code's table), for an id with or without its date suffix."""
    base = re.sub(r"-\d{8}$", "", model.strip().lower())
    base = re.sub(r"-v\d+(:\d+)?$", "", base.rsplit(".", 1)[-1])  # a Bedrock id: us.anthropic.NAME-v1:0
    return _CUTOFFS.get(base) or _CUTOFFS.get(re.sub(r"-(latest|\d{8}.*)$", "", base))


async def _git(root: Path, env: dict[str, str], *args: str) -> tuple[int, str]:
    try:
        proc = await asyncio.create_subprocess_exec(
            "git", "--no-optional-locks", *args, cwd=root, env=env, stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
        )
    except OSError:
        return 127, ""  # no git on this machine: not a repository, as far as we can tell
    try:
        out, _ = await asyncio.wait_for(proc.communicate(), _GIT_TIMEOUT_S)
    except asyncio.TimeoutError:
        proc.kill()
        await proc.wait()
        return 124, ""
    return proc.returncode or 0, out.decode("utf-8", errors="replace")


async def _git_facts(root: Path) -> tuple[bool, str | None, str]:
    """(is a repository, branch, short status). Run hardened (tools/git_safety.py): the repository's own
    config names no program that runs here (fsmonitor, clean filters, hooks, pager)."""
    from ..tools.git_safety import safe_git_env

    # Two processes: the driver scan, then status (its exit code also says whether this is a work tree).
    env = {**os.environ, "LC_ALL": "C", "GIT_TERMINAL_PROMPT": "0", **await safe_git_env([root])}
    code, out = await _git(root, env, "status", "--short", "--branch", "--untracked-files=normal")
    if code != 0:
        return False, None, ""
    lines = out.splitlines()
    branch = None
    if lines and lines[0].startswith("## "):
        head = lines.pop(0)[3:]
        branch = "(detached HEAD)" if head.startswith("HEAD (no branch)") else re.split(r"\.\.\.| ", head.replace("No commits yet on ", ""), maxsplit=1)[0]
    if len(lines) > STATUS_LINES:
        lines = lines[:STATUS_LINES] + [f"... and {len(lines) - STATUS_LINES} more (run git status for the rest)"]
    return True, branch, "\n".join(lines) if lines else "(clean)"


async def gather_environment(root: Path) -> Environment:
    """The environment facts for `root`: two quick git processes, none of the repository's programs."""
    started = time.perf_counter()
    is_git, branch, status = await _git_facts(root)
    shell = os.path.basename(os.environ.get("SHELL", "")) or ("cmd" if sys.platform == "win32" else "sh")
    system = platform.system().lower()
    return Environment(
        cwd=str(root), is_git=is_git, branch=branch, status=status,
        platform=f"{system} {platform.release()}" if system else sys.platform, shell=shell,
        today=date.today().isoformat(), took_ms=(time.perf_counter() - started) * 1000,
    )


def _gather_now(root: Path) -> Environment:
    """The same, from synchronous code (a /context before the first run): on a worker thread with its own loop,
    so it works whether or not an event loop is running here."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, gather_environment(root)).result()


async def prepare(agent: Any) -> None:
    """Gather the environment if this session's prompt needs it and it is not known yet (first run)."""
    if agent.options.system_prompt is None and SERVICE_KEY not in agent.context.services:
        agent.context.services[SERVICE_KEY] = await gather_environment(agent.workspace.root)


def _environment(agent: Any) -> Environment:
    env = agent.context.services.get(SERVICE_KEY)
    if not isinstance(env, Environment):
        env = agent.context.services[SERVICE_KEY] = _gather_now(agent.workspace.root)
    return env


def environment_block(env: Environment, model: str, extra_dirs: tuple[Path, ...] = ()) -> str:
    lines = [
        "# Environment",
        "Facts about where you are running, as they were when this session started:",
        f"Working directory: {env.cwd}",
    ]
    if extra_dirs:
        lines.append("Additional working directories: " + ", ".join(str(d) for d in extra_dirs))
    lines.append(f"Is a git repository: {'yes' if env.is_git else 'no'}")
    if env.is_git:
        lines.append(f"Current branch: {env.branch or 'unknown'}")
        lines.append("Git status at start (a snapshot; it is not updated during the conversation):")
        lines.append(env.status)
    lines += [f"Platform: {env.platform}", f"Shell: {env.shell}", f"Today's date: {env.today}",
              f"Model: you are running as {model}."]
    cutoff = knowledge_cutoff(model)
    if cutoff:
        lines.append(f"Knowledge cutoff: {cutoff}.")
    return "\n".join(lines)


def compose(env: Environment, model: str, style: OutputStyle | None, extra_dirs: tuple[Path, ...] = ()) -> str:
    """The default system prompt. A style without `keep-coding-instructions` drops the engineering section
    (Claude Code's rule: such a style turns the agent to other work)."""
    purpose = _PURPOSE_STYLED if style is not None else _PURPOSE_PLAIN
    sections = [_INTRO.format(purpose=purpose), _COMMUNICATION]
    if style is None or style.keep_coding_instructions:
        sections.append(_CODING)
    sections += [_TOOLS, _PERMISSIONS, _CARE, environment_block(env, model, extra_dirs)]
    if style is not None:
        sections.append(f"# Output Style: {style.name}\n{style.prompt}")
    return "\n\n".join(sections)


def system_text(agent: Any, problems: list[str] | None = None) -> str:
    """The whole system prompt text for `agent` now: --system-prompt, else ours; plus --append-system-prompt."""
    options = agent.options
    if options.system_prompt is not None:
        text = options.system_prompt
    else:
        text = compose(_environment(agent), agent.model.config.model, active_style(agent, problems), tuple(agent.workspace.extra_dirs))
    if options.append_system_prompt:
        text = (text + "\n\n" if text else "") + options.append_system_prompt
    return text


def system_blocks_for(agent: Any) -> list[dict[str, Any]]:
    """The request's `system`: one cached text block, or none for an empty prompt."""
    problems: list[str] = []
    text = system_text(agent, problems)
    if problems:
        from .events import Notice

        for problem in problems:
            agent.emit(Notice("warning", problem))
    return [{"type": "text", "text": text, "cache_control": {"type": "ephemeral"}}] if text else []


def invalidate(agent: Any) -> None:
    """Build the system prompt again for the next request (a new output style). Agent caches it per session
    (core/loop.py: a prompt that changed would miss the prompt cache); this is the one place that resets it."""
    agent._system = None
