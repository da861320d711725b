"""Rewind in the app, as Claude Code's Esc Esc and /rewind: pick one of this session's prompts, then restore
the code (the checkpoint store, core/checkpoints), the conversation (a fork, core/session/rewind.py), or both.

- Esc twice quickly on an empty prompt while nothing runs opens the picker; while a run is in flight Esc
  interrupts it and never arms the rewind (the app's own Esc comes first, see `escape_pressed`).
- Restoring code rewrites exactly the files tools changed from that prompt on and says which; a file changed
  by hand since the agent wrote it is overwritten only after a confirmation that lists them.
- Restoring the conversation redraws what remains (the path a resumed conversation is drawn by) and puts the
  prompt's text back in the input box; the context meter follows.
The store and the transcript are written on the core's thread, as every other write of the session is.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from typing import Any, Callable

from ..core.checkpoints import CheckpointStore, RestoreReport, checkpoints_of
from ..core.session.resume import OpenedSession
from ..core.session.rewind import CannotRewind, PromptPoint, rewind_conversation, session_points
from .screens.rewind import Action, ConfirmOverwrite, RewindEntry, RewindOptions, RewindPicker, first_line, shown_path

DOUBLE_ESC_S = 0.8
"""The second Esc within this many seconds of the first opens the picker."""
HINT = "esc again to rewind"
BUSY = "Rewind is not possible while the agent is working: press Esc to stop it first."

_last_escape: "weakref.WeakKeyDictionary[Any, float]" = weakref.WeakKeyDictionary()
wall_clock: Callable[[], float] = time.time
"""Now, for "how long ago" (transcript timestamps are wall-clock times)."""


def escape_pressed(app: Any) -> bool:
    """The app's Esc, once no layer took it: True when it was the second of an Esc Esc on an empty, idle
    prompt (the picker opens). A press that interrupts a run, or with text in the prompt, arms nothing."""
    now = time.monotonic()
    idle = app.ready and not app.running and not app.queued_prompts and not app.prompt.text.strip()
    last = _last_escape.pop(app, None)
    if not idle:
        return False
    if last is not None and now - last <= DOUBLE_ESC_S:
        _show_hint(app, "")
        open_rewind(app)
        return True
    _last_escape[app] = now
    _show_hint(app, HINT)
    app.set_timer(DOUBLE_ESC_S, lambda: _show_hint(app, "") if app.status.state.hint == HINT else None)
    return False


def _show_hint(app: Any, text: str) -> None:
    app.status.state.hint = text
    app.status.refresh()


def _store(app: Any) -> CheckpointStore | None:
    return checkpoints_of(app.agent.context.services)


def checkpointing(store: CheckpointStore | None) -> bool:
    return store is not None and store.enabled()


def gather(app: Any) -> list[RewindEntry]:
    """The picker's rows, newest first: each prompt with what its tools changed, from the store."""
    points = session_points(app.agent)
    store = _store(app)
    entries: list[RewindEntry] = []
    anchor: str | None = None
    for point in reversed(points):  # a prompt without a checkpoint restores from the next one kept after it
        own = store is not None and store.has(point.uuid)
        if own:
            anchor = point.uuid
        changes = tuple(store.changes_in(point.uuid)) if own and store is not None else None
        entries.append(RewindEntry(point, changes, anchor))
    return entries


def open_rewind(app: Any) -> None:
    """/rewind, Esc Esc: the picker (or why not now)."""
    if not app.ready:
        app.notify("The session is still starting.", severity="warning")
        return
    if app.running or app.agent.running:
        app.notify(BUSY, severity="warning", markup=False)
        return
    store = _store(app)
    picker = RewindPicker(gather(app), now=wall_clock(), cwd=app.agent.workspace.root, checkpointing=checkpointing(store))
    app.push_screen(picker, lambda entry: _chosen(app, entry))


def _chosen(app: Any, entry: RewindEntry | None) -> None:
    if entry is None:
        return
    store = _store(app)
    since = store.changes_since(entry.anchor) if store is not None and entry.anchor is not None else []
    options = RewindOptions(entry, since, now=wall_clock(), cwd=app.agent.workspace.root, checkpointing=checkpointing(store))

    def picked(action: Action | None) -> None:
        if action is None:  # Esc: back to the list
            open_rewind(app)
        elif action != "cancel":
            app.run_worker(restore(app, entry, action), exit_on_error=False)

    app.push_screen(options, picked)


async def _on_core(app: Any, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """`fn` on the core's thread (where the session's files are written), awaited here."""

    async def call() -> Any:
        return fn(*args, **kwargs)

    return await asyncio.wrap_future(app.runner.submit(call()))


async def restore(app: Any, entry: RewindEntry, action: Action) -> None:
    """Do what was chosen: the code first (asking about hand-edited files), then the conversation."""
    try:
        await _restore(app, entry, action)
    except Exception as exc:  # said, never lost in a worker nobody watches
        app.conversation.notice("error", f"Rewind failed: {type(exc).__name__}: {exc}", now=True)


async def _restore(app: Any, entry: RewindEntry, action: Action) -> None:
    if app.running or app.agent.running:
        app.notify(BUSY, severity="warning", markup=False)
        return
    point = entry.point
    report: RestoreReport | None = None
    store = _store(app)
    if action in ("both", "code") and store is not None and entry.anchor is not None:
        overwrite = True
        edited = store.hand_edited(entry.anchor)
        if edited:
            answer = await app.push_screen_wait(ConfirmOverwrite(edited, app.agent.workspace.root))
            if answer is None:
                app.show_notice("Rewind cancelled: nothing was restored.")
                return
            overwrite = answer
        try:
            report = await _on_core(app, store.restore, entry.anchor, overwrite_edited=overwrite)
        except OSError as exc:
            app.conversation.notice("error", f"Restoring the code failed: {exc.strerror or exc} ({exc.filename or ''}).", now=True)
            return
    if action in ("both", "conversation"):
        try:
            conv = await _on_core(app, rewind_conversation, app.agent, point)
        except CannotRewind as exc:
            app.conversation.notice("warning", str(exc), now=True)
        else:
            _redraw(app, conv, point)
    if report is not None:
        app.show_notice(code_notice(report, point, app.agent.workspace.root))


def _redraw(app: Any, conv: Any, point: PromptPoint) -> None:
    """The conversation view shows what remains; the prompt's words are back in the input box."""
    from .session_view import show_opened

    app.clear_conversation()  # the pane, the lanes, and the context meter (recomputed on the core's thread)
    show_opened(app, OpenedSession(app.agent.session, conv))
    app.show_notice(f"Rewound the conversation to before “{first_line(point.text)}”: the prompt is back in the "
                    "input box to edit and send.")
    app.prompt.text = point.text
    app.prompt.move_cursor(app.prompt.document.end)
    app.prompt.focus()


def code_notice(report: RestoreReport, point: PromptPoint, cwd: Any) -> str:
    """Which files the restore rewrote, removed or kept."""
    rows = [f"  {shown_path(p, cwd)}  restored" for p in report.restored]
    rows += [f"  {shown_path(p, cwd)}  removed (created since)" for p in report.removed]
    rows += [f"  {shown_path(p, cwd)}  kept: changed by hand since" for p in report.kept]
    where = f"before “{first_line(point.text)}”"
    if not report.restored and not report.removed:
        return f"The code was already as it was {where}: nothing to restore." + ("\n" + "\n".join(rows) if rows else "")
    return f"Restored the code to {where}:\n" + "\n".join(rows)
