"""The README and docs/ hold: the site builds with `mkdocs build --strict`, every relative link and #anchor
resolves, and every tui-agent flag they name is one `tui-agent --help` lists."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Iterator

from markdown.extensions.toc import slugify

from tests.e2e.sdk_support import tui_agent_cli

REPO = Path(__file__).resolve().parents[2]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
SPAN = re.compile(r"(`+)(.+?)\1", re.S)
FLAG = re.compile(r"(?<![\w-])(--[A-Za-z][\w-]*)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$")
OURS = {"tui-agent", "claude"}
"""A code span or code line starting with one of these (or with a flag itself) names tui-agent's flags."""
OTHER_PROGRAMS_FLAGS = {
    # Written alone in a code span, but another program's: the sentence around each names that program.
    "--no-ext-diff": "git (permissions.md: read-only git)",
    "--esc-only": "bench/bench_tui.py",
    "--runs": "bench/bench_first_frame.py",
    "--cmd": "bench/bench_first_frame.py",
    "--fresh": "bench/mutation.py",
    "--mutant": "bench/mutation.py",
    "--time-limit": "bench/mutation.py",
    "--max-children": "mutmut",
    "--import-mode": "pytest",
    "--basetemp": "pytest (testing.md: the isolation test's subprocess run)",
    "--dist": "pytest-xdist (`-n auto --dist worksteal`)",
    "--no-deps": "pip and uv (testing.md: how the README's test command installs the lock)",
}


def _prose_and_code(text: str) -> tuple[str, list[str]]:
    """The text outside fenced blocks and code spans; and the code: each fenced line and each span."""
    prose: list[str] = []
    code: list[str] = []
    fenced = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif fenced:
            code.append(line.strip())
        else:
            prose.append(line)
    body = "\n".join(prose)
    code += [" ".join(m.group(2).split()) for m in SPAN.finditer(body)]
    return SPAN.sub(" ", body), code


def _anchors(page: Path) -> set[str]:
    """The #ids MkDocs gives the page's headings (the toc extension's slugify on the heading's text)."""
    prose_lines: list[str] = []
    fenced = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and (match := HEADING.match(line)):
            prose_lines.append(match.group(1).replace("`", ""))
    return {slugify(heading, "-") for heading in prose_lines}


def _links(page: Path) -> Iterator[str]:
    prose, _ = _prose_and_code(page.read_text(encoding="utf-8"))
    for match in LINK.finditer(prose):
        target = match.group(1)
        if not re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto: are not ours to check
            yield target


def _documented_flags() -> dict[str, str]:
    """flag -> the page that names it, for every flag named as tui-agent's (see OURS)."""
    found: dict[str, str] = {}
    for page in PAGES:
        prose, code = _prose_and_code(page.read_text(encoding="utf-8"))
        for snippet in code:
            first = snippet.split()[0] if snippet.split() else ""
            if first in OURS or first.startswith("-"):
                for flag in FLAG.findall(snippet):
                    found.setdefault(flag, page.relative_to(REPO).as_posix())
        for flag in FLAG.findall(prose):
            found.setdefault(flag, page.relative_to(REPO).as_posix())
    return found


def test_the_site_builds_with_strict(tmp_path: Path) -> None:
    # --strict turns every warning into a failure: a page missing from the nav, a broken link or anchor.
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    site = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(REPO / "mkdocs.yml"), "--site-dir", str(site)],
        capture_output=True, text=True, env=env, cwd=REPO, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert (site / "index.html").is_file() and (site / "sdk" / "index.html").is_file()
    assert (site / "screenshots" / "parallel_tools.svg").is_file()  # docs/screenshots links to screenshots/


def test_every_relative_link_and_anchor_resolves() -> None:
    broken: list[str] = []
    for page in PAGES:
        for target in _links(page):
            path, _, anchor = target.partition("#")
            resolved = (page.parent / path).resolve() if path else page
            where = f"{page.relative_to(REPO)}: {target}"
            if not resolved.exists():
                broken.append(f"{where} (no such file)")
            elif anchor and (resolved.suffix != ".md" or anchor not in _anchors(resolved)):
                broken.append(f"{where} (no such heading)")
    assert broken == []


def test_the_link_checker_sees_a_broken_link_and_anchor(tmp_path: Path) -> None:
    # The check above can fail: a missing file and a missing heading are both caught (guards the parsing).
    page = tmp_path / "page.md"
    page.write_text("# Title\n\n## A heading: `code`\n\n[x](page.md#a-heading-code) [y](gone.md) `[z](gone.md)`\n")
    assert list(_links(page)) == ["page.md#a-heading-code", "gone.md"]
    assert _anchors(page) == {"title", "a-heading-code"}


def test_every_documented_flag_exists_in_help() -> None:
    help_text = subprocess.run([tui_agent_cli(), "--help"], capture_output=True, text=True, timeout=60, check=True).stdout
    offered = set(FLAG.findall(help_text))
    documented = _documented_flags()
    missing = {flag: page for flag, page in documented.items() if flag not in offered and flag not in OTHER_PROGRAMS_FLAGS}
    assert missing == {}, "documented as tui-agent's flags but not in `tui-agent --help`"
    assert not offered & set(OTHER_PROGRAMS_FLAGS), "a flag of ours is listed as another program's"
    assert {"--output-format", "--resume", "--version", "--mcp-config"} <= set(documented)  # the scan finds them
