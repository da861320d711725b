"""The core on a thread of its own: the agent's loop, tools and SSE parsing never hold up a keystroke.

The app talks to the core only through this object. It owns a daemon thread running its own asyncio
loop; the `Agent` is built there (building imports every tool) and its coroutines run there. Events
come back through the emit callback (the app's `EventBatcher`, which posts thread-safely to Textual's
queue). Commands go the other way thread-safely: `abort`, `cancel_tool`, `run`, `call`. Permission
asks are answered on the UI loop: `ask_on` wraps the app's ask handler so the core awaits it from its
own loop (cancelling the core's wait withdraws the ask on the UI side).
"""

from __future__ import annotations

import asyncio
import sys
import threading
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Coroutine, TypeVar

from ..core.events import LoopEnded
from ..core.permission_types import AskHandler, PermissionAnswer, PermissionRequest

if TYPE_CHECKING:  # built on the core's thread; the app's first frame does not wait for its import
    from ..core.loop import Agent

T = TypeVar("T")

SWITCH_INTERVAL = 0.02
"""Seconds a thread may hold the GIL while another waits for it (Python's default: 0.005). While an
answer streams, the core's thread wakes ~1,000 times a second for a few hundred microseconds each; at
the default it takes the GIL from the UI thread in the middle of drawing a frame and every step of a
key's echo (input thread, UI thread, output thread) waits for it again. Measured with
bench/bench_tui.py: echo p95 ~70 -> ~57 ms and CPU -4 points at 0.02; 0.001 made both worse."""


class BuildRefused(Exception):
    """Building the agent asked to end the program (a SystemExit, e.g. the sandbox is required and cannot
    start: core/sandbox/install.py `SandboxUnavailable`). `message` says why; `status` is the exit status."""

    def __init__(self, exit: SystemExit) -> None:
        code = exit.code
        self.status = code if isinstance(code, int) else 1
        self.message = "" if code is None or isinstance(code, int) else str(code)
        super().__init__(self.message or f"exit status {self.status}")


class _RunTicket:
    """One submitted run; an abort that arrives before the run has its abort signal is kept here."""

    __slots__ = ("abort_requested",)

    def __init__(self) -> None:
        self.abort_requested = False


def _quietly(work: Callable[[], None]) -> None:
    try:
        work()
    except Exception:
        pass  # warming up is an optimisation: a failure only means the work is done later


class AgentRunner:
    """A thread with an asyncio loop that runs one Agent. Every method may be called from the UI thread."""

    def __init__(self, name: str = "tui-agent-core") -> None:
        sys.setswitchinterval(max(sys.getswitchinterval(), SWITCH_INTERVAL))
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self._thread.start()
        self._ticket: _RunTicket | None = None
        self._stopped = False
        self.agent: Agent | None = None

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_forever()
        finally:
            self._loop.close()

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        return self._loop

    # ----- generic -------------------------------------------------------------------------------
    def submit(self, coro: Coroutine[Any, Any, T]) -> Future[T]:
        """Run `coro` on the core's loop; the returned future is safe to wait for from any thread."""
        return asyncio.run_coroutine_threadsafe(coro, self._loop)

    def call(self, fn: Callable[..., Any], *args: Any) -> None:
        """Call `fn(*args)` on the core's loop, soon (it wakes at once)."""
        if not self._stopped:
            self._loop.call_soon_threadsafe(fn, *args)

    # ----- the agent ---------------------------------------------------------------------------
    def build(self, factory: Callable[[], Agent], then: Callable[[], None] | None = None) -> Future[Agent]:
        """Build the agent on the core's thread; `then` runs there next (idle work: warming caches)."""

        async def build() -> Agent:
            try:
                self.agent = factory()
            except SystemExit as exc:  # raised here it would end the core's thread and the future never settle
                raise BuildRefused(exc) from None
            if then is not None:
                self._loop.call_soon(_quietly, then)
            return self.agent

        return self.submit(build())

    def run(self, prompt: str) -> Future[LoopEnded]:
        """Start a run; abort() from now on stops it, even before it has really begun."""
        assert self.agent is not None, "build() first"
        ticket = self._ticket = _RunTicket()
        return self.submit(self._run(self.agent, prompt, ticket))

    def compact(self, instructions: str) -> Future[Any]:
        """/compact: summarise the conversation; abort() stops it (the history stays as it was)."""
        assert self.agent is not None, "build() first"
        ticket = self._ticket = _RunTicket()
        return self.submit(self._started(self.agent, self.agent.compact(instructions), ticket))

    @staticmethod
    async def _started(agent: Agent, work: Coroutine[Any, Any, T], ticket: _RunTicket) -> T:
        task = asyncio.ensure_future(work)
        await asyncio.sleep(0)  # the work's first step has made its abort signal
        if ticket.abort_requested:
            agent.abort()
        return await task

    @staticmethod
    async def _run(agent: Agent, prompt: str, ticket: _RunTicket) -> LoopEnded:
        from ..core.mentions import run_prompt  # the prompt's @-mentions attached first

        task = asyncio.ensure_future(run_prompt(agent, prompt))
        await asyncio.sleep(0)  # the run's first step has made its abort signal
        if ticket.abort_requested:
            agent.abort()
        return await task

    def abort(self) -> None:
        if self._ticket is not None:
            self._ticket.abort_requested = True
        if self.agent is not None:
            self.call(self.agent.abort)

    def cancel_tool(self, tool_use_id: str) -> None:
        if self.agent is not None:
            self.call(self.agent.cancel_tool, tool_use_id)

    def ask_on(self, ui_loop: asyncio.AbstractEventLoop, ask: AskHandler) -> AskHandler:
        """`ask` (a coroutine of the UI loop) as an ask handler the core can await from its own loop."""

        async def ask_from_core(request: PermissionRequest) -> PermissionAnswer:
            waiting: Awaitable[PermissionAnswer] = ask(request)
            if asyncio.get_running_loop() is ui_loop:  # a test driving the agent on the UI loop itself
                return await waiting
            return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(waiting, ui_loop))  # type: ignore[arg-type]

        return ask_from_core

    # ----- the end ------------------------------------------------------------------------------
    async def close(self) -> None:
        """End the agent's session (on its loop) and wait for that from the caller's loop."""
        if self.agent is not None and not self._stopped:
            await asyncio.wrap_future(self.submit(self.agent.close()))

    async def shutdown(self, grace: float) -> None:
        """Cancel whatever still runs on the core's loop (tools kill their processes as they are
        cancelled), wait up to `grace` seconds for that, then stop the thread."""
        if self._stopped:
            return

        async def cancel_everything() -> None:
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            if tasks:
                await asyncio.wait(tasks, timeout=grace)

        try:
            await asyncio.wait_for(asyncio.wrap_future(self.submit(cancel_everything())), grace + 1)
        except Exception:
            pass  # a stuck task stays behind; atexit still kills leftover shells
        if self.agent is not None:
            from ..tools.file_watch import close_file_watcher

            # The file watcher's thread is not the core loop's: it polls until told, and an app in a test
            # process (or an embedded one) outlives this.
            close_file_watcher(self.agent.context)
        self._stopped = True
        self._loop.call_soon_threadsafe(self._loop.stop)
        await asyncio.get_running_loop().run_in_executor(None, self._thread.join, grace)
