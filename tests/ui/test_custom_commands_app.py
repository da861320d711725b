"""Custom commands in the app (Pilot, the real agent, the scripted model): a typed `/greet world` expands, `/help`
and the palette list them, and an untrusted folder's command runs nothing of its `!` lines."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.ui.app_support import build, isolate, project_at, transcript_text, until, until_idle
from tests.ui.app_support import type_keys
from tui_agent.providers.scripted import Reply, Text
from tui_agent.ui.commands import SlashCommandsProvider
from tui_agent.ui.screens.trust import TrustScreen

SLOW = 60.0


def completion_items(app: Any) -> list[str]:
    lst = app.prompt.completions
    return [str(lst.get_option_at_index(i).prompt) for i in range(lst.option_count)] if lst.display else []


def commands(project: Path, bang_marker: Path | None = None) -> None:
    folder = project / ".claude" / "commands"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "greet.md").write_text("---\ndescription: Greet someone\nargument-hint: <name>\n---\nSay hello to $ARGUMENTS.\n")
    if bang_marker is not None:
        (folder / "evil.md").write_text(f"---\nallowed-tools: Bash\n---\nNow !`touch {bang_marker}`\n")


async def test_a_typed_command_expands_and_help_lists_it(project: Path, monkeypatch: Any) -> None:
    commands(project)
    monkeypatch.chdir(project)  # the app's folder
    app, model = build(project, [Reply([Text("Hello!")])])
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.ready, SLOW)
        app.submit("/help")
        await until(pilot, lambda: "/greet <name>" in transcript_text(app), SLOW)
        assert "Greet someone (project)" in transcript_text(app)
        app.submit("/greet world")
        await until(pilot, lambda: bool(model.requests), SLOW)
        await until_idle(pilot, app)
        hits = [hit.text async for hit in SlashCommandsProvider(app.screen).discover()]
        await app.action_quit()
    sent = [b["text"] for b in model.requests[0]["messages"][0]["content"]]
    assert sent[-1] == "Say hello to world.\n" and "<command-name>/greet</command-name>" in sent[-2]
    assert "/greet <name>" in [str(h) for h in hits]


async def test_slash_opens_the_command_list_with_hints_and_tab_inserts(project: Path, monkeypatch: Any) -> None:
    commands(project)
    monkeypatch.chdir(project)
    app, _ = build(project, [])
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.ready, SLOW)
        await type_keys(pilot, *"/gre")
        await until(pilot, lambda: "/greet <name>  Greet someone (project)" in completion_items(app), SLOW)
        await pilot.press("tab")
        assert app.prompt.text == "/greet "
        assert not app.prompt.completions.display
        await app.action_quit()


async def test_a_bang_line_nothing_allows_is_asked_in_the_app(project: Path, monkeypatch: Any) -> None:
    marker = project.parent / "asked-and-ran"
    folder = project / ".claude" / "commands"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "ask.md").write_text(f"Now !`touch {marker}`\n")
    monkeypatch.chdir(project)
    app, model = build(project, [Reply([Text("ok")])])
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.ready, SLOW)
        app.submit("/ask")
        await until(pilot, lambda: app.asker.dialog is not None, SLOW)
        dialog = app.asker.dialog
        assert "touch" in str(dialog.request.input) and not marker.exists() and not model.requests
        # An answer key pressed in the dialog's first moments is ignored by design: wait for the guard's end.
        await until(pilot, lambda: dialog.is_mounted and not dialog.query_one("#dialog").has_class("-guarded"), SLOW)
        await pilot.press("1")  # yes, once
        await until(pilot, lambda: bool(model.requests), SLOW)
        await until_idle(pilot, app)
        await app.action_quit()
    assert marker.exists()


async def test_an_untrusted_folders_command_runs_nothing(tmp_path: Path, monkeypatch: Any) -> None:
    isolate(monkeypatch, tmp_path, trusted=False)
    repo = project_at(tmp_path / "clone")
    (repo / ".git").mkdir()
    marker = tmp_path / "bang-ran"
    commands(repo, marker)
    monkeypatch.chdir(repo)
    app, model = build(repo, [Reply([Text("ok")])])
    async with app.run_test(size=(120, 40)) as pilot:
        app.submit("/evil")  # typed before the trust question is answered
        await until(pilot, lambda: isinstance(app.screen, TrustScreen), SLOW)
        await pilot.pause()
        assert not marker.exists() and not model.requests
        await app.action_quit()
    assert not marker.exists()


def test_snapshot_the_slash_list_with_a_custom_command_at_80x24(snap_compare: Any, tmp_path: Path, monkeypatch: Any, scene_lock: None) -> None:
    """You should see "/gre" typed in the prompt and, under it, the command list with "/greet <name>  Greet
    someone (project)" — the project's own command, its argument hint and description."""
    from tests.ui.app_support import trust_for_tests
    from tests.ui.scenes import fresh_project

    isolate(monkeypatch, tmp_path)
    project = fresh_project()
    trust_for_tests(tmp_path / "home", project)
    commands(project)
    monkeypatch.chdir(project)
    app, _ = build(project, [])

    async def run_before(pilot: Any) -> None:
        app.prompt.cursor_blink = False
        await until(pilot, lambda: app.ready, SLOW)
        await type_keys(pilot, *"/gre")
        await until(pilot, lambda: "/greet <name>  Greet someone (project)" in completion_items(app), SLOW)
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
