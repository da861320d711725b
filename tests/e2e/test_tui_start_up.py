"""Keys typed while the app starts and right after its first frame all reach the prompt: a real pty, the
real `python -m tui_agent`, the scripted model on a loopback port receiving what was typed."""

from __future__ import annotations

import os
from pathlib import Path

from tests.e2e.pty_app import PtyApp, wait
from tests.ui.app_support import trust_for_tests
from tui_agent.providers.scripted import Reply, ScriptedModel, ScriptedServer, Text


def test_keys_typed_during_start_up_and_right_after_the_first_frame_are_all_in_the_prompt(tmp_path: Path) -> None:
    model = ScriptedModel(lambda body, index: Reply([Text("got it")]))
    server = ScriptedServer(model).start()
    work = tmp_path / "work"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "TUI_AGENT"))}
    env.update({"HOME": str(tmp_path / "home"), "XDG_DATA_HOME": str(tmp_path / "data"),
                "XDG_CONFIG_HOME": str(tmp_path / "home" / ".config"), "ANTHROPIC_API_KEY": "sk-test",
                "ANTHROPIC_BASE_URL": server.url})
    trust_for_tests(tmp_path / "home", work)  # a folder the user trusted before: no trust question
    app = PtyApp([], env, work)
    try:
        app.send(b"typed while it starts")  # the interpreter is still importing: the terminal keeps them
        assert app.wait_for_output(b"esc interrupt"), app.output[-2000:]
        app.send(b", then at once")  # the first frame is up; the agent is still being built
        app.send(b"\r")
        assert wait(lambda: any(body.get("tools") for body in model.requests)), app.output[-2000:]
        (body,) = [body for body in model.requests if body.get("tools")]
        prompts = [m["content"] for m in body["messages"] if m["role"] == "user"]
        texts = [p if isinstance(p, str) else " ".join(b.get("text", "") for b in p) for p in prompts]
        assert any("typed while it starts, then at once" in t for t in texts), texts
    finally:
        app.kill()
        server.stop()
