"""The app's start: the first frame first, everything else right after it.

The first frame needs Textual, the widgets on screen and what they show (the model, the demo marker,
the permission mode, the folder: read from the raw settings). Right after it: the garbage collector
comes back on (gc_pause.py), the parsed styles are saved for the next start (css_cache.py), the
settings are validated (pydantic), a new folder's trust question is asked (ui/screens/trust.py), the
session is chosen and the agent is built on the core's thread (building imports every tool and the shell
parser). Keys
typed meanwhile are in the prompt as soon as the app takes them; prompts sent before the agent is
ready wait in the queue.
"""

from __future__ import annotations

import asyncio
import sys
from concurrent.futures import Future
from functools import partial
from typing import TYPE_CHECKING, Any

from .. import gc_pause
from .context_view import report_context_size, show_thinking

if TYPE_CHECKING:
    from ..core.loop import Agent
    from .app import TuiAgentApp

SETTINGS_ERROR_EXIT = 2
FRAME_RATE = 120
"""Screen updates a second at most. Textual's 60 holds a key's echo up to 17 ms behind its update tick;
at 120 the echo p95 while a 200 KB answer streams went from 43–61 ms to 42 ms and the worst key from
89–99 ms to 68–76 ms (bench_tui, two runs each), for no more CPU: updates come when something changed,
not on every tick. TEXTUAL_FPS in the environment still decides when it is set."""


def use_frame_rate(rate: int = FRAME_RATE) -> None:
    """Let the screen update up to `rate` times a second, unless the person chose with TEXTUAL_FPS.
    Set in Textual's module rather than in os.environ, so the tools' processes do not inherit it."""
    import os

    import textual.screen

    if "TEXTUAL_FPS" not in os.environ:
        textual.screen.UPDATE_PERIOD = 1 / rate  # type: ignore[misc]  # read when a screen starts its timer
"""The exit status of settings that do not validate (what the command line's errors exit with)."""


def run_in_terminal(app: "TuiAgentApp") -> int:
    """Run the real app (not a test's) in the terminal; its exit status."""
    from .css_cache import CssCache, cache_file
    from .quitting import exit_if_signalled

    app.freeze_after_start = True
    use_frame_rate()
    app.css_cache = CssCache(cache_file())  # tests' apps leave the user's cache folder alone
    app.css_cache.load_into(app.stylesheet)
    app.run()
    exit_if_signalled(app)  # the terminal closed, or SIGTERM: the session is saved, nothing more to do
    report_start_error(app)
    say_how_to_resume(app)
    return app.return_code or 0


def after_first_frame(app: "TuiAgentApp") -> None:
    """The first frame is on screen: collect garbage again, keep the parsed styles, validate, build."""
    gc_pause.resume()
    if app.css_cache is not None:
        app.css_cache.save_from(app.stylesheet)  # only when this start parsed something new
    try:
        app.settings
    except ValueError as exc:  # pydantic's ValidationError: a value the flags or environment gave
        problems = str(exc).replace("\n", " ")
        app.start_error = f"tui-agent: error: {problems} (see tui-agent --help)"
        app.exit(SETTINGS_ERROR_EXIT, return_code=SETTINGS_ERROR_EXIT)
        return
    from .screens.trust import trust_first

    trust_first(app, then=build_agent)  # a new folder: nothing it configures runs before the user trusts it


def report_start_error(app: "TuiAgentApp") -> None:
    """After the app has left the terminal: say why it could not start, on stderr."""
    if app.start_error:
        sys.stderr.write(app.start_error + "\n")


def say_how_to_resume(app: "TuiAgentApp") -> None:
    """Claude Code's parting lines, once the app has left the terminal: the command that resumes this session
    (only for a session with a conversation to resume)."""
    agent = getattr(app, "agent", None)
    if app.start_error or agent is None or not agent.history:
        return
    sys.stdout.write(f"Resume this session with:\ntui-agent --resume {agent.session.id}\n")
    sys.stdout.flush()


def build_agent(app: "TuiAgentApp") -> None:
    """Open the session (or ask which, for a bare -r) and build its agent on the core's thread."""
    from ..core.events import Notice
    from ..factory import build_agent as build_on_core_thread
    from .session_view import choose_session, show_opened

    opened = choose_session(app)
    if opened is None:
        return  # the picker is open; it calls use_session with the choice
    app._opened = opened
    show_opened(app, opened)
    build = partial(
        build_on_core_thread,
        app.settings,
        emit=app.batcher,
        on_notice=lambda level, text: app.batcher(Notice.of(level, text)),
        scripted=app._scripted,
        ask=_asked_once_ready,  # someone answers here: tools that only ask (asks_user) are offered; agent_built sets the real one
        clock=app.clock,  # lane timers and event times on one clock (a fixed one in snapshots)
        opened=opened,
    )
    app.runner.build(build, then=_warm_up).add_done_callback(lambda built: app.call_later(agent_built, app, built))


async def _asked_once_ready(request: Any) -> Any:
    from ..core.permission_types import PermissionAnswer

    return PermissionAnswer("deny")  # never used: agent_built puts the app's asker in before any prompt runs


def agent_built(app: "TuiAgentApp", built: "Future[Agent]") -> None:
    from .agent_runner import BuildRefused

    failed = built.exception()
    if isinstance(failed, BuildRefused):  # e.g. sandbox.failIfUnavailable: refuse to start, as Claude Code does
        app.start_error = failed.message
        app.exit(failed.status, return_code=failed.status)  # the message goes to stderr once the screen is gone
        return
    if failed is not None:
        app.conversation.notice("error", f"The agent could not start: {failed}", now=True)
        return
    agent = app.agent = built.result()
    sandbox = agent.context.services.get("sandbox")
    if sandbox is not None:  # lanes and cells mark the commands that run inside it
        app.calls.sandbox_probe = sandbox.will_sandbox
    if app.freeze_after_start:
        from .warm_up import freeze_the_start

        app.runner.submit(freeze_the_start(agent.model))
    watch = getattr(agent.policy, "start_watching", None)
    if watch is not None:  # settings files reload live; the engine reports each change as a notice
        app.runner.submit(watch())
    from .permission_asker import PermissionAsker

    app.asker = PermissionAsker(app, agent.policy)
    agent.ask = app.runner.ask_on(asyncio.get_running_loop(), app.asker.ask)
    app.ready = True
    app.prompt.prompt_history.session_started(agent.session.id)  # prompts typed while it started
    state = app.status.state
    state.model, state.demo = agent.model.config.model, agent.demo
    show_thinking(app.status, agent)
    report_context_size(app)
    app.refresh_status()
    if agent.demo:
        from ..providers.demo import DEMO_LABEL, HOW_TO_USE_CLAUDE

        app.conversation.notice("warning", f"{DEMO_LABEL}\n{HOW_TO_USE_CLAUDE}", now=True)
    from .screens.mcp import start_mcp

    start_mcp(app)  # in the background: their tools join the next request once connected
    from .screens.memory_imports import ask_memory_imports

    ask_memory_imports(app, then=app.start_queued)  # outside CLAUDE.md imports asked about before the first prompt


def _warm_up() -> None:
    from .warm_up import warm_up_drawing

    warm_up_drawing()
