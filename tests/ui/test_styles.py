"""The app finds its styles wherever it is started from; the top-level styles/ is the shipped folder."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tui_agent.ui.app import STYLE_FILES, STYLES_DIR

REPO = Path(__file__).resolve().parents[2]


def test_top_level_styles_is_the_shipped_styles_folder_itself() -> None:
    # One source: styles/ is a link to tui_agent/ui/styles (what the wheel and the sdist ship).
    top = REPO / "styles"
    assert top.is_symlink() and top.resolve() == STYLES_DIR.resolve()
    for name in STYLE_FILES:
        assert (top / name).is_file()


def test_app_loads_its_css_from_another_folder(tmp_path: Path) -> None:
    code = (
        "import asyncio\n"
        "from tui_agent.config import AgentSettings\n"
        "from tui_agent.ui.app import make_app\n"
        "async def main():\n"
        "    app = make_app(AgentSettings(cwd='.', demo=True))\n"
        "    async with app.run_test(size=(80, 24)) as pilot:\n"
        "        print(app.query_one('#prompt').styles.max_height.value, app.query_one('#status').styles.height.value)\n"
        "asyncio.run(main())\n"
    )
    env = {"HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data"), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["10.0", "1.0"]
