"""Regenerate screenshots/*.svg from the same fixed-clock scenes the snapshot tests use.

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
            print(asyncio.run(shoot(name)))


if __name__ == "__main__":
    main()
