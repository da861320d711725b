"""Stand-in tools built on the real Tool/ToolInput bases (the real tools are written elsewhere), and a
project laid out in tmp_path: home, a git project with src/ and secrets/, an outside folder, symlinks."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import pytest

from tui_agent.core.permission_types import PermissionCheck
from tui_agent.core.permissions import PermissionEngine
from tui_agent.tools.base import Tool, ToolInput, Workspace

_READ_ONLY_COMMANDS = {"ls", "cat", "grep", "head", "wc", "pwd", "echo", "cd", "true", "sleep"}


class BashInput(ToolInput):
    command: str


class BashLike(Tool[BashInput]):
    name = "Bash"
    description = "Run a shell command."
    Input = BashInput

    def is_read_only(self, input: BashInput) -> bool:
        if ">" in input.command:
            return False
        segments = re.split(r"&&|\|\||[;|&\n]", input.command)
        return all(s.split()[0] in _READ_ONLY_COMMANDS for s in segments if s.strip())


class FileInput(ToolInput):
    file_path: str


class ReadLike(Tool[FileInput]):
    name = "Read"
    description = "Read a file."
    Input = FileInput

    def is_read_only(self, input: FileInput) -> bool:
        return True

    def input_path(self, input: FileInput) -> str | None:
        return input.file_path


class EditLike(ReadLike):
    name = "Edit"

    def is_read_only(self, input: FileInput) -> bool:
        return False


class WriteLike(EditLike):
    name = "Write"


class SearchInput(ToolInput):
    pattern: str = "x"
    path: str | None = None


class GrepLike(Tool[SearchInput]):
    name = "Grep"
    description = "Search."
    Input = SearchInput

    def is_read_only(self, input: SearchInput) -> bool:
        return True

    def input_path(self, input: SearchInput) -> str | None:
        return input.path


class GlobLike(GrepLike):
    name = "Glob"


class UrlInput(ToolInput):
    url: str = "https://example.com"


class FetchLike(Tool[UrlInput]):
    name = "WebFetch"
    description = "Fetch."
    Input = UrlInput


TOOLS: dict[str, Tool[Any]] = {t.name: t for t in (BashLike(), ReadLike(), EditLike(), WriteLike(), GrepLike(), GlobLike(), FetchLike())}


@dataclass
class Env:
    home: Path
    project: Path
    outside: Path
    workspace: Workspace
    notices: list[tuple[str, str]]

    def engine(self, **kw: Any) -> PermissionEngine:
        kw.setdefault("home", self.home)
        kw.setdefault("on_notice", lambda level, text: self.notices.append((level, text)))
        return PermissionEngine(kw.pop("cwd", self.project), **kw)

    def check(self, tool: str, tool_use_id: str = "toolu_1", **fields: Any) -> PermissionCheck:
        t = TOOLS[tool]
        inp = t.Input(**fields)
        return PermissionCheck(t, inp, inp.model_dump(exclude_none=True), tool_use_id, self.workspace, t.is_read_only(inp))

    def write(self, path: Path, data: Any) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(data if isinstance(data, str) else json.dumps(data))
        return path

    @property
    def project_settings(self) -> Path:
        return self.project / ".claude" / "settings.json"

    @property
    def local_settings(self) -> Path:
        return self.project / ".claude" / "settings.local.json"

    @property
    def user_settings(self) -> Path:
        return self.home / ".claude" / "settings.json"

    def warnings(self) -> list[str]:
        return [t for level, t in self.notices if level in ("warning", "error")]


@pytest.fixture
def env(tmp_path: Path) -> Env:
    home, project, outside = tmp_path / "home", tmp_path / "proj", tmp_path / "outside"
    for d in (home, project / ".git", project / "src" / "deep", project / "secrets", outside, home / "notes"):
        d.mkdir(parents=True)
    (project / "src" / "a.py").write_text("a = 1\n")
    (project / "secrets" / "k").write_text("key\n")
    (project / "out_link").symlink_to(outside)
    (project / "secret_link").symlink_to(project / "secrets")
    return Env(home.resolve(), project.resolve(), outside.resolve(), Workspace.at(project), [])


@pytest.fixture
def shell_env(env: Env) -> Env:
    """`env` plus what the shell-line tables name (issue 23): files a developer's lines read (`f`, `a`, `b`,
    `package.json`, `data.csv`, ...); `list`, a committed list of file names (the outside `f`), and a file
    literally named `--files0-from=list`; and three trees for the recursive readers — `docs/` with a link
    `docs/keys` -> `outside/ssh` (so `docs/keys/../f` is `outside/f` to the kernel but `docs/f` to normpath),
    `lib/` whose only link (`lib/src_link` -> `../src`) stays inside, and `src/` with no link at all."""
    project, outside = env.project, env.outside
    (outside / "ssh").mkdir()
    (outside / "ssh" / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY----- outside\n")
    (outside / "f").write_text("outside\n")
    files = {
        "f": "b: 2\na: 1\nx y\na: 1\n\n",
        "a": "one\ntwo\n",
        "b": "one\nthree\n",
        "nums.txt": "3\n10\n2\n",
        "data.csv": "name,size\nb,2\na,1\n",
        "README.md": "# Demo\nhello\n",
        "package.json": '{"name": "demo", "version": "1.0.0", "scripts": {"test": "pytest"}, "dependencies": {"left-pad": "1"}}\n',
        "data.json": '{"items": [{"name": "a"}, {"name": "b"}]}\n',
        "list": f"{outside}/f",
        "--files0-from=list": "",
        "src/b.py": "import os\n# TODO tidy\ndef foo():\n    return os.sep\n",
        "src/deep/c.py": "class C:\n    pass\n",
        "docs/guide.md": "# Guide\n",
        "lib/mod.py": "def bar():\n    return 2\n",
    }
    for name, text in files.items():
        env.write(project / name, text)
    (project / "docs" / "keys").symlink_to(outside / "ssh")
    (project / "lib" / "src_link").symlink_to("../src")
    return env


@pytest.fixture
def poll() -> Callable[..., Any]:
    """Await `predicate()` (sync or async) becoming true, failing after `timeout` seconds."""
    import asyncio
    import inspect

    async def _poll(predicate: Callable[[], Any], timeout: float = 10.0) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            result = predicate()
            if inspect.isawaitable(result):
                result = await result
            if result:
                return
            if loop.time() > deadline:
                raise AssertionError("condition not met in time")
            await asyncio.sleep(0.05)

    return _poll
