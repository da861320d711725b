"""The prompt a person lives in: @-file completion and attachments, `!` shell mode, history across
sessions (and Claude Code's own), Ctrl+R, the external editor. The real app on the scripted model."""

from __future__ import annotations

import json
import os
import random
import stat
import subprocess
from pathlib import Path

from tui_agent.providers.scripted import Reply, Text
from tui_agent.ui.widgets.transcript_items import UserPrompt

from tests.ui.app_support import build, sleep_processes, transcript_text, until, until_idle
from tests.ui.app_support import type_keys


def user_blocks(request: dict) -> list[dict]:
    content = request["messages"][-1]["content"]
    return [{k: v for k, v in b.items() if k != "cache_control"} for b in content]


def completion_items(app) -> list[str]:
    lst = app.prompt.completions
    return [str(lst.get_option_at_index(i).prompt) for i in range(lst.option_count)] if lst.display else []


class TestMentions:
    async def test_at_opens_the_project_files_fuzzy_matched_and_tab_inserts(self, project: Path) -> None:
        (project / "src").mkdir()
        (project / "src" / "alpha_widget.py").write_text("A = 1\n")
        (project / "src" / "beta.py").write_text("B = 2\n")
        app, model = build(project, [Reply([Text("seen")])])
        async with app.run_test(size=(100, 30)) as pilot:
            await type_keys(pilot, *"look at @alwid")
            await until(pilot, lambda: completion_items(app) == ["src/alpha_widget.py"])
            await pilot.press("tab")
            assert app.prompt.text == "look at @src/alpha_widget.py "
            assert not app.prompt.completions.display
            await type_keys(pilot, *"and @src")
            await until(pilot, lambda: "src/" in completion_items(app))
            await pilot.press("escape")  # closes the list, leaves the text
            assert not app.prompt.completions.display and app.prompt.text.endswith("@src")
            await pilot.press("enter")
            await until_idle(pilot, app)
        blocks = user_blocks(model.requests[0])
        path = project / "src" / "alpha_widget.py"
        assert blocks[0]["text"] == (
            "<system-reminder>\nCalled the Read tool with the following input: "
            + json.dumps({"file_path": str(path)}, separators=(",", ":")) + "\n</system-reminder>"
        )
        assert blocks[1]["text"].startswith("<system-reminder>\nResult of calling the Read tool:\n")
        assert "A = 1" in blocks[1]["text"] and blocks[1]["text"].endswith("\n</system-reminder>")
        listing = project / "src"
        assert blocks[2]["text"] == (
            "<system-reminder>\nCalled the Bash tool with the following input: "
            + json.dumps({"command": f"ls {listing}", "description": f"Lists files in {listing}"}, separators=(",", ":"))
            + "\n</system-reminder>"
        )
        assert blocks[3]["text"] == "<system-reminder>\nResult of calling the Bash tool:\nalpha_widget.py\nbeta.py\n</system-reminder>"
        assert blocks[4] == {"type": "text", "text": "look at @src/alpha_widget.py and @src"}
        # The file counts as read: an Edit may follow without a Read.
        assert app.agent.context.read_state.was_read(path)

    async def test_ignored_files_are_offered_only_under_their_folder(self, project: Path) -> None:
        subprocess.run(["git", "init", "-q"], cwd=project, check=True)
        (project / ".gitignore").write_text("build/\n")
        (project / "build").mkdir()
        (project / "build" / "output_report.txt").write_text("x\n")
        (project / "output_notes.md").write_text("x\n")
        app, _ = build(project, [])
        async with app.run_test(size=(100, 30)) as pilot:
            await type_keys(pilot, *"@output")
            await until(pilot, lambda: completion_items(app) == ["output_notes.md"])
            await pilot.press("escape")
            app.prompt.clear()
            await type_keys(pilot, *"@build/out")
            await until(pilot, lambda: completion_items(app)[:1] == ["build/output_report.txt"])

    async def test_a_big_file_is_cut_as_read_cuts_it(self, project: Path) -> None:
        (project / "big.txt").write_text("".join(f"line {i} " + "x" * 150 + "\n" for i in range(5000)))
        app, model = build(project, [Reply([Text("ok")])])
        async with app.run_test(size=(100, 30)) as pilot:
            await until(pilot, lambda: app.ready)
            app.submit("summarise @big.txt")
            await until_idle(pilot, app)
        result = user_blocks(model.requests[0])[1]["text"]
        assert result.startswith("<system-reminder>\nResult of calling the Read tool:\n     1\tline 0 ")
        assert "line 499 " in result and "line 4999 " not in result and len(result) <= 100_100


class TestShellMode:
    async def test_bang_switches_mode_and_the_command_enters_the_conversation(self, project: Path) -> None:
        app, model = build(project, [Reply([Text("I see the output.")])])
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("!")
            assert app.prompt.mode == "bash" and app.prompt.text == ""
            assert app.prompt.has_class("-shell") and "shell mode" in str(app.prompt.bar.render())
            await type_keys(pilot, *"echo out; echo err >&2; exit 3", "enter")
            await until_idle(pilot, app)
            assert app.prompt.mode == "prompt"
            assert "I see the output." in transcript_text(app)
        blocks = user_blocks(model.requests[0])
        assert blocks[0] == {"type": "text", "text": "<bash-input>echo out; echo err >&2; exit 3</bash-input>"}
        assert blocks[1] == {"type": "text", "text": "<bash-stdout>out\nerr</bash-stdout><bash-stderr>Exit code 3</bash-stderr>"}

    async def test_backspace_on_an_empty_shell_prompt_leaves_shell_mode(self, project: Path) -> None:
        app, _ = build(project, [])
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("!", "backspace")
            assert app.prompt.mode == "prompt"
            await type_keys(pilot, *"a!")
            assert app.prompt.text == "a!" and app.prompt.mode == "prompt"

    async def test_respond_to_bash_commands_false_only_records_it(self, project: Path) -> None:
        (project / ".claude").mkdir()
        (project / ".claude" / "settings.json").write_text(json.dumps({"respondToBashCommands": False}))
        app, model = build(project, [])
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("!", *"echo '<b>&'", "enter")
            await until_idle(pilot, app)
            history = app.agent.history
        assert model.requests == []
        texts = [b["text"] for b in history[-1]["content"]]
        assert texts[0].startswith("<local-command-caveat>")
        assert texts[1:] == ["<bash-input>echo '<b>&'</bash-input>", "<bash-stdout>&lt;b&gt;&amp;</bash-stdout><bash-stderr></bash-stderr>"]

    async def test_escape_stops_the_command_and_its_processes(self, project: Path) -> None:
        app, model = build(project, [])
        async with app.run_test(size=(100, 30)) as pilot:
            tag = f"{random.randrange(10**6):06d}"  # this test's sleeps, not another test's in the same worker
            await pilot.press("!", *f"sleep 30.{tag} & sleep 31.{tag}; echo never", "enter")
            await until(pilot, lambda: sum(" ".join(p.cmdline()).startswith("sleep") for p in sleep_processes(f".{tag}")) == 2)
            await pilot.press("escape")
            await until_idle(pilot, app)
            await until(pilot, lambda: not sleep_processes(f".{tag}"))
            texts = [b["text"] for b in app.agent.history[-1]["content"]]
        assert model.requests == []
        assert texts[-1] == "[Request interrupted by user]" and "<bash-input>sleep 30" in texts[1]


class TestHistory:
    async def test_up_down_walk_this_projects_prompts_across_sessions_and_claude_codes(self, project: Path) -> None:
        claude = Path(os.environ["HOME"]) / ".claude" / "history.jsonl"
        claude.parent.mkdir(parents=True)
        lines = [
            {"display": "from claude code", "pastedContents": {}, "timestamp": 1000, "project": str(project), "sessionId": "s0"},
            {"display": "another project", "pastedContents": {}, "timestamp": 1001, "project": "/elsewhere", "sessionId": "s0"},
        ]
        claude.write_text("".join(json.dumps(l) + "\n" for l in lines) + "not json\n")
        before = claude.read_bytes()
        app, _ = build(project, [Reply([Text("a")]), Reply([Text("b")]), Reply([Text("c")])])
        async with app.run_test(size=(100, 30)) as pilot:
            for prompt in ("first prompt", "second prompt"):
                await type_keys(pilot, *prompt, "enter")
                await until_idle(pilot, app)
            await pilot.press("!", *"echo hi", "enter")
            await until_idle(pilot, app)
            await type_keys(pilot, *"draft")
            await pilot.press("up")
            assert app.prompt.text == "echo hi" and app.prompt.mode == "bash"
            assert "history 1 of 4" in str(app.prompt.bar.render())
            await pilot.press("up", "up")
            assert app.prompt.text == "first prompt" and app.prompt.mode == "prompt"
            await pilot.press("up")
            assert app.prompt.text == "from claude code"
            await pilot.press("up")  # the oldest: stays
            assert app.prompt.text == "from claude code"
            await pilot.press("down", "down", "down", "down")
            assert app.prompt.text == "draft" and not app.prompt.bar.display
            session_id = app.agent.session.id
        ours = Path(os.environ["XDG_DATA_HOME"]) / "tui-agent" / "history.jsonl"
        saved = [json.loads(l) for l in ours.read_text().splitlines()]
        assert [e["display"] for e in saved] == ["first prompt", "second prompt", "!echo hi"]
        assert list(saved[0]) == ["display", "pastedContents", "timestamp", "project", "sessionId"]
        assert saved[0]["project"] == str(project) and saved[0]["sessionId"] == session_id
        assert saved[0]["timestamp"] > 1_600_000_000_000  # milliseconds
        assert claude.read_bytes() == before  # Claude Code's file is only read

        # A new session of the same project sees them.
        app2, _ = build(project, [])
        async with app2.run_test(size=(100, 30)) as pilot:
            await pilot.press("up")
            assert app2.prompt.text == "echo hi"

    async def test_ctrl_r_searches_incrementally_and_enter_takes_without_sending(self, project: Path) -> None:
        app, model = build(project, [Reply([Text("a")]), Reply([Text("b")])])
        async with app.run_test(size=(100, 30)) as pilot:
            for prompt in ("fix the parser", "run the tests"):
                await type_keys(pilot, *prompt, "enter")
                await until_idle(pilot, app)
            await pilot.press("ctrl+r", *"t")
            assert app.prompt.text == "run the tests"
            await pilot.press("ctrl+r")  # the next older match
            assert app.prompt.text == "fix the parser"
            await type_keys(pilot, *"he p")
            assert app.prompt.text == "fix the parser" and "search history: the p_" in str(app.prompt.bar.render())
            await pilot.press("enter")
            assert app.prompt.text == "fix the parser" and len(model.requests) == 2
            await pilot.press("ctrl+r", *"zzz")
            assert "no match" in str(app.prompt.bar.render())
            await pilot.press("escape")
            assert app.prompt.text == "fix the parser"


class TestEditor:
    async def test_ctrl_g_edits_the_prompt_in_the_editor_and_does_not_send(self, project: Path, monkeypatch, tmp_path: Path) -> None:
        editor = tmp_path / "fake-editor"
        editor.write_text('#!/bin/sh\nprintf "%s\\nedited in the editor\\n" "$(cat "$1")" > "$1"\n')
        editor.chmod(editor.stat().st_mode | stat.S_IEXEC)
        monkeypatch.delenv("VISUAL", raising=False)
        monkeypatch.setenv("EDITOR", str(editor))
        app, model = build(project, [])
        async with app.run_test(size=(100, 30)) as pilot:
            await type_keys(pilot, *"first line")
            await pilot.press("ctrl+g")
            await until(pilot, lambda: "edited in the editor" in app.prompt.text)
            assert app.prompt.text == "first line\nedited in the editor"
            await pilot.press("ctrl+x", "ctrl+e")  # the readline chord too
            await until(pilot, lambda: app.prompt.text.count("edited") == 2)
            assert model.requests == [] and not any(isinstance(i, UserPrompt) for i in app.transcript.items)


async def test_a_paste_with_colour_codes_and_escapes_lands_as_its_text(project: Path) -> None:
    from textual import events

    app, _ = build(project, [])
    async with app.run_test(size=(100, 30)) as pilot:
        app.post_message(events.Paste("pasted \x1b[31mred\x1b[0m,\x1b\x1b two\x07\nline two"))
        await until(pilot, lambda: "line two" in app.prompt.text)
        assert app.prompt.text == "pasted red, two\nline two"
        assert not app.running  # nothing in it was taken for ESC
