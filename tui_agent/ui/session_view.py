"""The app's side of sessions: drawing a resumed conversation, switching sessions, and the memory commands.

The core opens sessions (core/session/resume.py); this module only shows them and asks the user. A
resumed conversation is drawn exactly as the live one was: the core replays it as the live events
(core/session/replay.py, its last `SHOWN_MESSAGES` messages) and they take the live events' path into the
transcript (Conversation.apply); tool lanes start empty.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..core.session import NoConversationFound, OpenedSession, open_session
from ..core.session.lock import SessionBusy
from ..core.session.resume import BusyPolicy
from ..factory import open_settings_session
from .widgets.tool_calls import ToolCalls

INIT_PROMPT = (
    "Please analyze this codebase and create a CLAUDE.md file in the working directory, which will be given "
    "to future instances of this agent as project instructions.\n\n"
    "What to add:\n"
    "1. The commands that will be commonly used: how to build, lint and run tests, including how to run a single test.\n"
    "2. The high-level architecture and code structure, the \"big picture\" that takes reading several files to understand.\n\n"
    "Usage notes:\n"
    "- If there's already a CLAUDE.md (or AGENTS.md), suggest improvements to it instead of starting over.\n"
    "- Do not repeat yourself, and do not list every component or file: they are easy to discover.\n"
    "- Do not make up information that is not in the repository.\n"
    "- Begin the file with:\n\n```\n# CLAUDE.md\n\nThis file gives guidance to coding agents working with code in this repository.\n```"
)


def show_opened(app: Any, opened: OpenedSession) -> None:
    """Draw a resumed session's past conversation (before the agent is built: its notices follow): its
    events replayed (core/session/replay.py) through the path the live events take, on calls of their own
    (the tool lanes start empty)."""
    from ..core.session.replay import NoteReplayed, PromptReplayed, replay

    conv = opened.conversation
    if conv is None:
        return
    conversation, calls, now = app.conversation, ToolCalls(), app.clock()
    for event in replay(conv):
        if isinstance(event, PromptReplayed):
            conversation.user_prompt(event.text)
        elif isinstance(event, NoteReplayed):
            conversation.notice(event.kind, event.text)
        else:
            conversation.apply(calls, event, now)
    app.transcript.flush()


def choose_session(app: Any) -> OpenedSession | None:
    """The session the app starts on: the one given, the flags' (-c, -r ID), or — for a bare -r — None
    while the picker asks (its answer comes back through app.use_session)."""
    if app._opened is not None:
        return app._opened
    settings = app.settings
    if settings.resume == "":
        from .screens.resume_picker import ResumePicker

        app.push_screen(ResumePicker(settings.cwd), lambda info: _picked(app, info))
        return None
    try:
        return open_settings_session(settings, busy="raise")
    except SessionBusy as busy:  # another window writes it: ask (Wait / Fork / Cancel), then use_session
        _ask_at_start(app, busy, lambda policy: open_settings_session(settings, busy=policy))
        return None
    except (NoConversationFound, ValueError) as exc:
        app.conversation.notice("error", f"{exc}; starting a new session.", now=True)
        return open_session(settings.cwd.resolve())


def _picked(app: Any, info: Any) -> None:
    if info is None:
        app.use_session(open_session(app.settings.cwd.resolve(), name=app.settings.session_name))
        return

    def open_with(policy: BusyPolicy) -> OpenedSession:
        return open_session(app.settings.cwd.resolve(), resume=info.session_id, fork=app.settings.fork_session,
                            name=app.settings.session_name, busy=policy)

    try:
        opened = open_with("raise")
    except SessionBusy as busy:
        _ask_at_start(app, busy, open_with)
        return
    except (NoConversationFound, ValueError) as exc:
        app.conversation.notice("error", f"{exc}; starting a new session.", now=True)
        opened = open_session(app.settings.cwd.resolve())
    app.use_session(opened)


def _ask_at_start(app: Any, busy: SessionBusy, open_with: Any) -> None:
    """The session to start on is busy: the answer opens it (Wait, Fork) or a new one (Cancel)."""
    from .screens.session_busy import ask_when_busy

    def new_session() -> None:
        app.conversation.notice("info", f"Session {busy.session_id} stays with the other window; this is a new session.", now=True)
        app.use_session(open_session(app.settings.cwd.resolve(), name=app.settings.session_name))

    ask_when_busy(app, busy, open_with, app.use_session, new_session)


async def pick_in_app(app: Any) -> None:
    """/resume without an argument: the picker, then carry on in the choice."""
    from .screens.resume_picker import ResumePicker

    if app.agent.running:
        app.notify("The agent is working: wait for it or press Esc first.", severity="warning")
        return

    async def chosen(info: Any) -> None:
        if info is not None:
            await switch_session(app, info.session_id)

    app.push_screen(ResumePicker(app.settings.cwd), chosen)


async def switch_session(app: Any, target: str) -> bool:
    """/resume in the app: close the current session and carry on in `target` (an id or a name)."""
    if app.agent.running:
        app.notify("The agent is working: wait for it or press Esc first.", severity="warning")
        return False
    try:
        opened = open_session(app.settings.cwd.resolve(), resume=target, busy="raise")
    except SessionBusy as busy:
        if busy.pid == os.getpid():  # this window's own session (flock conflicts within a process too)
            app.notify(f"Session {busy.session_id} is the one open here.", markup=False)
            return False
        from .screens.session_busy import STAY, ask_when_busy

        ask_when_busy(app, busy, lambda policy: open_session(app.settings.cwd.resolve(), resume=target, busy=policy),
                      lambda opened: _switch_to(app, opened), lambda: None, cancel_label=STAY)
        return False
    except (NoConversationFound, ValueError) as exc:
        app.notify(str(exc), severity="error", markup=False)
        return False
    await _switch_to(app, opened)
    return True


async def _switch_to(app: Any, opened: OpenedSession) -> None:
    await app.runner.close()  # the old session ends on the core's thread
    app.clear_conversation()
    app.use_session(opened)


def memory_listing(memory: Any) -> str:
    """/memory: the files read, in order, with their size in tokens (about 4 characters each)."""
    files = memory.files if memory is not None else []
    if not files:
        return "No memory files were read (CLAUDE.md, AGENTS.md, CLAUDE.local.md, .claude/rules/*.md).\n/memory project or /memory user opens one in $EDITOR."
    lines = ["Memory files read (in order):"]
    for i, f in enumerate(files, 1):
        via = f" (imported by {f.imported_by.name})" if f.imported_by else ""
        lines.append(f"  {i}. {f.path} · {f.kind.lower()} · ~{max(1, len(f.content) // 4):,} tokens{via}")
    lines.append("/memory N opens file N in $EDITOR; /memory project or /memory user opens that CLAUDE.md.")
    return "\n".join(lines)


def memory_target(cwd: Path, which: str) -> Path:
    """The CLAUDE.md a `#` line or `/memory project|user` goes to."""
    return Path.home() / ".claude" / "CLAUDE.md" if which == "user" else cwd / "CLAUDE.md"


def add_memory_line(path: Path, line: str) -> None:
    """Append one `- line` to a CLAUDE.md (made if missing), never touching what is there."""
    path.parent.mkdir(parents=True, exist_ok=True)
    existing = path.read_text(encoding="utf-8") if path.exists() else ""
    sep = "" if not existing or existing.endswith("\n") else "\n"
    with path.open("a", encoding="utf-8") as fh:
        fh.write(f"{sep}- {line.strip()}\n")


def remember(app: Any, line: str) -> None:
    """A prompt starting with `#`: ask which CLAUDE.md, then add the line there."""
    from .screens.memory_target import MemoryTargetScreen

    line = line.strip()
    if not line:
        return
    cwd = app.settings.cwd.resolve()

    def chosen(which: str | None) -> None:
        if which is None:
            return
        path = memory_target(cwd, which)
        try:
            add_memory_line(path, line)
        except OSError as exc:
            app.notify(f"Could not write {path}: {exc}", severity="error", markup=False)
            return
        app.show_notice(f"Remembered in {path}: {line}")

    app.push_screen(MemoryTargetScreen(line, memory_target(cwd, "project"), memory_target(cwd, "user")), chosen)


async def open_memory_file(app: Any, arg: str) -> None:
    """/memory [N|project|user]: list the files, or open one in $EDITOR (then read memory again)."""
    import os
    import shlex
    import subprocess

    memory = getattr(app.agent, "memory", None)
    if not arg:
        app.show_notice(memory_listing(memory))
        return
    cwd = app.settings.cwd.resolve()
    files = memory.files if memory is not None else []
    if arg in ("project", "user"):
        path = memory_target(cwd, arg)
    elif arg.isdigit() and 1 <= int(arg) <= len(files):
        path = files[int(arg) - 1].path
    else:
        app.notify(f"/memory {arg}: give a number from the list, or project, or user.", severity="warning", markup=False)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch(exist_ok=True)
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    command = [*shlex.split(editor), str(path)]
    try:
        with app.suspend():
            subprocess.run(command, check=False)
    except Exception:  # no terminal to hand over (tests, some hosts): run it anyway
        subprocess.run(command, check=False, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if memory is not None:
        memory.load()
    app.show_notice(f"Edited {path}; memory is read again from the next request on.")
