"""Notifications: the bell and OSC 9 / OSC 777 when a long turn ends or an ask waits, unless the terminal
reported focus; preferredNotifChannel; the Notification hook. The real app on the scripted model."""

from __future__ import annotations

import json
from pathlib import Path

from textual import events

from tui_agent.providers.scripted import Reply, Text, ToolUse
from tui_agent.ui import notify

from tests.core.support import assert_history_valid
from tests.ui.app_support import type_keys
from tests.ui.app_support import FakeClock, build, until, until_idle


def long_turn(clock: FakeClock) -> list:
    def step(body: dict, index: int) -> Reply:
        clock.advance(7.0)  # the model took 7 s (on the app's clock)
        return Reply([Text("done")])

    return step  # type: ignore[return-value]


async def run_long_turn(project: Path, **settings) -> tuple[list[str], object]:
    clock = FakeClock()
    app, _ = build(project, [], clock=clock, **settings)
    app._scripted._script = long_turn(clock)  # noqa: SLF001
    written: list[str] = []
    async with app.run_test(size=(100, 30)) as pilot:
        app.notifier._write = written.append  # noqa: SLF001  # what would reach the terminal
        await until(pilot, lambda: app.ready)
        await type_keys(pilot, *"go", "enter")
        await until_idle(pilot, app)
        await app.notifier.wait_hooks()
    return written, app


async def test_a_long_turn_rings_and_sends_osc_9_and_777(project: Path) -> None:
    written, app = await run_long_turn(project)
    assert written == ["\x07\x1b]9;tui-agent is waiting for your input\x07\x1b]777;notify;tui-agent;tui-agent is waiting for your input\x07"]


async def test_a_short_turn_does_not_notify(project: Path) -> None:
    app, _ = build(project, [Reply([Text("quick")])], clock=FakeClock())
    written: list[str] = []
    async with app.run_test(size=(100, 30)) as pilot:
        app.notifier._write = written.append  # noqa: SLF001
        await until(pilot, lambda: app.ready)
        await type_keys(pilot, *"go", "enter")
        await until_idle(pilot, app)
    assert written == [] and app.notifier.sent == []


async def test_no_escape_while_the_terminal_reports_focus(project: Path) -> None:
    clock = FakeClock()
    app, _ = build(project, [], clock=clock)
    app._scripted._script = long_turn(clock)  # noqa: SLF001
    written: list[str] = []
    async with app.run_test(size=(100, 30)) as pilot:
        app.notifier._write = written.append  # noqa: SLF001
        assert app.notifier.focused is None  # unknown: treated as not focused
        app.post_message(events.AppFocus())
        await until(pilot, lambda: app.notifier.focused is True)
        await until(pilot, lambda: app.ready)
        await type_keys(pilot, *"go", "enter")
        await until_idle(pilot, app)
        assert app.notifier.sent and written == []
        app.post_message(events.AppBlur())
        await until(pilot, lambda: app.notifier.focused is False)


async def test_preferred_channel_and_the_notification_hook(project: Path, tmp_path: Path) -> None:
    out = tmp_path / "hook.json"
    settings = {
        "preferredNotifChannel": "terminal_bell",
        "hooks": {"Notification": [{"matcher": "", "hooks": [{"type": "command", "command": f"cat > {out}"}]}]},
    }
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    written, app = await run_long_turn(project)
    assert written == ["\x07"]
    payload = json.loads(out.read_text())
    assert payload["hook_event_name"] == "Notification" and payload["message"] == "tui-agent is waiting for your input"
    assert payload["notification_type"] == "idle_prompt" and payload["cwd"] == str(project)
    assert payload["session_id"] == app.agent.session.id and payload["transcript_path"].endswith(f"{app.agent.session.id}.jsonl")
    (project / ".claude" / "settings.json").write_text(json.dumps({"preferredNotifChannel": "none"}))
    written, _ = await run_long_turn(project)
    assert written == []


async def test_a_permission_ask_waiting_notifies(project: Path, monkeypatch) -> None:
    monkeypatch.setattr(notify, "PERMISSION_WAIT_SECONDS", 0.3)  # 6 s in the app
    app, model = build(project, [Reply([ToolUse("Bash", {"command": "touch made.txt"})]), Reply([Text("ok")])])
    written: list[str] = []
    async with app.run_test(size=(100, 30)) as pilot:
        app.notifier._write = written.append  # noqa: SLF001
        await until(pilot, lambda: app.ready)
        await type_keys(pilot, *"go", "enter")
        await until(pilot, lambda: app.asker.dialog is not None)
        await until(pilot, lambda: bool(written))
        assert app.notifier.sent == ["tui-agent needs your permission to use Bash"]
        assert "\x1b]9;tui-agent needs your permission to use Bash\x07" in written[0]
        dialog = app.asker.dialog
        # Mounted first: before its on_mount the dialog has no "-guarded" class yet, and an answer key
        # pressed in its first moments is ignored by design.
        await until(pilot, lambda: dialog.is_mounted and not dialog.query_one("#dialog").has_class("-guarded"))
        await pilot.press("n")  # denied: the run goes on and ends
        await until_idle(pilot, app)
        # One notification per ask, not one per poll (the turn's end may add its own: it took a while).
        assert [w for w in written if "permission" in w] == written[:1]
    assert not (project / "made.txt").exists()
    assert len(model.requests) == 2  # the denial went back to the model, which answered
    history = model.requests[1]["messages"]
    assert_history_valid(history)
    assert history[-1]["content"][0]["type"] == "tool_result" and history[-1]["content"][0]["is_error"]


def test_escapes_inside_tmux_use_its_passthrough() -> None:
    data = notify.escapes("iterm2", "hi", in_tmux=True)
    assert data == "\x1bPtmux;\x1b\x1b]9;hi\x07\x1b\\"
    assert notify.escapes("kitty", "a;b", in_tmux=False) == "\x1b]99;;a,b\x1b\\"
    assert notify.escapes("notifications_disabled", "x", in_tmux=False) == ""
