"""Regenerate screenshots/*.svg from the same fixed-clock scenes the snapshot tests use, and copy the
dialogs' pictures from their snapshot tests (which keep them current: a changed dialog fails its test
until its snapshot is redrawn).

    python screenshots/make_screenshots.py
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from tests.ui.app_support import trust_for_tests  # noqa: E402
from tests.ui.scenes import SCENE_ROOT, SCENES  # noqa: E402

SNAPSHOTS = HERE.parent / "tests" / "ui" / "__snapshots__"
FROM_SNAPSHOTS = {
    "plan_dialog": "test_plan_dialog/test_snapshot_long_plan_dialog[120x40].svg",
    "question_dialog": "test_question_dialog/test_snapshot_multi_select_then_a_question_with_previews[120x40].svg",
    "todo_panel": "test_todo_panel/test_snapshot_todo_panel_at_120x40.svg",
}
SIZES = {"subagents_running": (120, 36), "parallel_tools": (120, 36), "interrupted_run": (100, 30), "finished_answer": (100, 40)}


async def shoot(name: str) -> Path:
    scene = SCENES[name]()
    out = HERE / f"{name}.svg"
    async with scene.app.run_test(size=SIZES[name]) as pilot:
        await scene.run_before(pilot)
        scene.app.save_screenshot(str(out))
    return out


def main() -> None:
    with tempfile.TemporaryDirectory() as home:
        os.environ.update({"HOME": home, "XDG_DATA_HOME": str(Path(home) / "data")})
        trust_for_tests(Path(home), SCENE_ROOT)  # as the snapshot tests do: no folder-trust question first
        for name in sys.argv[1:] or SCENES:
            if name in SCENES:
                print(asyncio.run(shoot(name)))
    for name, snapshot in FROM_SNAPSHOTS.items():
        if not sys.argv[1:] or name in sys.argv[1:]:
            out = HERE / f"{name}.svg"
            out.write_bytes((SNAPSHOTS / snapshot).read_bytes())
            print(out)


if __name__ == "__main__":
    main()
