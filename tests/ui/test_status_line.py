"""Claude Code's `statusLine` command in the real app (Pilot), with real scripts in a scratch HOME's
~/.claude/settings.json: its first line shows under the prompt in its own colours, it runs again after a turn
with the new figures, a failing command shows nothing and is reported once, and a repository's committed
settings cannot set it."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

from tests.ui.app_support import build, transcript_text, until, until_idle
from tui_agent.providers.scripted import Reply, Text

GREEN_SCRIPT = """#!/bin/sh
input=$(cat)
printf '%s' "$input" > "{seen}"
python3 -c '
import json, sys
d = json.loads(sys.argv[1])
print("\\033[32m" + d["model"]["id"] + "\\033[0m out=" + str(d["context_window"]["total_output_tokens"]) + " " + d["hook_event_name"])
print("second line never shown")
' "$input"
"""


def user_settings(home: Path, settings: dict[str, Any]) -> None:
    folder = home / ".claude"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "settings.json").write_text(json.dumps(settings))


def script(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def said(app: Any) -> str:
    """The conversation's words, lines joined (a long notice wraps)."""
    return " ".join(transcript_text(app).split())


def shown(app: Any) -> str:
    return app.status_command.render().plain if app.status_command.display else ""


async def test_the_line_shows_in_its_colours_and_updates_after_a_turn(project: Path, tmp_path: Path) -> None:
    seen = tmp_path / "seen.json"
    line = script(tmp_path, "status.sh", GREEN_SCRIPT.replace("{seen}", str(seen)))
    user_settings(tmp_path / "home", {"statusLine": {"type": "command", "command": str(line), "padding": 2}})
    app, _ = build(project, [Reply([Text("hi")], output_tokens=42)])
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: "out=0" in shown(app))
        text = app.status_command.render()
        assert text.plain == f"{app.agent.model.config.model} out=0 Status"
        green = [span for span in text.spans if "green" in str(span.style)]
        assert green and text.plain[green[0].start:green[0].end] == app.agent.model.config.model
        assert "second line" not in text.plain
        assert app.status_command.styles.padding.left == 3  # our one column + Claude Code's `padding`
        given = json.loads(seen.read_text())
        assert given["session_id"] == app.agent.session.id and given["cwd"] == str(project)
        assert given["workspace"]["current_dir"] == str(project) and given["transcript_path"]
        assert set(given["cost"]) >= {"total_cost_usd", "total_duration_ms"} and given["exceeds_200k_tokens"] is False
        assert given["output_style"] == {"name": "default"} and given["model"]["id"] == app.agent.model.config.model
        app.submit("hello")
        await until_idle(pilot, app)
        await until(pilot, lambda: "out=42" in shown(app))
        await app.action_quit()


async def test_a_failing_command_shows_nothing_and_is_reported_once(project: Path, tmp_path: Path) -> None:
    broken = script(tmp_path, "broken.sh", "#!/bin/sh\necho 'not shown'\necho 'no such thing' >&2\nexit 3\n")
    user_settings(tmp_path / "home", {"statusLine": {"type": "command", "command": str(broken)}})
    app, _ = build(project, [Reply([Text("one")]), Reply([Text("two")])])
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.ready and app.status_lines is not None and app.status_lines.runs >= 1)
        for prompt in ("first", "second"):
            app.submit(prompt)
            await until_idle(pilot, app)
        await until(pilot, lambda: app.status_lines.runs >= 2 and app.status_lines.idle)
        assert not app.status_command.display and shown(app) == ""
        text = said(app)
        assert text.count("failed (exit 3)") == 1, text
        assert "no such thing" in text
        await app.action_quit()


async def test_a_slow_command_is_stopped_and_shows_nothing(project: Path, tmp_path: Path, monkeypatch: Any) -> None:
    import tui_agent.ui.status_line as status_line

    monkeypatch.setattr(status_line, "TIMEOUT_S", 0.5)  # Claude Code's 5 s, shortened
    slow = script(tmp_path, "slow.sh", "#!/bin/sh\necho early\nsleep 30\n")
    user_settings(tmp_path / "home", {"statusLine": {"type": "command", "command": str(slow)}})
    app, _ = build(project, [])
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: "timed out" in said(app))
        assert shown(app) == ""
        assert "slow.sh" in said(app)
        await app.action_quit()


async def test_a_repositorys_committed_status_line_does_not_run(project: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps({"statusLine": {"type": "command", "command": f"touch {marker}; echo repo"}}))
    app, _ = build(project, [Reply([Text("ok")])])
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: "ignored statusLine" in said(app))
        app.submit("hello")
        await until_idle(pilot, app)
        assert not marker.exists() and shown(app) == ""
        await app.action_quit()


def test_snapshot_status_line_at_80x24(snap_compare: Any, tmp_path: Path, monkeypatch: Any, scene_lock: None) -> None:
    """You should see, under the prompt and above tui-agent's own status line, "main ▸ 3 files ✔ clean" with
    "main" in green and "✔ clean" in yellow, indented by its padding of 1."""
    from tests.ui.app_support import isolate, trust_for_tests
    from tests.ui.scenes import fresh_project

    isolate(monkeypatch, tmp_path)
    project = fresh_project()
    trust_for_tests(tmp_path / "home", project)
    line = script(tmp_path, "fixed.sh", "#!/bin/sh\ncat >/dev/null\nprintf '\\033[32mmain\\033[0m ▸ 3 files \\033[33m✔ clean\\033[0m\\n'\n")
    user_settings(tmp_path / "home", {"statusLine": {"type": "command", "command": str(line), "padding": 1}})
    app, _ = build(project, [])

    async def run_before(pilot: Any) -> None:
        app.prompt.cursor_blink = False
        await until(pilot, lambda: "clean" in shown(app))
        app.status.refresh()
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
