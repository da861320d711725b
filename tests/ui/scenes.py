"""Reproducible scenes of the app (a fixed folder, a fixed clock, fixed token counts), shared by the
snapshot tests and screenshots/make_screenshots.py."""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Awaitable, Callable

from textual.pilot import Pilot

from tui_agent.providers.scripted import Conversations, Reply, Text, Thinking, ToolUse
from tui_agent.ui.app import TuiAgentApp

from tests.ui.app_support import FakeClock, build, lanes_text, until, until_idle
from tests.ui.app_support import type_keys

SCENE_ROOT = Path("/tmp/tui-agent-scenes/project")

CODE_ANSWER = """## Where `main` is

`app.py` defines it; it returns a constant:

```python
def main() -> int:
    \"\"\"The entry point.\"\"\"
    return 2
```

I changed the return value from **1** to **2**:

1. read the file
2. edited one line
"""


@dataclass
class Scene:
    app: TuiAgentApp
    clock: FakeClock
    run_before: Callable[[Pilot[Any]], Awaitable[None]]

    def __post_init__(self) -> None:
        # The prompt's cursor blinks on a 0.5 s real-time timer restarted by each key: whether a frame
        # shows it would depend on how long the scene took to reach that frame. Keep it steadily on.
        setup = self.run_before

        async def run_before(pilot: Pilot[Any]) -> None:
            self.app.prompt.cursor_blink = False
            await setup(pilot)

        self.run_before = run_before


async def settle(pilot: Pilot[Any], app: TuiAgentApp) -> None:
    """Draw everything now instead of on the app's timers, so a frame never depends on how fast the
    machine reached it: the streamed text, the lanes at the current (fixed) clock, the status line."""
    app.transcript.flush()
    app.lanes.sync()
    app.status.refresh()
    await pilot.pause()


def fresh_project() -> Path:
    """The scenes' folder, emptied (the caller holds the `scene_lock` fixture). A process of the scene before
    may still be writing in it as it ends: the folder is emptied again until it stays empty."""
    for _ in range(300):
        shutil.rmtree(SCENE_ROOT, ignore_errors=True)
        try:
            SCENE_ROOT.mkdir(parents=True)
            break
        except FileExistsError:
            time.sleep(0.01)
    else:
        raise AssertionError(f"{SCENE_ROOT} stays non-empty: {sorted(str(p) for p in SCENE_ROOT.rglob('*'))[:20]}")
    (SCENE_ROOT / "README.md").write_text("# Demo project\nhello\n")
    (SCENE_ROOT / "app.py").write_text('def main() -> int:\n    """The entry point."""\n    return 1\n')
    return SCENE_ROOT


def parallel_tools() -> Scene:
    """Three shell commands running at once, a Read finished before them."""
    project = fresh_project()
    clock = FakeClock()
    script = [
        Reply([Text("Checking three things in parallel.\n\n"),
               ToolUse("Read", {"file_path": str(project / "README.md")}),
               ToolUse("Bash", {"command": "echo compiling; sleep 300", "timeout": 60000}),
               ToolUse("Bash", {"command": "echo 'collected 42 items'; sleep 300"}),
               ToolUse("Bash", {"command": "sleep 300"})], input_tokens=2400, output_tokens=180),
        Reply([Text("done")], input_tokens=10, output_tokens=1),
    ]
    app, _ = build(project, script, clock=clock, permission_mode="bypassPermissions")

    async def run_before(pilot: Pilot[Any]) -> None:
        await type_keys(pilot, *"build, test and wait", "enter")
        await until(pilot, lambda: sum(c.phase == "running" for c in app.calls.calls.values()) == 3
                    and sum(bool(c.last_line) for c in app.calls.calls.values()) == 2)
        clock.advance(4.2)
        await settle(pilot, app)
        await until(pilot, lambda: lanes_text(app).count("4.2s") == 3)

    return Scene(app, clock, run_before)


def interrupted_run() -> Scene:
    """ESC pressed while a command ran and text streamed: the lane is cancelled, the pane says Interrupted."""
    project = fresh_project()
    clock = FakeClock()
    script = [Reply([Text("Let me run the slow test suite first.\n\n"), ToolUse("Bash", {"command": "sleep 300; echo never"})],
                    input_tokens=1200, output_tokens=40)]
    app, _ = build(project, script, clock=clock, permission_mode="bypassPermissions")

    async def run_before(pilot: Pilot[Any]) -> None:
        await type_keys(pilot, *"run the tests", "enter")
        await until(pilot, lambda: any(c.phase == "running" for c in app.calls.calls.values()))
        clock.advance(2.5)
        await pilot.press("escape")
        await until_idle(pilot, app)
        await settle(pilot, app)

    return Scene(app, clock, run_before)


def finished_answer() -> Scene:
    """A finished run: thinking (collapsed), a Read, an Edit with its diff, and a Markdown answer with code."""
    project = fresh_project()
    clock = FakeClock()
    target = str(project / "app.py")
    script = [
        Reply([Thinking("The user wants main to return 2. " * 4), ToolUse("Read", {"file_path": target})],
              input_tokens=3000, output_tokens=60),
        Reply([ToolUse("Edit", {"file_path": target, "old_string": "return 1", "new_string": "return 2"})],
              input_tokens=3200, output_tokens=50),
        Reply([Text(CODE_ANSWER)], input_tokens=3400, output_tokens=120),
    ]
    app, _ = build(project, script, clock=clock, permission_mode="acceptEdits")

    async def run_before(pilot: Pilot[Any]) -> None:
        await type_keys(pilot, *"make main return 2", "enter")
        await until_idle(pilot, app)
        await settle(pilot, app)

    return Scene(app, clock, run_before)


def subagents_running() -> Scene:
    """Two subagents side by side: each a lane group (header with type, task, time, tokens) with its own tools."""
    project = fresh_project()
    clock = FakeClock()
    routes = Conversations({
        "MAIN": [Reply([Text("I'll hand this to two agents.\n\n"),
                        ToolUse("Agent", {"description": "Find the entry point", "prompt": "TASKA: find where main is defined"}, id="toolu_a"),
                        ToolUse("Agent", {"description": "Run the tests", "prompt": "TASKB: run the tests", "subagent_type": "Explore"}, id="toolu_b")],
                       input_tokens=2400, output_tokens=160)],
        "TASKA": [Reply([ToolUse("Grep", {"pattern": "def main"}), ToolUse("Bash", {"command": "git log --oneline -5; sleep 300"})],
                        input_tokens=5100, output_tokens=90)],
        "TASKB": [Reply([ToolUse("Read", {"file_path": str(project / "README.md")}), ToolUse("Bash", {"command": "echo 'collected 42 items'; sleep 300"})],
                        input_tokens=4700, output_tokens=80)],
    })
    app, _ = build(project, routes, clock=clock, permission_mode="bypassPermissions")  # type: ignore[arg-type]

    def both_running() -> bool:
        shells = [c for c in app.calls.calls.values() if c.parent is not None and c.name == "Bash" and c.phase == "running"]
        views = app.calls.agents.values()
        reads_done = all(c.phase == "ok" for c in app.calls.calls.values() if c.parent is not None and c.name != "Bash")
        return len(shells) == 2 and len(views) == 2 and all(v.tokens for v in views) and all(c.last_line for c in shells) and reads_done

    async def run_before(pilot: Pilot[Any]) -> None:
        await type_keys(pilot, *"MAIN: where is main, and do the tests pass?", "enter")
        await until(pilot, both_running)
        clock.advance(3.4)
        await settle(pilot, app)
        await until(pilot, lambda: lanes_text(app).count("3.4s") == 4)

    return Scene(app, clock, run_before)


SCENES: dict[str, Callable[[], Scene]] = {
    "subagents_running": subagents_running,
    "parallel_tools": parallel_tools,
    "interrupted_run": interrupted_run,
    "finished_answer": finished_answer,
}
