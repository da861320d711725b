"""Fixtures for tool tests: a workspace in a real temp folder, and a 50,000-file tree shared by the session."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import AsyncIterator, Iterator

import pytest

from tui_agent.tools.background import BackgroundShells
from tui_agent.tools.base import FileReadState, ToolContext, Workspace
from tui_agent.tools.file_watch import FileWatcher

BIG_TREE_DIRS = 500
BIG_TREE_FILES_PER_DIR = 100
# Every 1,000th file holds this word; the rest hold filler.
BIG_TREE_NEEDLE = "needle_7c1f"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root.resolve()


@pytest.fixture
async def ctx(tmp_path: Path, workspace: Path) -> AsyncIterator[ToolContext]:
    progress: list[str] = []
    context = ToolContext(
        workspace=Workspace.at(workspace),
        session_dir=tmp_path / "session",
        read_state=FileReadState(),
        tool_use_id="toolu_test",
        progress=progress.append,
    )
    context.services["progress_log"] = progress
    yield context
    shells = context.services.get("background_shells")
    if isinstance(shells, BackgroundShells):
        await shells.close_all()
    watcher = context.services.get("file_watch")
    if isinstance(watcher, FileWatcher):
        watcher.close(wait=True)


def generate_tree(root: Path, dirs: int = BIG_TREE_DIRS, files_per_dir: int = BIG_TREE_FILES_PER_DIR) -> int:
    """A source-like tree of dirs*files_per_dir small files; returns how many hold BIG_TREE_NEEDLE."""
    filler = "def f(x):\n    return x + 1\n" * 5
    needles = 0
    n = 0
    for d in range(dirs):
        folder = root / f"pkg{d:03d}"
        os.makedirs(folder, exist_ok=True)
        for i in range(files_per_dir):
            ext = ".py" if i % 2 == 0 else ".txt"
            body = filler
            if n % 1000 == 0:
                body += f"{BIG_TREE_NEEDLE} = {n}\n"
                needles += 1
            with open(folder / f"mod{i:03d}{ext}", "w") as f:
                f.write(body)
            n += 1
    return needles


def fast_temp_dir(fallback: Path) -> Path:
    """A new folder in RAM when there is one: creating 50,000 files on a busy disk can take 15 s."""
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK):
        return Path(tempfile.mkdtemp(prefix="tui-agent-tree-", dir=shm)).resolve()
    return fallback.resolve()


@pytest.fixture(scope="session")
def big_tree(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, int]]:
    root = fast_temp_dir(tmp_path_factory.mktemp("big_tree"))
    yield root, generate_tree(root)
    shutil.rmtree(root, ignore_errors=True)
