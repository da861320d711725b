"""The permission dialog and its asker: every answer, the stray-key guards, parallel asks, and the real
loop (a ScriptedModel behind the real SDK) getting the answers."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input

from tui_agent.core.events import PermissionAsked
from tui_agent.core.permission_types import PermissionAnswer, SimplePolicy
from tui_agent.core.permissions import PermissionEngine
from tui_agent.providers.scripted import Reply, Text, ToolUse
from tui_agent.ui.screens.permission import PermissionScreen

from tests.ui.conftest_permission import (
    FakeClock,
    FakeShell,
    FakeWrite,
    Harness,
    SlowRead,
    make_agent,
    make_project,
    request,
    result_text,
    tool_results,
)
from tests.ui.app_support import type_keys, until

GUARD_PASSED = 0.5


def keys_for(text: str) -> list[str]:
    return ["space" if ch == " " else ch for ch in text]


def dialog_ready(app: Harness) -> bool:
    dialog = app.asker.dialog
    return dialog is not None and app.screen is dialog and dialog.is_mounted


async def next_dialog(app: Harness, pilot: Any, previous: PermissionScreen | None = None) -> PermissionScreen:
    await until(pilot, lambda: dialog_ready(app) and app.asker.dialog is not previous)
    assert app.asker.dialog is not None
    return app.asker.dialog


def count_of(dialog: PermissionScreen) -> str:
    return str(dialog.query_one("#dialog").border_subtitle)


async def ask_all(app: Harness, *requests: Any) -> list[asyncio.Task[PermissionAnswer]]:
    tasks = [asyncio.create_task(app.asker.ask(r)) for r in requests]
    await asyncio.sleep(0)
    return tasks


WORDS_OPEN = "<the words field is open>"


# ----- every answer, from its keys -------------------------------------------------------------------


@pytest.mark.parametrize(
    "keys, expected",
    [
        (["1"], PermissionAnswer("allow_once")),
        (["y"], PermissionAnswer("allow_once")),
        (["2"], PermissionAnswer("allow_session", rule="Bash(npm run test *)")),
        (["3"], PermissionAnswer("allow_always", rule="Bash(npm run test *)")),
        (["r", "3"], PermissionAnswer("allow_always", rule="Bash(npm run *)")),
        (["tab", "tab", "2"], PermissionAnswer("allow_session", rule="Bash(npm *)")),
        (["4"], PermissionAnswer("deny")),
        (["n"], PermissionAnswer("deny")),
        (["escape"], PermissionAnswer("deny")),
        (["down", "enter"], PermissionAnswer("allow_session", rule="Bash(npm run test *)")),
        (["down", "down", "enter"], PermissionAnswer("allow_always", rule="Bash(npm run test *)")),
        (["up", "up", "enter"], PermissionAnswer("deny")),
        (["5", WORDS_OPEN, *keys_for("use yarn"), "enter"], PermissionAnswer("deny", words="use yarn")),
    ],
)
async def test_each_key_gives_its_answer(keys: list[str], expected: PermissionAnswer) -> None:
    app = Harness(SimplePolicy())
    async with app.run_test() as pilot:
        [task] = await ask_all(app, request())
        await next_dialog(app, pilot)
        app.clock.advance(GUARD_PASSED)
        if WORDS_OPEN in keys:  # a person looks at the field before typing in it
            at = keys.index(WORDS_OPEN)
            await type_keys(pilot, *keys[:at])
            await until(pilot, lambda: bool(app.screen.query("#words")))
            keys = keys[at + 1 :]
        await type_keys(pilot, *keys)
        await until(pilot, task.done)
        assert task.result() == expected
        await until(pilot, lambda: app.asker.dialog is None and app.screen is app.screen_stack[0])


async def test_choices_show_their_keys_and_the_rule_switches() -> None:
    app = Harness(SimplePolicy())
    async with app.run_test() as pilot:
        await ask_all(app, request())
        dialog = await next_dialog(app, pilot)
        rows = {c.name: f"{c.keys} {c.label}" for c in dialog.choices()}
        assert rows["once"].startswith("1 y")
        assert rows["session"] == "2 Yes, allow this session: Bash(npm run test *)"
        assert "Bash(npm run test *)" in rows["always"] and ".claude/settings.local.json" in rows["always"]
        assert rows["deny"].startswith("4 n") and rows["words"].startswith("5")
        assert "deny_all" not in rows  # only offered when other asks wait
        app.clock.advance(GUARD_PASSED)
        await pilot.press("r")
        assert dialog.rule == "Bash(npm run *)"
        assert "r/tab other rule (2/3)" in str(dialog.query_one("#hint").render())


async def test_no_rule_means_no_session_or_always_choice() -> None:
    """A command no rule can allow (e.g. unparsable) offers only once/deny."""
    app = Harness(SimplePolicy())
    async with app.run_test() as pilot:
        [task] = await ask_all(app, request(suggestions=()))
        dialog = await next_dialog(app, pilot)
        assert [c.name for c in dialog.choices()] == ["once", "deny", "words"]
        app.clock.advance(GUARD_PASSED)
        await pilot.press("2", "3")
        await until(pilot, lambda: not dialog.typing.held)  # the keys stopped: "2" (no such choice) acted
        assert not task.done()
        await pilot.press("1")
        await until(pilot, task.done)
        assert task.result() == PermissionAnswer("allow_once")


async def test_escape_in_the_words_field_goes_back_then_denies() -> None:
    app = Harness(SimplePolicy())
    async with app.run_test() as pilot:
        [task] = await ask_all(app, request())
        dialog = await next_dialog(app, pilot)
        assert app.focused is None  # no text field has focus when the dialog opens
        app.clock.advance(GUARD_PASSED)
        await pilot.press("5")
        await until(pilot, lambda: isinstance(app.focused, Input))
        await pilot.press("1", "y", "escape")  # digits are words here; escape leaves the field
        assert not task.done() and not dialog.query("#words")
        await pilot.press("escape")
        await until(pilot, task.done)
        assert task.result() == PermissionAnswer("deny")


async def test_edit_dialog_shows_the_diff() -> None:
    app = Harness(SimplePolicy())
    diff = "--- a/src/app.py\n+++ b/src/app.py\n@@ -1,2 +1,2 @@\n-x = 1\n+x = 2\n y = 3"
    async with app.run_test() as pilot:
        await ask_all(app, request("Edit", input={"file_path": "src/app.py"}, diff=diff, suggestions=("Edit(./src/**)",)))
        dialog = await next_dialog(app, pilot)
        shown = str(dialog.query_one("#diff").render())
        assert "-x = 1" in shown and "+x = 2" in shown
        assert "src/app.py" in str(dialog.query_one("#subject").render())


async def test_a_long_diff_scrolls_and_the_choices_stay_on_screen() -> None:
    app = Harness(SimplePolicy())
    diff = "--- a/big.py\n+++ b/big.py\n@@ -1,200 +1,200 @@\n" + "\n".join(f"+line {i}" for i in range(200))
    async with app.run_test(size=(80, 24)) as pilot:
        await ask_all(app, request("Write", input={"file_path": "big.py"}, diff=diff, suggestions=("Edit(./**)",)))
        dialog = await next_dialog(app, pilot)
        await pilot.pause()
        for row in ("#choice-once", "#choice-words", "#hint"):
            region = dialog.query_one(row).region
            assert 0 <= region.y < 24 and region.height >= 1, row
        body = dialog.query_one("#body")
        assert body.max_scroll_y > 0 and body.scroll_y == 0
        app.clock.advance(GUARD_PASSED)
        await pilot.press("pagedown")
        await until(pilot, lambda: body.scroll_y > 0)


# ----- the stray-key guards --------------------------------------------------------------------------


async def test_keys_typed_before_the_dialog_opens_answer_nothing() -> None:
    typing = FakeClock()  # keys come in quick succession until the test says time passed
    app = Harness(SimplePolicy(), typing_clock=typing)
    async with app.run_test() as pilot:
        prompt = app.query_one("#prompt", Input)
        prompt.focus()
        await pilot.press("h", "i")
        [task] = await ask_all(app, request())
        await pilot.press("y", "1", "enter")  # still typing: the keys go to the prompt
        await pilot.pause(0.05)
        assert app.asker.dialog is None and app.asker.pending == 1
        assert prompt.value == "hiy1"
        app.clock.advance(1.1)  # the user stopped typing: now it opens
        dialog = await next_dialog(app, pilot)
        assert dialog.query_one("#dialog").has_class("-guarded")
        assert str(dialog.query_one("#hint").render()) == "…"
        await pilot.press("y", "1", "2", "n", "escape", "down", "enter")  # typed as text: to the prompt
        assert not task.done() and app.screen is dialog
        assert prompt.value == "hiy1y12n"
        app.clock.advance(GUARD_PASSED)
        typing.advance(2.0)  # the typing stopped
        await until(pilot, lambda: not dialog.query_one("#dialog").has_class("-guarded") and not dialog.typing.is_typing())
        await pilot.press("1")
        typing.advance(0.5)  # and no key followed it: an answer
        await until(pilot, task.done)
        assert task.result() == PermissionAnswer("allow_once")
        assert prompt.value == "hiy1y12n"


def shown(dialog: PermissionScreen, part: str) -> str:
    return str(dialog.query_one(f"#{part}").render())


@pytest.mark.parametrize(
    "req",
    [request(command="rm -rf build"), request("Write", input={"file_path": "a.txt"}, diff="+hello", suggestions=("Edit(./**)",))],
    ids=["shell", "write"],
)
async def test_the_first_choice_is_highlighted_when_the_dialog_opens(req: Any) -> None:
    app = Harness(SimplePolicy())
    async with app.run_test() as pilot:
        await ask_all(app, req)
        dialog = await next_dialog(app, pilot)
        assert dialog.highlighted == "once"
        assert shown(dialog, "choice-once").startswith("❯ 1 y")
        assert dialog.query_one("#choice-once").has_class("-highlight")


async def test_enter_does_not_approve_a_shell_command_and_says_so() -> None:
    app = Harness(SimplePolicy())
    async with app.run_test() as pilot:
        [task] = await ask_all(app, request(command="rm -rf build"))
        dialog = await next_dialog(app, pilot)
        app.clock.advance(GUARD_PASSED)
        notice = dialog.query_one("#notice")
        assert not notice.display
        await pilot.press("enter")
        await until(pilot, lambda: notice.display)
        assert shown(dialog, "notice") == "enter alone never approves a shell command — press 1 or y to allow it"
        assert not task.done() and app.screen is dialog and dialog.highlighted == "once"
        await pilot.press("down")  # any key that acts clears the notice
        await until(pilot, lambda: not notice.display)
        await pilot.press("up", "enter")  # moved back to "allow once" on purpose
        await until(pilot, task.done)
        assert task.result() == PermissionAnswer("allow_once")


async def test_enter_after_moving_to_no_denies_a_shell_command() -> None:
    """After the notice, ↑↓ to "No" and Enter answers: only an approval needs a deliberate key."""
    app = Harness(SimplePolicy())
    async with app.run_test() as pilot:
        [task] = await ask_all(app, request(command="rm -rf build"))
        await next_dialog(app, pilot)
        app.clock.advance(GUARD_PASSED)
        await pilot.press("enter", "up", "up", "enter")
        await until(pilot, task.done)
        assert task.result() == PermissionAnswer("deny")


@pytest.mark.parametrize(
    "suggestions, expected",
    [
        (("Bash(npm run test *)",), "only one rule is offered for this call: Bash(npm run test *)"),
        ((), "no rule is offered for this call: it can only be allowed once"),
    ],
    ids=["one rule", "no rule"],
)
async def test_r_with_nothing_to_switch_says_so(suggestions: tuple[str, ...], expected: str) -> None:
    app = Harness(SimplePolicy())
    async with app.run_test() as pilot:
        [task] = await ask_all(app, request(suggestions=suggestions))
        dialog = await next_dialog(app, pilot)
        app.clock.advance(GUARD_PASSED)
        await pilot.press("r")
        await until(pilot, lambda: dialog.query_one("#notice").display)
        assert shown(dialog, "notice") == expected
        assert "r/tab" not in shown(dialog, "hint")  # nothing to switch: the hint does not offer it
        await pilot.press("tab")  # tab is the same key
        assert shown(dialog, "notice") == expected and not task.done()
        await pilot.press("n")
        await until(pilot, task.done)
        assert task.result() == PermissionAnswer("deny")


async def test_r_with_several_rules_switches_and_clears_a_notice() -> None:
    app = Harness(SimplePolicy())
    async with app.run_test() as pilot:
        await ask_all(app, request())
        dialog = await next_dialog(app, pilot)
        app.clock.advance(GUARD_PASSED)
        await pilot.press("enter")
        await until(pilot, lambda: dialog.query_one("#notice").display)
        await pilot.press("r")
        await until(pilot, lambda: not dialog.query_one("#notice").display)
        assert dialog.rule == "Bash(npm run *)"


@pytest.mark.parametrize(
    "req",
    [request(command="ls -la", read_only=True), request("Write", input={"file_path": "a.txt"}, diff="+hello", suggestions=("Edit(./**)",))],
    ids=["read-only shell", "write"],
)
async def test_enter_approves_the_preselected_once_for_other_tools(req: Any) -> None:
    app = Harness(SimplePolicy())
    async with app.run_test() as pilot:
        [task] = await ask_all(app, req)
        await next_dialog(app, pilot)
        app.clock.advance(GUARD_PASSED)
        await pilot.press("enter")
        await until(pilot, task.done)
        assert task.result() == PermissionAnswer("allow_once")


# ----- parallel asks -----------------------------------------------------------------------------------


async def test_one_dialog_at_a_time_and_the_guard_restarts_on_2_of_3() -> None:
    app = Harness(SimplePolicy())
    async with app.run_test() as pilot:
        tasks = await ask_all(app, *(request(id=f"r{i}", tool_use_id=f"t{i}", command=f"npm run {i}") for i in range(3)))
        first = await next_dialog(app, pilot)
        assert count_of(first) == "1 of 3" and first.request.id == "r0"
        app.clock.advance(GUARD_PASSED)
        await pilot.press("1")
        second = await next_dialog(app, pilot, first)
        assert count_of(second) == "2 of 3" and second.request.id == "r1"
        await pilot.press("4")  # straight after the move: the guard holds
        await until(pilot, lambda: not second.typing.held)
        assert not tasks[1].done()
        app.clock.advance(GUARD_PASSED)
        await pilot.press("4")
        third = await next_dialog(app, pilot, second)
        assert count_of(third) == "3 of 3"
        app.clock.advance(GUARD_PASSED)
        await pilot.press("2")
        await until(pilot, lambda: all(t.done() for t in tasks))
        assert [t.result().decision for t in tasks] == ["allow_once", "deny", "allow_session"]


async def test_the_count_follows_asks_arriving_and_withdrawn_while_open() -> None:
    app = Harness(SimplePolicy())
    async with app.run_test() as pilot:
        [first] = await ask_all(app, request(id="a"))
        dialog = await next_dialog(app, pilot)
        assert count_of(dialog) == ""
        second, third = await ask_all(app, request(id="b"), request(id="c"))
        await until(pilot, lambda: count_of(dialog) == "1 of 3")
        assert "deny_all" in [c.name for c in dialog.choices()]
        third.cancel()  # its tool was stopped: the ask goes away
        await until(pilot, lambda: count_of(dialog) == "1 of 2")
        first.cancel()  # the shown ask withdrawn: the dialog moves on
        moved = await next_dialog(app, pilot, dialog)
        assert moved.request.id == "b"
        app.clock.advance(GUARD_PASSED)
        await pilot.press("1")
        await until(pilot, second.done)
        assert second.result() == PermissionAnswer("allow_once")


async def test_a_highlighted_deny_all_withdrawn_moves_the_highlight_to_words() -> None:
    app = Harness(SimplePolicy())
    async with app.run_test() as pilot:
        [first, second] = await ask_all(app, request(id="a"), request(id="b"))
        dialog = await next_dialog(app, pilot)
        await until(pilot, lambda: count_of(dialog) == "1 of 2")
        app.clock.advance(GUARD_PASSED)
        await pilot.press("up")  # from "allow once" up to the last row: deny all
        assert dialog.highlighted == "deny_all"
        second.cancel()
        await until(pilot, lambda: count_of(dialog) == "")
        assert dialog.highlighted == "words" and shown(dialog, "choice-words").startswith("❯")
        await pilot.press("enter")  # Enter still does what the highlight shows
        await until(pilot, lambda: bool(dialog.query("#words")))
        assert not first.done()


async def test_deny_all_with_words_answers_every_waiting_ask() -> None:
    app = Harness(SimplePolicy())
    async with app.run_test() as pilot:
        tasks = await ask_all(app, *(request(id=f"r{i}") for i in range(3)))
        dialog = await next_dialog(app, pilot)
        await until(pilot, lambda: count_of(dialog) == "1 of 3")
        app.clock.advance(GUARD_PASSED)
        await pilot.press("6")
        await until(pilot, lambda: bool(dialog.query("#words")))
        await type_keys(pilot, *keys_for("lint first"), "enter")
        await until(pilot, lambda: all(t.done() for t in tasks))
        assert {t.result() for t in tasks} == {PermissionAnswer("deny", words="lint first")}
        await until(pilot, lambda: app.asker.dialog is None and app.asker.pending == 0)


async def test_cancel_all_closes_the_dialog() -> None:
    app = Harness(SimplePolicy())
    async with app.run_test() as pilot:
        tasks = await ask_all(app, request(id="a"), request(id="b"))
        await next_dialog(app, pilot)
        app.asker.cancel_all()
        await until(pilot, lambda: all(t.done() for t in tasks) and app.screen is app.screen_stack[0])
        assert all(t.cancelled() for t in tasks)
        assert app.asker.dialog is None and app.asker.pending == 0


# ----- with the real loop --------------------------------------------------------------------------------


async def run_agent(app: Harness, prompt: str = "go") -> asyncio.Task[Any]:
    assert app.agent is not None
    return asyncio.create_task(app.agent.run(prompt))


async def test_allow_once_runs_the_tool(tmp_path: Path) -> None:
    shell = FakeShell()
    agent, scripted = make_agent(tmp_path, [Reply([ToolUse("Bash", {"command": "make build"})]), Reply([Text("built")])], [shell], SimplePolicy())
    app = Harness(agent.policy, agent)
    async with app.run_test() as pilot:
        run = await run_agent(app)
        dialog = await next_dialog(app, pilot)
        assert dialog.request.tool_name == "Bash" and dialog.request.input == {"command": "make build"}
        app.clock.advance(GUARD_PASSED)
        await pilot.press("y")
        ended = await asyncio.wait_for(run, 60)
    assert ended.reason == "completed" and shell.ran == ["make build"]
    [block] = tool_results(scripted.requests[-1]["messages"][-1])
    assert not block.get("is_error") and "ran: make build" in result_text(block)


async def test_deny_with_words_reaches_the_model_verbatim(tmp_path: Path) -> None:
    shell = FakeShell()
    words = "Don't delete build/ — run `make clean` instead."
    agent, scripted = make_agent(tmp_path, [Reply([ToolUse("Bash", {"command": "rm -rf build"})]), Reply([Text("ok, make clean")])], [shell], SimplePolicy())
    app = Harness(agent.policy, agent)
    async with app.run_test() as pilot:
        run = await run_agent(app)
        await next_dialog(app, pilot)
        app.clock.advance(GUARD_PASSED)
        await pilot.press("5")
        await until(pilot, lambda: isinstance(app.focused, Input))
        app.focused.insert_text_at_cursor(words)  # type: ignore[union-attr]  # typed as-is (unicode, backticks)
        await pilot.press("enter")
        ended = await asyncio.wait_for(run, 60)
    assert ended.reason == "completed" and shell.ran == []
    assert len(scripted.requests) == 2  # the model's turn went on
    [block] = tool_results(scripted.requests[-1]["messages"][-1])
    assert block["is_error"] is True
    assert result_text(block).endswith("The user said:\n" + words)


async def test_session_grant_applies_at_once_and_is_not_saved(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    engine = PermissionEngine(project, home=tmp_path / "home")
    shell = FakeShell()
    script = [
        Reply([ToolUse("Bash", {"command": "npm run test --watch"})]),
        Reply([ToolUse("Bash", {"command": "npm run test --ci"})]),
        Reply([Text("done")]),
    ]
    agent, _ = make_agent(tmp_path, script, [shell], engine)
    asked: list[Any] = []
    agent.emit = lambda e: asked.append(e) if isinstance(e, PermissionAsked) else None
    app = Harness(engine, agent)
    async with app.run_test() as pilot:
        run = await run_agent(app)
        await next_dialog(app, pilot)
        app.clock.advance(GUARD_PASSED)
        await pilot.press("2")
        ended = await asyncio.wait_for(run, 60)
    assert ended.reason == "completed"
    assert shell.ran == ["npm run test --watch", "npm run test --ci"] and len(asked) == 1
    assert engine.session_rules() == ["Bash(npm run test *)"]
    assert not (project / ".claude" / "settings.local.json").exists()


async def test_a_compound_command_offers_every_parts_rule_at_once(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    engine = PermissionEngine(project, home=tmp_path / "home")
    shell = FakeShell()
    script = [
        Reply([ToolUse("Bash", {"command": "make build && npm test"})]),
        Reply([ToolUse("Bash", {"command": "make build -j4 && npm test -- --ci"})]),
        Reply([Text("done")]),
    ]
    agent, _ = make_agent(tmp_path, script, [shell], engine)
    app = Harness(engine, agent)
    async with app.run_test() as pilot:
        run = await run_agent(app)
        dialog = await next_dialog(app, pilot)
        app.clock.advance(GUARD_PASSED)
        assert "Bash(make build *) + Bash(npm test *)" in str(dialog.query_one("#choice-session").render())
        await pilot.press("2")
        ended = await asyncio.wait_for(run, 60)
    assert ended.reason == "completed"
    assert shell.ran == ["make build && npm test", "make build -j4 && npm test -- --ci"]  # asked once
    assert engine.session_rules() == ["Bash(make build *)", "Bash(npm test *)"]


async def test_always_allow_saves_the_chosen_rule_and_applies_at_once(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    engine = PermissionEngine(project, home=tmp_path / "home")
    shell = FakeShell()
    script = [
        Reply([ToolUse("Bash", {"command": "npm run test --watch"})]),
        Reply([ToolUse("Bash", {"command": "npm run lint"})]),
        Reply([Text("done")]),
    ]
    agent, _ = make_agent(tmp_path, script, [shell], engine)
    asked: list[Any] = []
    agent.emit = lambda e: asked.append(e) if isinstance(e, PermissionAsked) else None
    app = Harness(engine, agent)
    async with app.run_test() as pilot:
        run = await run_agent(app)
        dialog = await next_dialog(app, pilot)
        app.clock.advance(GUARD_PASSED)
        await pilot.press("r")  # broader: npm run *
        assert "Bash(npm run *)" in str(dialog.query_one("#choice-always").render())
        await pilot.press("3")
        ended = await asyncio.wait_for(run, 60)
    assert ended.reason == "completed"
    assert shell.ran == ["npm run test --watch", "npm run lint"] and len(asked) == 1
    saved = json.loads((project / ".claude" / "settings.local.json").read_text())
    assert saved["permissions"]["allow"] == ["Bash(npm run *)"]
    assert ("allow", "Bash(npm run *)", str(project / ".claude" / "settings.local.json")) in engine.rules_in_force()


async def test_three_queued_asks_while_a_tool_runs(tmp_path: Path) -> None:
    shell, slow = FakeShell(), SlowRead()
    script = [
        Reply([ToolUse("SlowRead", {}), *(ToolUse("Bash", {"command": f"npm run {n}"}) for n in "abc")]),
        Reply([Text("done")]),
    ]
    agent, scripted = make_agent(tmp_path, script, [shell, slow], SimplePolicy())
    app = Harness(agent.policy, agent)
    async with app.run_test() as pilot:
        run = await run_agent(app)
        first = await next_dialog(app, pilot)
        await until(pilot, lambda: count_of(first) == "1 of 3")
        assert slow.started.is_set()  # the read-only tool runs while the asks wait
        previous = None
        for key in ("1", "4", "1"):
            previous = await next_dialog(app, pilot, previous)
            app.clock.advance(GUARD_PASSED)
            await pilot.press(key)
        await until(pilot, lambda: app.asker.pending == 0)
        assert not slow.release.is_set() and not run.done()
        slow.release.set()
        ended = await asyncio.wait_for(run, 60)
    assert ended.reason == "completed" and shell.ran == ["npm run a", "npm run c"]
    blocks = tool_results(scripted.requests[-1]["messages"][-1])
    assert [bool(b.get("is_error")) for b in blocks] == [False, False, True, False]
    assert "slow read done" in result_text(blocks[0]) and "rejected" in result_text(blocks[2])


async def test_abort_while_asking_interrupts_the_tool(tmp_path: Path) -> None:
    shell = FakeShell()
    agent, scripted = make_agent(tmp_path, [Reply([ToolUse("Bash", {"command": "make deploy"})])], [shell], SimplePolicy())
    app = Harness(agent.policy, agent)
    async with app.run_test() as pilot:
        run = await run_agent(app)
        await next_dialog(app, pilot)
        agent.abort()  # what the app does on Esc / Ctrl+C…
        app.asker.cancel_all()  # …and then this
        ended = await asyncio.wait_for(run, 60)
        await until(pilot, lambda: app.screen is app.screen_stack[0])
    assert ended.reason == "aborted" and shell.ran == []
    [block] = tool_results(agent.history[-1])
    assert block["is_error"] and "Interrupted" in result_text(block)


async def test_write_through_the_loop_shows_its_diff(tmp_path: Path) -> None:
    write = FakeWrite()
    agent, _ = make_agent(tmp_path, [Reply([ToolUse("Write", {"file_path": "notes.txt", "content": "hello"})]), Reply([Text("ok")])], [write], SimplePolicy())
    app = Harness(agent.policy, agent)
    async with app.run_test() as pilot:
        run = await run_agent(app)
        dialog = await next_dialog(app, pilot)
        assert "+hello" in str(dialog.query_one("#diff").render())
        app.clock.advance(GUARD_PASSED)
        await pilot.press("enter")  # not a shell command: "allow once" is pre-selected
        assert (await asyncio.wait_for(run, 60)).reason == "completed"
    assert (tmp_path / "proj" / "notes.txt").read_text() == "hello"


async def test_the_built_in_edit_and_bash_tools(tmp_path: Path) -> None:
    """The real tools and the real engine: an Edit always allowed from its real diff, a Bash denied with words."""
    from tui_agent.tools.builtin import all_tools

    project = make_project(tmp_path)
    target = project / "src" / "app.py"
    target.parent.mkdir()
    target.write_text("def main():\n    return 1\n")
    engine = PermissionEngine(project, home=tmp_path / "home")
    script = [
        Reply([ToolUse("Read", {"file_path": str(target)})]),
        Reply([
            ToolUse("Edit", {"file_path": str(target), "old_string": "return 1", "new_string": "return 2"}),
            ToolUse("Bash", {"command": "touch made.txt"}),
        ]),
        Reply([Text("done")]),
    ]
    agent, scripted = make_agent(tmp_path, script, all_tools(), engine)
    app = Harness(engine, agent)
    async with app.run_test() as pilot:
        run = await run_agent(app)
        edit = await next_dialog(app, pilot)
        await until(pilot, lambda: count_of(edit) == "1 of 2")
        shown = str(edit.query_one("#diff").render())
        assert "-    return 1" in shown and "+    return 2" in shown
        app.clock.advance(GUARD_PASSED)
        await pilot.press("3")
        bash = await next_dialog(app, pilot, edit)
        assert bash.request.input == {"command": "touch made.txt"} and bash.highlighted == "once"
        app.clock.advance(GUARD_PASSED)
        await pilot.press("5")
        await until(pilot, lambda: bool(bash.query("#words")))
        await type_keys(pilot, *keys_for("no files please"), "enter")
        ended = await asyncio.wait_for(run, 60)
    assert ended.reason == "completed"
    assert target.read_text() == "def main():\n    return 2\n" and not (project / "made.txt").exists()
    saved = json.loads((project / ".claude" / "settings.local.json").read_text())
    assert saved["permissions"]["allow"] == [edit.request.suggestions[0]]
    edit_result, bash_result = tool_results(scripted.requests[-1]["messages"][-1])
    assert not edit_result.get("is_error") and bash_result["is_error"]
    assert result_text(bash_result).endswith("The user said:\nno files please")


# ----- snapshots -------------------------------------------------------------------------------------------


def _snapshot_app(*requests: Any, answer_first: bool = False, keys: tuple[str, ...] = ()) -> tuple[Harness, Any]:
    app = Harness(SimplePolicy(), guard=0.0)

    async def run_before(pilot: Any) -> None:
        await ask_all(app, *requests)
        dialog = await next_dialog(app, pilot)
        if answer_first:
            await until(pilot, lambda: count_of(dialog) == f"1 of {len(requests)}")
            await pilot.press("1")
            dialog = await next_dialog(app, pilot, dialog)
        if keys:
            await type_keys(pilot, *keys)
            await until(pilot, lambda: bool(dialog.notice))
        await pilot.pause()

    return app, run_before


def test_snapshot_shell_command(snap_compare: Any) -> None:
    """You should see a dialog at the bottom titled "Bash: run this command?" showing
    `npm run test --watch` and the reason, then the choices with their keys (1 y, 2, 3, 4 n, 5), the
    session and always choices naming Bash(npm run test *), "allow once" highlighted (❯), and a hint line starting
    "r/tab other rule (1/3)"."""
    app, run_before = _snapshot_app(request())
    assert snap_compare(app, run_before=run_before, terminal_size=(100, 28))


def test_snapshot_edit_with_diff(snap_compare: Any) -> None:
    """You should see "Edit: edit this file?" with src/app.py, a diff with a removed line on a red tint
    and two added lines on a green tint, and "allow once" highlighted (❯)."""
    diff = (
        "--- a/src/app.py\n+++ b/src/app.py\n@@ -1,3 +1,4 @@\n import os\n-DEBUG = True\n"
        "+DEBUG = False\n+LOG_LEVEL = \"info\"\n print(os.getcwd())"
    )
    req = request("Edit", input={"file_path": "src/app.py"}, diff=diff, reason="Edit: writing src/app.py needs permission.",
                  suggestions=("Edit(./src/**)", "Edit(./**)"))
    app, run_before = _snapshot_app(req)
    assert snap_compare(app, run_before=run_before, terminal_size=(100, 32))


def test_snapshot_second_of_three(snap_compare: Any) -> None:
    """You should see the dialog for `npm run b` with "2 of 3" in its bottom border and a sixth choice
    "No to this and the 1 other waiting, with words…", and "allow once" highlighted (❯)."""
    reqs = [
        request(id=f"r{n}", tool_use_id=f"t{n}", command=f"npm run {n}", reason="",
                suggestions=(f"Bash(npm run {n} *)", "Bash(npm run *)", "Bash(npm *)"))
        for n in "abc"
    ]
    app, run_before = _snapshot_app(*reqs, answer_first=True)
    assert snap_compare(app, run_before=run_before, terminal_size=(100, 28))


def test_snapshot_enter_on_a_shell_command_at_80x24(snap_compare: Any) -> None:
    """You should see the shell dialog at 80 columns, "allow once" still highlighted, and above the hint a
    warning-coloured line "enter alone never approves a shell command — press 1 or y to allow it"."""
    app, run_before = _snapshot_app(request(), keys=("enter",))
    assert snap_compare(app, run_before=run_before, terminal_size=(80, 24))


# ----- typing into an open dialog ----------------------------------------------------------------------


async def test_a_sentence_typed_into_an_open_dialog_goes_to_the_prompt_and_answers_nothing() -> None:
    typing = FakeClock()
    app = Harness(SimplePolicy(), typing_clock=typing)
    async with app.run_test() as pilot:
        prompt = app.query_one("#prompt", Input)
        [task] = await ask_all(app, request())
        dialog = await next_dialog(app, pilot)
        app.clock.advance(GUARD_PASSED)
        await type_keys(pilot, *keys_for("2 more files"), "enter")  # "2" would allow for the session; enter would choose
        await pilot.press("backspace")
        assert prompt.value == "2 more file"
        assert "waiting for your answer" in str(dialog.query_one("#hint").render())
        await pilot.pause(0.3)
        assert not task.done() and app.screen is dialog
        typing.advance(1.5)  # a quiet second: keys are answers again, and the dialog says so
        await until(pilot, lambda: "waiting" not in str(dialog.query_one("#hint").render()))
        await pilot.press("4")
        typing.advance(0.5)
        await until(pilot, task.done)
        assert task.result() == PermissionAnswer("deny")
        assert prompt.value == "2 more file"


async def test_a_lone_answer_key_still_answers() -> None:
    typing = FakeClock()
    app = Harness(SimplePolicy(), typing_clock=typing)
    async with app.run_test() as pilot:
        prompt = app.query_one("#prompt", Input)
        [task] = await ask_all(app, request())
        await next_dialog(app, pilot)
        app.clock.advance(GUARD_PASSED)
        await pilot.press("2")
        await pilot.pause(0.2)
        assert not task.done()  # held a moment: a sentence might follow
        typing.advance(0.3)  # none did
        await until(pilot, task.done)
        assert task.result() == PermissionAnswer("allow_session", rule="Bash(npm run test *)")
        assert prompt.value == ""


def test_a_notebook_edit_asks_to_edit_this_notebook_naming_it() -> None:
    from tui_agent.core.permission_types import PermissionRequest
    from tui_agent.ui.screens.permission import _subject

    request = PermissionRequest(id="n", tool_use_id="t", tool_name="NotebookEdit", summary="", read_only=False,
                                input={"notebook_path": "/p/analysis.ipynb", "cell_id": "c1", "new_source": "x = 1"})
    title, subject = _subject(request)
    assert title == "NotebookEdit: edit this notebook?" and str(subject) == "/p/analysis.ipynb"
